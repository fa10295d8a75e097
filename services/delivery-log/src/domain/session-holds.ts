/*
 * Whether a console session still holds: what it was opened with must still hold on every request
 * (the partner active and its key live; the operator not revoked), so a revocation or a disabled
 * partner ends its sessions at once.
 */
import { isLive, type OperatorDirectory, type PartnerDirectory } from '@hookstream/partners';
import type { ConsoleSession } from '../adapters/signing/console-sessions';

/** Whether what a partner's session was opened with still holds: the partner active, and the API key (if one) neither revoked nor expired. */
export function partnerSessionHolds(
  session: Extract<ConsoleSession, { kind: 'partner' }>,
  partners: PartnerDirectory,
  now = Date.now(),
): boolean {
  const partner = partners.get(session.partnerId);
  if (partner?.status !== 'ACTIVE') return false;
  if (session.keyId === null) return true;
  const key = partner.api_keys.find((k) => k.key_id === session.keyId);
  return key !== undefined && isLive(key, now);
}

/** Whether the operator a session was opened for is still one (not revoked). */
export function operatorSessionHolds(session: Extract<ConsoleSession, { kind: 'operator' }>, operators: OperatorDirectory): boolean {
  const operator = operators.get(session.operatorId);
  return operator !== undefined && operator.revoked_at === null;
}
