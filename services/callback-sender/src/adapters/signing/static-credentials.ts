import type { OutboundAuth } from '@hookstream/partners';
import type { AuthSecrets } from './reveal-secret';
import { jsonCallback, type SignAttempt } from './signed-callback';

type StaticAuth = Extract<OutboundAuth, { method: 'API_KEY' | 'BEARER_STATIC' | 'BASIC' }>;

/**
 * API_KEY, BEARER_STATIC and BASIC (spec 5.1): the same headers on every attempt, built once.
 * The body is sent as given. Every header they make carries the credential: all are secret-bearing.
 */
export function createStaticCredentialSigner(auth: StaticAuth, secrets: AuthSecrets): SignAttempt {
  const headers = staticAuthHeaders(auth, secrets);
  return ({ body }) => jsonCallback(Buffer.from(body, 'utf8'), { secret: headers });
}

function staticAuthHeaders(auth: StaticAuth, secrets: AuthSecrets): Record<string, string> {
  switch (auth.method) {
    case 'API_KEY':
      return { [auth.header_name]: secrets.revealHeaderValue('api_key', auth.api_key) };
    case 'BEARER_STATIC':
      return { authorization: `Bearer ${secrets.revealHeaderValue('token', auth.token)}` };
    case 'BASIC': {
      // RFC 7617 with charset UTF-8; base64 leaves nothing to break the header line.
      const credential = Buffer.from(`${auth.username}:${secrets.reveal('password', auth.password)}`, 'utf8').toString('base64');
      return { authorization: `Basic ${credential}` };
    }
  }
}
