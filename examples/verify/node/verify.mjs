// Verifying Hookstream's callbacks in Node.js (18 or later), with node:crypto only.
// Each function takes the request's headers with lower-case names (as Node's req.headers has them)
// and the body's exact bytes as received (a Buffer: read it raw, before any JSON parsing), and
// returns true only for a request Hookstream signed with what you agreed. The blocks between
// "--- METHOD ---" lines are the ones docs/verifying.md and the console show; each needs COMMON.
import { readFileSync } from 'node:fs';

// --- COMMON ---
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/** Equal in constant time (a plain === leaks, by its timing, how much of a guess was right). */
function same(a, b) {
  const x = Buffer.from(String(a), 'utf8');
  const y = Buffer.from(String(b), 'utf8');
  return x.length === y.length && timingSafeEqual(x, y);
}
// --- end ---

// --- HMAC_SHA256 ---
// apiKey: the callback key, the value our callbacks carry in keyHeader (X-API-Key unless agreed otherwise),
// agreed with the insurer at onboarding. Not the hsk_… API key you sign in to the console with.
// keyHeader, timestampHeader, signatureHeader: the header names agreed with you (any case).
export function verifyHmacSha256(headers, body, { apiKey, secret, keyHeader, timestampHeader, signatureHeader }) {
  const timestamp = headers[timestampHeader.toLowerCase()] ?? '';
  const sentAt = Date.parse(timestamp);
  if (!Number.isFinite(sentAt) || Math.abs(Date.now() - sentAt) > 5 * 60 * 1000) return false; // a replay, or a clock far off
  const expected = createHmac('sha256', Buffer.from(secret, 'utf8'))
    .update(Buffer.concat([Buffer.from(`${apiKey}|${timestamp}|`, 'utf8'), body]))
    .digest('base64');
  const keyOk = same(headers[keyHeader.toLowerCase()] ?? '', apiKey);
  return same(headers[signatureHeader.toLowerCase()] ?? '', expected) && keyOk;
}
// --- end ---

// --- MD5 ---
// parts: the agreed contract, e.g. [{ kind: 'SECRET' }, { kind: 'BODY_FIELD', path: 'policy_number' }, { kind: 'LITERAL', value: '|' }];
// placement 'HEADER' (target: the header's name) or 'BODY_FIELD' (target: the body's top-level field).
export function verifyMd5(headers, body, { secret, parts, placement, target }) {
  const fields = JSON.parse(body.toString('utf8'));
  const fieldText = (path) => {
    let value = fields;
    for (const step of path.split('.'))
      value = value !== null && typeof value === 'object' && !Array.isArray(value) ? value[step] : undefined;
    return value === undefined || value === null ? '' : typeof value === 'string' ? value : JSON.stringify(value);
  };
  const signed = parts.map((p) => (p.kind === 'SECRET' ? secret : p.kind === 'LITERAL' ? p.value : fieldText(p.path))).join('');
  const expected = createHash('md5').update(signed, 'utf8').digest('hex');
  const received = placement === 'HEADER' ? headers[target.toLowerCase()] : fields[target];
  return typeof received === 'string' && same(received, expected);
}
// --- end ---

// --- STANDARD_WEBHOOKS ---
// secret: "whsec_" followed by Base64, as agreed. (Any Standard Webhooks library does the same.)
export function verifyStandardWebhooks(headers, body, { secret }) {
  const id = headers['webhook-id'] ?? '';
  const timestamp = headers['webhook-timestamp'] ?? '';
  if (!/^\d+$/.test(timestamp) || Math.abs(Date.now() / 1000 - Number(timestamp)) > 5 * 60) return false;
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key)
    .update(Buffer.concat([Buffer.from(`${id}.${timestamp}.`, 'utf8'), body]))
    .digest('base64');
  // Several signatures may be sent, separated by spaces (while a secret is being replaced): one must match.
  return (headers['webhook-signature'] ?? '').split(' ').some((s) => s.startsWith('v1,') && same(s.slice(3), expected));
}
// --- end ---

// --- API_KEY ---
// apiKey: the callback key, the value our callbacks carry in headerName, agreed with the insurer at onboarding.
// Not the hsk_… API key you sign in to the console with.
// headerName: the header agreed with you (any case).
export function verifyApiKey(headers, _body, { apiKey, headerName }) {
  return same(headers[headerName.toLowerCase()] ?? '', apiKey);
}
// --- end ---

// --- BEARER_STATIC ---
export function verifyBearerStatic(headers, _body, { token }) {
  return same(headers['authorization'] ?? '', `Bearer ${token}`);
}
// --- end ---

// --- BASIC ---
export function verifyBasic(headers, _body, { username, password }) {
  const [scheme, encoded = ''] = (headers['authorization'] ?? '').split(' ');
  if (scheme !== 'Basic') return false;
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  // Both compared, whatever the first gave: the time taken says nothing of which was wrong.
  const userOk = same(decoded.slice(0, colon), username);
  const passwordOk = same(decoded.slice(colon + 1), password);
  return colon >= 0 && userOk && passwordOk;
}
// --- end ---

// --- BEARER_JWT ---
// algorithm: 'HS256', 'HS384' or 'HS512', issuer and lifetimeSeconds as agreed. Remember each jti until its exp to refuse a replay.
export function verifyBearerJwt(headers, _body, { secret, algorithm, issuer, lifetimeSeconds }) {
  const match = /^Bearer ([\w-]+)\.([\w-]+)\.([\w-]+)$/.exec(headers['authorization'] ?? '');
  if (!match) return false;
  const [, head, payload, signature] = match;
  const header = JSON.parse(Buffer.from(head, 'base64url').toString('utf8'));
  if (header.alg !== algorithm) return false; // never the alg the token names: the one agreed
  const hash = { HS256: 'sha256', HS384: 'sha384', HS512: 'sha512' }[algorithm];
  const expected = createHmac(hash, Buffer.from(secret, 'utf8')).update(`${head}.${payload}`).digest('base64url');
  if (!same(signature, expected)) return false;
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  const now = Math.floor(Date.now() / 1000);
  const { iss, iat, exp } = claims;
  if (iss !== issuer || typeof iat !== 'number' || typeof exp !== 'number') return false;
  // 30 s for clocks apart; a token that lives longer than agreed is not ours.
  return now < exp + 30 && iat <= now + 30 && exp - iat <= lifetimeSeconds;
}
// --- end ---

/** The test's entry: `node verify.mjs case.json` prints "valid" (exit 0) or "refused" (exit 1). */
const VERIFIERS = {
  HMAC_SHA256: verifyHmacSha256,
  MD5: verifyMd5,
  STANDARD_WEBHOOKS: verifyStandardWebhooks,
  API_KEY: verifyApiKey,
  BEARER_STATIC: verifyBearerStatic,
  BASIC: verifyBasic,
  BEARER_JWT: verifyBearerJwt,
};
if (process.argv[2]) {
  const { method, config, headers, body_base64 } = JSON.parse(readFileSync(process.argv[2], 'utf8'));
  // The case names its settings in snake_case (api_key), as Python does: camelCase here.
  const options = Object.fromEntries(Object.entries(config).map(([k, v]) => [k.replace(/_(\w)/g, (_, c) => c.toUpperCase()), v]));
  let valid = false;
  try {
    valid = VERIFIERS[method](headers, Buffer.from(body_base64, 'base64'), options);
  } catch {
    valid = false; // a body or header that cannot be read is refused
  }
  console.log(valid ? 'valid' : 'refused');
  process.exitCode = valid ? 0 : 1;
}
