import { SecretBox, generateKeyringValue, parseKeyring } from '../../src/secrets/secret-box';

const keyring = (value: string) => parseKeyring(value, 'HOOKSTREAM_SECRETS_KEYS', 32, 32);

describe('SecretBox (AES-256-GCM)', () => {
  const oldKey = generateKeyringValue('k1');
  const newKey = generateKeyringValue('k2');

  test('when a secret is encrypted, then the stored form holds no plaintext and decrypts back', () => {
    const box = new SecretBox(keyring(oldKey));
    const sealed = box.encrypt('s3cr3t-value', 'partner-config/acme/outbound_auth.secret');
    expect(sealed.key_id).toBe('k1');
    expect(sealed.iv).toHaveLength(12);
    expect(sealed.tag).toHaveLength(16);
    expect(Buffer.concat([sealed.iv, sealed.ciphertext, sealed.tag]).toString('latin1')).not.toContain('s3cr3t');
    expect(box.decrypt(sealed, 'partner-config/acme/outbound_auth.secret')).toBe('s3cr3t-value');
    expect(box.encrypt('s3cr3t-value', 'ctx').iv.equals(box.encrypt('s3cr3t-value', 'ctx').iv)).toBe(false);
  });

  test('when a ciphertext is moved to another partner or field, or tampered with, then it does not decrypt', () => {
    const box = new SecretBox(keyring(oldKey));
    const sealed = box.encrypt('s3cr3t', 'partner-config/acme/outbound_auth.secret');
    expect(() => box.decrypt(sealed, 'partner-config/evil/outbound_auth.secret')).toThrow();
    expect(() => box.decrypt(sealed, 'partner-config/acme/outbound_auth.api_key')).toThrow();
    const tampered = { ...sealed, ciphertext: Buffer.from(sealed.ciphertext.map((b, i) => (i === 0 ? b ^ 1 : b))) };
    expect(() => box.decrypt(tampered, 'partner-config/acme/outbound_auth.secret')).toThrow();
  });

  test('when keys are rotated, then old secrets still decrypt and re-encrypt under the new key', () => {
    const sealed = new SecretBox(keyring(oldKey)).encrypt('s3cr3t', 'ctx');
    const rotated = new SecretBox(keyring(`${newKey},${oldKey}`));
    expect(rotated.decrypt(sealed, 'ctx')).toBe('s3cr3t');
    const again = rotated.reencrypt(sealed, 'ctx');
    expect(again.key_id).toBe('k2');
    expect(new SecretBox(keyring(newKey)).decrypt(again, 'ctx')).toBe('s3cr3t');
    expect(() => new SecretBox(keyring(newKey)).decrypt(sealed, 'ctx')).toThrow(/key "k1"/);
  });

  test.each([
    ['', /at least one/],
    ['nocolon', /id:base64/],
    ['k1:c2hvcnQ=', /32 bytes/],
    [`${generateKeyringValue('k1')},${generateKeyringValue('k1')}`, /twice/],
  ])('when the keyring is %p, then it is refused saying why', (value, message) => {
    expect(() => keyring(value)).toThrow(message);
  });
});
