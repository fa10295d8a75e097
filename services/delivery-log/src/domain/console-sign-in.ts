/*
 * Signing in to the console: a partner's API key, a portal link's token or an operator token
 * becomes a console session (adapters/signing/console-sessions.ts); the credential itself is never
 * kept. A session read back holds only while what it was opened with still does (the key not
 * revoked, the partner not disabled, the operator still listed).
 */
import { ErrorCodes, Refusal } from '@hookstream/errors';
import type { OperatorDirectory, PartnerDirectory } from '@hookstream/partners';
import type { ConsoleSession, ConsoleSessions } from '../adapters/signing/console-sessions';
import type { PortalTokens } from '../adapters/signing/portal-tokens';
import { operatorSessionHolds, partnerSessionHolds } from './session-holds';

export interface ConsoleDeps {
  partners: PartnerDirectory;
  operators: OperatorDirectory;
  portalTokens: PortalTokens;
  sessions: ConsoleSessions;
  /** An operator's link to one trace, {trace_id} where the id goes (DELIVERY_LOG_TRACE_URL); none: ids without a link. */
  traceUrl?: string | undefined;
}

export interface SignInCredentials {
  api_key?: string | undefined;
  portal_token?: string | undefined;
  operator_token?: string | undefined;
}

/** Refuses (503) until both directories have been read: before that, no credential can be checked. */
export function refuseUntilReady(deps: ConsoleDeps): void {
  if (!deps.partners.ready || !deps.operators.ready)
    throw new Refusal(ErrorCodes.SERVICE_UNAVAILABLE, 'the service is starting; retry later', { retryAfterSeconds: 2 });
}

/** A new session for whoever the credentials name; 401 when they name no one who may sign in. */
export async function signIn(deps: ConsoleDeps, credentials: SignInCredentials) {
  const opened = await openedBy(deps, credentials);
  if (!opened) throw new Refusal(ErrorCodes.INVALID_API_KEY, 'that key or token is unknown, revoked or expired');
  return opened;
}

async function openedBy(deps: ConsoleDeps, body: SignInCredentials) {
  if (body.operator_token !== undefined) {
    const operator = deps.operators.check(body.operator_token);
    return operator ? deps.sessions.open({ kind: 'operator', operatorId: operator.operator_id }) : undefined;
  }
  if (body.portal_token !== undefined) {
    const claims = await deps.portalTokens.verify(body.portal_token);
    if (!claims || deps.partners.get(claims.partnerId)?.status !== 'ACTIVE') return undefined;
    return deps.sessions.open({ kind: 'partner', partnerId: claims.partnerId, keyId: null, portalLinkId: claims.id }, claims.expiresAt);
  }
  const check = deps.partners.checkApiKey(body.api_key);
  return check.ok ? deps.sessions.open({ kind: 'partner', partnerId: check.partner.partner_id, keyId: check.key.key_id }) : undefined;
}

/** The session the cookie names, if it still holds. */
export async function currentSession(deps: ConsoleDeps, cookieHeader: string | undefined): Promise<ConsoleSession | undefined> {
  const session = await deps.sessions.read(cookieHeader);
  if (session?.kind === 'partner') return partnerSessionHolds(session, deps.partners) ? session : undefined;
  if (session?.kind === 'operator') return operatorSessionHolds(session, deps.operators) ? session : undefined;
  return undefined;
}
