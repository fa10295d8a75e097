import { createHash } from 'node:crypto';
import { md5ReadsBody, md5SignedString } from '@hookstream/contract';
import { type OutboundAuth } from '@hookstream/partners';
import { appendTopLevelField, parseJsonObject } from './json-body';
import type { AuthSecrets } from './reveal-secret';
import { jsonCallback, type SignAttempt } from './signed-callback';

type Md5Auth = Extract<OutboundAuth, { method: 'MD5' }>;

/**
 * MD5 (spec 5.1): digest = 32 lowercase hex of MD5 over the parts joined with no separator
 * (md5SignedString: SECRET the secret, LITERAL its text, BODY_FIELD the field's text), always
 * computed from the body without the digest. Placement HEADER puts it in the header `target`
 * (recorded: a digest reveals nothing of the secret); BODY_FIELD adds `"<target>":"<digest>"` as the
 * body's last top-level field.
 */
export function createMd5Signer(auth: Md5Auth, secrets: AuthSecrets): SignAttempt {
  const secret = secrets.reveal('secret', auth.secret);
  const { parts, placement, target } = auth;
  const readsBody = placement === 'BODY_FIELD' || md5ReadsBody(parts);
  return ({ body }) => {
    const parsed = readsBody ? parseJsonObject(body, 'the MD5 contract reads or writes body fields') : {};
    const digest = createHash('md5')
      .update(md5SignedString(parts, secret, parsed), 'utf8')
      .digest('hex');
    if (placement === 'HEADER') return jsonCallback(Buffer.from(body, 'utf8'), { signature: { [target]: digest } });
    return jsonCallback(Buffer.from(appendTopLevelField(body, parsed, target, digest), 'utf8'), {});
  };
}
