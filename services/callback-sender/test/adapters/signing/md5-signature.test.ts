import { ErrorCodes } from '@hookstream/errors';
import { createHash } from 'node:crypto';
import { SecretBox, generateKeyringValue, parseKeyring } from '@hookstream/runtime';
import { secretContext, type Md5Part } from '@hookstream/partners';
import { createCallbackSigner } from '../../../src/adapters/signing';

const PARTNER = 'travelco';
const box = new SecretBox(parseKeyring(generateKeyringValue('k1'), 'HOOKSTREAM_SECRETS_KEYS', 32, 32));
const SECRET = 'md5-shared-secret';

const md5 = (text: string) => createHash('md5').update(text, 'utf8').digest('hex');
const signerFor = (parts: Md5Part[], placement: 'HEADER' | 'BODY_FIELD', target = placement === 'HEADER' ? 'X-Sign' : 'Sign') =>
  createCallbackSigner({
    partnerId: PARTNER,
    auth: { method: 'MD5', secret: box.encrypt(SECRET, secretContext(PARTNER, 'secret')), parts, placement, target },
    secrets: box,
  });
const sign = (signer: ReturnType<typeof signerFor>, body: string) => signer.sign({ body, deliveryId: 'd-1', now: new Date() });

// The reduced body of examples/partners/md5-reduced-body.yaml.
const contract: Md5Part[] = [
  { kind: 'SECRET', value: '' },
  { kind: 'BODY_FIELD', value: 'start_protection_at' },
  { kind: 'BODY_FIELD', value: 'partner_transaction_number' },
];
const reduced = JSON.stringify({ partner_transaction_number: 'PTN-77', start_protection_at: '2026-03-01', status: 'POLICY_ACTIVE' });

describe('MD5 signing (spec 5.1)', () => {
  test('when the digest goes in a header, then it is the lowercase hex MD5 of the parts joined, and the body is unchanged', async () => {
    const signed = await sign(signerFor(contract, 'HEADER'), reduced);
    expect(signed.headers['X-Sign']).toBe(md5(`${SECRET}2026-03-01PTN-77`));
    expect(signed.headers['X-Sign']).toMatch(/^[0-9a-f]{32}$/);
    expect(signed.body.toString('utf8')).toBe(reduced);
  });

  test('when the digest goes in a body field, then it is the last field, computed without it, and every other byte is unchanged', async () => {
    const signed = await sign(signerFor(contract, 'BODY_FIELD'), reduced);
    const sent = signed.body.toString('utf8');
    const digest = md5(`${SECRET}2026-03-01PTN-77`);
    expect(sent).toBe(`${reduced.slice(0, -1)},"Sign":"${digest}"}`);
    expect(Object.keys(JSON.parse(sent)).at(-1)).toBe('Sign');
    expect(signed.headers).toEqual({ 'content-type': 'application/json' });
  });

  test('when the body is pretty-printed or non-ASCII, then its bytes are kept and only the field is inserted before the last brace', async () => {
    const pretty = `${JSON.stringify({ partner_transaction_number: 'PTN-é', start_protection_at: '2026-03-01' }, null, 2)}\n`;
    const sent = (await sign(signerFor(contract, 'BODY_FIELD'), pretty)).body.toString('utf8');
    const cut = pretty.lastIndexOf('}');
    expect(sent.startsWith(pretty.slice(0, cut))).toBe(true);
    expect(sent.endsWith(`,"Sign":"${md5(`${SECRET}2026-03-01PTN-é`)}"}\n`)).toBe(true);
  });

  test('when the body is {}, then the field is added without a comma', async () => {
    const signed = await sign(
      signerFor(
        [
          { kind: 'SECRET', value: '' },
          { kind: 'LITERAL', value: 'fixed' },
        ],
        'BODY_FIELD',
      ),
      '{}',
    );
    expect(signed.body.toString('utf8')).toBe(`{"Sign":"${md5(`${SECRET}fixed`)}"}`);
  });

  test('when parts read numbers, booleans, null, absent, nested, object fields and literals, then each adds its documented text', async () => {
    const body = JSON.stringify({ gwp: 12.5, paid: true, gone: null, holder: { name: 'Jane' }, calc: { a: 1, b: [2, 'x'] } });
    const parts: Md5Part[] = [
      { kind: 'LITERAL', value: '<' },
      { kind: 'SECRET', value: '' },
      { kind: 'BODY_FIELD', value: 'gwp' },
      { kind: 'BODY_FIELD', value: 'paid' },
      { kind: 'BODY_FIELD', value: 'gone' },
      { kind: 'BODY_FIELD', value: 'missing' },
      { kind: 'BODY_FIELD', value: 'holder.name' },
      { kind: 'BODY_FIELD', value: 'holder.name.deeper' },
      { kind: 'BODY_FIELD', value: 'calc' },
    ];
    const signed = await sign(signerFor(parts, 'HEADER'), body);
    expect(signed.headers['X-Sign']).toBe(md5(`<${SECRET}12.5trueJane{"a":1,"b":[2,"x"]}`));
  });

  test('when the digest goes in a header and no part reads the body, then any body is signed as is', async () => {
    const signed = await sign(signerFor([{ kind: 'SECRET', value: '' }], 'HEADER'), 'not json');
    expect(signed.headers['X-Sign']).toBe(md5(SECRET));
  });

  test.each([
    ['not JSON', '{"a":', /body is not JSON/],
    ['an array', '[1,2]', /body is not a JSON object/],
    ['already holding the digest field', '{"Sign":"x"}', /already has a field "Sign"/],
  ])('when the body is %s, then signing fails with SIGNATURE_INPUT_INVALID, not retryable', async (_what, body, message) => {
    const error = await sign(signerFor(contract, 'BODY_FIELD'), body).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: ErrorCodes.SIGNATURE_INPUT_INVALID, retryable: false });
    expect((error as Error).message).toMatch(message);
  });
});
