import { createHash } from 'node:crypto';
import type { Md5Part, OutboundAuth } from '@hookstream/shared';
import { appendTopLevelField, fieldText, parseJsonObject, valueAtPath } from './json-body';
import type { AuthSecrets } from './reveal-secret';
import { jsonCallback, type SignAttempt } from './signed-callback';

type Md5Auth = Extract<OutboundAuth, { method: 'MD5' }>;

/**
 * MD5 (spec 5.1): digest = 32 lowercase hex of MD5 over the parts joined with no separator
 * (SECRET: the secret; LITERAL: its text; BODY_FIELD: the field's text, see `fieldText`),
 * always computed from the body without the digest. Placement HEADER puts it in the header
 * `target`; BODY_FIELD adds `"<target>":"<digest>"` as the body's last top-level field.
 */
export function createMd5Signer(auth: Md5Auth, secrets: AuthSecrets): SignAttempt {
  const secret = Buffer.from(secrets.reveal('secret', auth.secret), 'utf8');
  const { parts, placement, target } = auth;
  const readsBody = placement === 'BODY_FIELD' || parts.some((p) => p.kind === 'BODY_FIELD');
  return ({ body }) => {
    const parsed = readsBody ? parseJsonObject(body, 'the MD5 contract reads or writes body fields') : {};
    const digest = md5OfParts(parts, secret, parsed);
    if (placement === 'HEADER') return jsonCallback(Buffer.from(body, 'utf8'), { [target]: digest });
    return jsonCallback(Buffer.from(appendTopLevelField(body, parsed, target, digest), 'utf8'), {});
  };
}

function md5OfParts(parts: Md5Part[], secret: Buffer, body: unknown): string {
  const hash = createHash('md5');
  for (const part of parts) {
    if (part.kind === 'SECRET') hash.update(secret);
    else if (part.kind === 'LITERAL') hash.update(part.value, 'utf8');
    else hash.update(fieldText(valueAtPath(body, part.value)), 'utf8');
  }
  return hash.digest('hex');
}
