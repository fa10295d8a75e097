import { canonicalJson, payloadFingerprint } from '../src/domain/payload-fingerprint';
import { MAX_DEPTH, validateWebhookPayload } from '../src/domain/webhook-payload';

const valid = {
  transaction_number: 'T-1',
  transaction_type: 'claim',
  status: 'SUBMITTED',
  documents: [{ type: 'CLAIM_DOCUMENTS', url: 'https://d.example/x.pdf' }],
};

describe('inbound webhook payload (spec 2.2, 4.2)', () => {
  test('given characters beyond UTF-16 units and URLs as written, then they are accepted', () => {
    expect(validateWebhookPayload({ ...valid, status: '😀'.repeat(100) }).ok).toBe(true);
    for (const url of ['HTTPS://d.example/a?b=c#d', 'http://[::1]:8080/x', 'https://d.example/%E2%82%AC.pdf']) {
      expect(validateWebhookPayload({ ...valid, documents: [{ type: 'P', url }] }).ok).toBe(true);
    }
  });

  test('a NUL character (which PostgreSQL cannot store) is refused in the field that holds it', () => {
    expect(validateWebhookPayload({ ...valid, transaction_number: 'T-\u0000' })).toEqual({
      ok: false,
      problems: [{ path: 'transaction_number', message: 'transaction_number must not contain the NUL character (U+0000)' }],
    });
    expect(validateWebhookPayload({ ...valid, documents: [{ type: 'P\u0000', url: 'https://d.example/x.pdf' }] }).ok).toBe(false);
  });

  test('a valid payload is accepted, transaction_type normalised, unknown fields kept aside', () => {
    const result = validateWebhookPayload({ ...valid, extra: { any: 'thing' } });
    expect(result).toMatchObject({ ok: true, payload: { transaction_type: 'CLAIM' } });
  });

  test.each<[string, unknown, string[]]>([
    [
      'an empty object',
      {},
      ['transaction_number is required', 'transaction_type is required', 'status is required', 'documents is required'],
    ],
    [
      'a number where a string is due',
      { ...valid, transaction_number: 42, status: true },
      ['transaction_number must be a string', 'status must be a string'],
    ],
    [
      'blank strings',
      { ...valid, transaction_number: '  ', status: '' },
      ['transaction_number must not be empty', 'status must not be empty'],
    ],
    ['an unknown transaction_type', { ...valid, transaction_type: 'QUOTE' }, ['transaction_type must be POLICY or CLAIM (any case)']],
    [
      'a transaction_type that is POLICY only once upper-cased beyond ASCII (dotless ı)',
      { ...valid, transaction_type: 'polıcy' },
      ['transaction_type must be POLICY or CLAIM (any case)'],
    ],
    [
      'a status of 101 characters (emoji: 202 UTF-16 units)',
      { ...valid, status: '😀'.repeat(101) },
      ['status must be at most 100 characters'],
    ],
    ...[
      ' https://d.example/x.pdf',
      'https://d.example/x.pdf ',
      'ht\ttps://d.example/x.pdf',
      'https://d.exa\nmple/x.pdf',
      'https:d.example/x.pdf',
      'https:/d.example/x.pdf',
      'https:\\\\d.example\\x.pdf',
      'https:///d.example/x.pdf',
      'https://d.example/a b.pdf',
    ].map((url): [string, unknown, string[]] => [
      `a url WHATWG parsing would repair (${JSON.stringify(url)})`,
      { ...valid, documents: [{ type: 'P', url }] },
      ['documents[0].url must be an absolute http or https URL'],
    ]),
    ['no documents', { ...valid, documents: [] }, ['documents must contain at least one item']],
    ['documents not an array', { ...valid, documents: { type: 'x' } }, ['documents must be an array']],
    [
      'a document without type and url',
      { ...valid, documents: [{ filename: 'a.pdf' }] },
      ['documents[0].type is required', 'documents[0].url is required'],
    ],
    [
      'a relative or non-http url',
      {
        ...valid,
        documents: [
          { type: 'A', url: '/x.pdf' },
          { type: 'B', url: 'ftp://h/x' },
        ],
      },
      ['documents[0].url must be an absolute http or https URL', 'documents[1].url must be an absolute http or https URL'],
    ],
    ['an empty request_id', { ...valid, request_id: '' }, ['request_id must be 1-128 visible ASCII characters']],
    ['a request_id with spaces', { ...valid, request_id: 'a b' }, ['request_id must be 1-128 visible ASCII characters']],
    ['a numeric request_id', { ...valid, request_id: 7 }, ['request_id must be a string']],
  ])('%s is refused, every problem named by field path', (_what, body, messages) => {
    const result = validateWebhookPayload(body);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.problems.map((p) => p.message)).toEqual(messages);
  });

  test.each([[[]], ['text'], [null], [42]])('a body that is not an object (%p) is refused', (body) => {
    expect(validateWebhookPayload(body)).toEqual({ ok: false, problems: [{ path: '(body)', message: 'the body must be a JSON object' }] });
  });

  test('a body nested deeper than the limit is refused without recursion', () => {
    let deep: unknown = 'leaf';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    const result = validateWebhookPayload({ ...valid, extra: deep });
    expect(result).toEqual({ ok: false, problems: [{ path: '(body)', message: `the body is nested deeper than ${MAX_DEPTH} levels` }] });
  });

  test('the fingerprint ignores key order and whitespace, and sees every value', () => {
    const a = JSON.parse('{"b":1,"a":{"y":[1,2],"x":"s"}}');
    const b = JSON.parse('{ "a" : { "x":"s", "y":[1, 2] }, "b":1.0 }');
    expect(canonicalJson(a)).toBe('{"a":{"x":"s","y":[1,2]},"b":1}');
    expect(payloadFingerprint(a)).toBe(payloadFingerprint(b));
    expect(payloadFingerprint(a)).not.toBe(payloadFingerprint({ ...a, b: 2 }));
    expect(payloadFingerprint({ s: 'A' })).not.toBe(payloadFingerprint({ s: 'a' }));
    expect(payloadFingerprint({ l: [1, 2] })).not.toBe(payloadFingerprint({ l: [2, 1] }));
    expect(payloadFingerprint(a)).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('payload fingerprint numbers (exact values, read from the text)', () => {
  const fingerprintOf = (text: string) => payloadFingerprint(JSON.parse(text), text);

  test('given the same value written differently, then the same fingerprint', () => {
    const forms = ['{"n":1}', '{"n":1.0}', '{"n":10e-1}', '{"n":1E0}', '{ "n" : 0.1e1 }'];
    expect(new Set(forms.map(fingerprintOf)).size).toBe(1);
    expect(fingerprintOf('{"n":-0}')).toBe(fingerprintOf('{"n":0}'));
  });

  test('given values a double cannot tell apart, then different fingerprints', () => {
    expect(fingerprintOf('{"n":123456789012345678901234567890}')).not.toBe(fingerprintOf('{"n":123456789012345678901234567891}'));
    expect(fingerprintOf('{"n":0.1}')).not.toBe(fingerprintOf('{"n":0.1000000000000000055511151231257827}'));
    const overflowing = ['{"n":1e400}', '{"n":-1e400}', '{"n":null}', '{"n":1e-400}', '{"n":0}'];
    expect(new Set(overflowing.map(fingerprintOf)).size).toBe(overflowing.length);
  });

  test('given a body whose numbers a double holds exactly, or none, then the fingerprint is the one stored before numbers were read from the text', () => {
    for (const text of ['{"a":"x","b":[{"c":"d"}]}', '{"a":1.5,"b":[100,2e3,-7]}', '{"s":"x: 1, [2"}']) {
      expect(fingerprintOf(text)).toBe(payloadFingerprint(JSON.parse(text)));
    }
  });
});

describe('lone surrogates', () => {
  const validate = (text: string) => validateWebhookPayload(JSON.parse(text), text);
  const body = (extra: string) =>
    `{"transaction_number":"T-1","transaction_type":"POLICY","status":"S","documents":[{"type":"P","url":"https://x.example/a"}]${extra}}`;

  test('given a lone surrogate in a value or a field name, then each is named by path', () => {
    const result = validate(body(',"note":"a\\ud800","list":["\\udc00"],"k\\ud800":1'));
    expect(result.ok).toBe(false);
    expect(!result.ok && result.problems.map((p) => p.path).sort()).toEqual(['k\uFFFD (the field name)', 'list[0]', 'note']);
  });

  test('given a surrogate pair written as escapes, then it is one character and valid', () => {
    expect(validate(body(',"note":"\\ud83d\\ude00"')).ok).toBe(true);
  });
});
