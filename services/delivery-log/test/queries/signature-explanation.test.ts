import { createHash, createHmac } from 'node:crypto';
import type { PublicOutboundAuth } from '@hookstream/partners';
import { verificationOf } from '../../src/domain/signature-explanation';

/**
 * One delivery's verification per method: the headers it names and the steps, from the partner's
 * auth; the signed string from the latest send's recorded headers and the body. That the string is
 * exactly what the sender's signers sign is proven in the callback-sender's tests
 * (test/signing/signed-request.test.ts); here, that the explanation rebuilds it from what the log holds.
 */
const BODY = '{"policy_number":"P-1","partner_transaction_number":"PTN-77","start_protection_at":"2026-03-01"}';
const SENT_AT = '2026-03-01T10:20:30.456Z';

describe('how a partner verifies its callbacks, per method', () => {
  test('HMAC_SHA256: the signed string holds «api_key», the recorded timestamp (its header named in any case) and the body', () => {
    const auth: PublicOutboundAuth = {
      method: 'HMAC_SHA256',
      key_header: 'X-API-Key',
      timestamp_header: 'X-Timestamp',
      signature_header: 'X-Signature',
    };
    const headers = { 'content-type': 'application/json', 'X-API-Key': '[redacted]', 'x-timestamp': SENT_AT, 'X-Signature': '[redacted]' };
    const verification = verificationOf(auth, headers, BODY);
    expect(verification).toMatchObject({
      method: 'HMAC_SHA256',
      signed_string: `«api_key»|${SENT_AT}|${BODY}`,
      signature_header: 'X-Signature',
      signature_field: null,
      credential_header: 'X-API-Key',
    });
    // Filled in, it gives the signature a partner computes by the spec.
    const bySpec = createHmac('sha256', 's3cret').update(`ak-1|${SENT_AT}|${BODY}`).digest('base64');
    const fromString = createHmac('sha256', 's3cret').update(verification.signed_string!.replace('«api_key»', 'ak-1')).digest('base64');
    expect(fromString).toBe(bySpec);
    expect(verification.steps.join(' ')).toMatch(/X-Timestamp.*HMAC-SHA256.*X-Signature.*X-API-Key/s);
  });

  test('HMAC_SHA256 before any send, or when the send lacks the timestamp header named now: steps but no signed string', () => {
    const auth: PublicOutboundAuth = {
      method: 'HMAC_SHA256',
      key_header: 'X-API-Key',
      timestamp_header: 'X-Ts',
      signature_header: 'X-Sig',
    };
    expect(verificationOf(auth, null, BODY)).toMatchObject({ signed_string: null, signature_header: 'X-Sig' });
    expect(verificationOf(auth, { 'X-Timestamp': SENT_AT }, BODY).signed_string).toBeNull();
    expect(verificationOf(auth, { 'X-Ts': SENT_AT }, null).signed_string).toBeNull();
  });

  test('MD5 in a header: the parts in order, «secret» for the secret, body fields by path; the header is the signature', () => {
    const auth: PublicOutboundAuth = {
      method: 'MD5',
      parts: [
        { kind: 'SECRET', value: '' },
        { kind: 'BODY_FIELD', value: 'start_protection_at' },
        { kind: 'LITERAL', value: '|v1' },
      ],
      placement: 'HEADER',
      target: 'X-Sign',
    };
    const verification = verificationOf(auth, { 'X-Sign': '[redacted]' }, BODY);
    expect(verification).toMatchObject({ signed_string: '«secret»2026-03-01|v1', signature_header: 'X-Sign', signature_field: null });
    const digest = createHash('md5').update(verification.signed_string!.replace('«secret»', 'md5-secret')).digest('hex');
    expect(digest).toBe(createHash('md5').update('md5-secret2026-03-01|v1').digest('hex'));
    expect(verification.steps.join(' ')).toContain('the body field start_protection_at');
    expect(verification.steps.join(' ')).toContain('the text "|v1"');
  });

  test('MD5 in a body field: the signature is the field, read from the body before it was added; a body not JSON gives no string', () => {
    const auth: PublicOutboundAuth = {
      method: 'MD5',
      parts: [
        { kind: 'SECRET', value: '' },
        { kind: 'BODY_FIELD', value: 'partner_transaction_number' },
      ],
      placement: 'BODY_FIELD',
      target: 'Sign',
    };
    const verification = verificationOf(auth, { 'content-type': 'application/json' }, BODY);
    expect(verification).toMatchObject({ signed_string: '«secret»PTN-77', signature_header: null, signature_field: 'Sign' });
    expect(verification.steps.join(' ')).toContain('before the field "Sign" was added');
    expect(verificationOf(auth, {}, 'not json').signed_string).toBeNull();
  });

  test('STANDARD_WEBHOOKS: webhook-id "." webhook-timestamp "." body, no secret in it; webhook-signature carries v1,', () => {
    const headers = { 'webhook-id': 'dlv_1', 'webhook-timestamp': '1772360430', 'webhook-signature': '[redacted]' };
    expect(verificationOf({ method: 'STANDARD_WEBHOOKS' }, headers, BODY)).toMatchObject({
      method: 'STANDARD_WEBHOOKS',
      signed_string: `dlv_1.1772360430.${BODY}`,
      signature_header: 'webhook-signature',
      credential_header: null,
    });
  });

  test.each<[string, PublicOutboundAuth, string, RegExp]>([
    [
      'API_KEY',
      { method: 'API_KEY', header_name: 'X-Partner-Key' },
      'X-Partner-Key',
      /X-Partner-Key carries the callback key: .*not the hsk_… API key you sign in with/,
    ],
    ['BEARER_STATIC', { method: 'BEARER_STATIC' }, 'authorization', /"Bearer " followed by the token agreed/],
    ['BEARER_FETCHED', { method: 'BEARER_FETCHED' }, 'authorization', /token your token endpoint issued/],
    ['BASIC', { method: 'BASIC' }, 'authorization', /Base64 of username ":" password/],
    [
      'BEARER_JWT',
      { method: 'BEARER_JWT', algorithm: 'HS384', issuer: 'HOOKSTREAM', lifetime_seconds: 120 },
      'authorization',
      /HS384.*iss is "HOOKSTREAM".*iat \+ 120 s/s,
    ],
  ])('%s signs no string: the steps say which header carries the credential and what to check', (_method, auth, header, steps) => {
    const verification = verificationOf(auth, { authorization: '[redacted]', 'X-Partner-Key': '[redacted]' }, BODY);
    expect(verification).toMatchObject({ signed_string: null, signature_header: null, signature_field: null, credential_header: header });
    expect(verification.steps.join(' ')).toMatch(steps);
  });
});
