import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/** A secret as stored at rest (partner-config topic): AES-256-GCM, never plaintext. */
export interface EncryptedSecret {
  /** Which data key encrypted it (so keys can be rotated). */
  key_id: string;
  /** 12-byte nonce, fresh for every encryption. */
  iv: Buffer;
  ciphertext: Buffer;
  /** 16-byte GCM authentication tag. */
  tag: Buffer;
}

/** One named 256-bit data key. */
export interface DataKey {
  id: string;
  key: Buffer;
}

/**
 * Parses a keyring setting: comma-separated `id:base64`, the first being the one new values
 * use; the others stay readable for rotation. Throws naming what is wrong (never the key).
 */
export function parseKeyring(value: string, what: string, minBytes: number, exactBytes?: number): DataKey[] {
  const entries = value
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e.length > 0);
  if (entries.length === 0) throw new Error(`${what} must list at least one id:base64 entry`);
  const seen = new Set<string>();
  return entries.map((entry, index) => {
    const colon = entry.indexOf(':');
    const id = colon > 0 ? entry.slice(0, colon) : '';
    if (!/^[A-Za-z0-9._-]{1,64}$/.test(id))
      throw new Error(`${what} entry ${index + 1} must look like id:base64 (id of letters, digits, . _ -)`);
    if (seen.has(id)) throw new Error(`${what} lists the id "${id}" twice`);
    seen.add(id);
    const key = Buffer.from(entry.slice(colon + 1), 'base64');
    if (exactBytes !== undefined && key.length !== exactBytes) {
      throw new Error(`${what} entry "${id}" must be ${exactBytes} bytes in base64 (it is ${key.length})`);
    }
    if (key.length < minBytes) throw new Error(`${what} entry "${id}" must be at least ${minBytes} bytes in base64 (it is ${key.length})`);
    return { id, key };
  });
}

/** A fresh keyring value (`id:base64` of `bytes` random bytes), for local stacks and tests. */
export function generateKeyringValue(id: string, bytes = 32): string {
  return `${id}:${randomBytes(bytes).toString('base64')}`;
}

/**
 * Encrypts and decrypts partner secrets with AES-256-GCM under keys from the environment
 * (HOOKSTREAM_SECRETS_KEYS). Each ciphertext is bound to where it belongs (partner id and
 * field) as GCM additional data, so a ciphertext copied into another partner's record or
 * another field does not decrypt.
 */
export class SecretBox {
  private readonly keys: Map<string, Buffer>;
  private readonly current: DataKey;

  constructor(keyring: DataKey[]) {
    const [current] = keyring;
    if (!current) throw new Error('SecretBox needs at least one key');
    this.current = current;
    this.keys = new Map(keyring.map((k) => [k.id, k.key]));
  }

  /** Id of the key new secrets are encrypted with. */
  get currentKeyId(): string {
    return this.current.id;
  }

  encrypt(plaintext: string, context: string): EncryptedSecret {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.current.key, iv);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return { key_id: this.current.id, iv, ciphertext, tag: cipher.getAuthTag() };
  }

  /** Throws when the key is unknown, or the ciphertext, tag or context do not match. */
  decrypt(secret: EncryptedSecret, context: string): string {
    const key = this.keys.get(secret.key_id);
    if (!key) throw new Error(`secret encrypted with key "${secret.key_id}", which HOOKSTREAM_SECRETS_KEYS does not hold`);
    const decipher = createDecipheriv('aes-256-gcm', key, secret.iv);
    decipher.setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(secret.tag);
    return Buffer.concat([decipher.update(secret.ciphertext), decipher.final()]).toString('utf8');
  }

  /** Re-encrypts under the current key (rotation); a no-op when it already is. */
  reencrypt(secret: EncryptedSecret, context: string): EncryptedSecret {
    return secret.key_id === this.current.id ? secret : this.encrypt(this.decrypt(secret, context), context);
  }
}
