/*
 * A partner rotates the secret its callbacks are signed with (the partner API), with an overlap so
 * that no callback fails its verification meanwhile (@hookstream/partners signing-secret.ts says how
 * for each method): API key only, limited, audited without the secret, refused while an operator
 * turned self-service off (self-service.ts). The new secret is answered once.
 */
import { activateSigningSecret, rotateSigningSecret, type PartnerChanges, type SigningSecretState } from '@hookstream/partners';
import { partnerActor, withinLimit, type SelfServiceLimit, type SelfServicePlaces } from './self-service';

export interface SigningSecretDeps {
  changes: PartnerChanges;
  places: SelfServicePlaces;
  limit: SelfServiceLimit;
  /** How long the old secret keeps signing (Standard Webhooks), or until the new one signs (HMAC_SHA256), in hours. */
  overlapHours: number;
}

export async function rotateOwnSigningSecret(
  deps: SigningSecretDeps,
  partnerId: string,
  reason: string,
): Promise<{ secret: string; state: SigningSecretState }> {
  // Whole milliseconds: a fraction of one is no Avro long.
  const overlapMs = Math.round(deps.overlapHours * 3_600_000);
  const { answer } = await withinLimit(deps.places, partnerId, deps.limit, () =>
    deps.changes.selfService(partnerId, partnerActor(partnerId), reason, (current, adminDeps) => {
      const rotated = rotateSigningSecret(current, overlapMs, { box: adminDeps.box, now: (adminDeps.now ?? Date.now)() });
      return { next: rotated.partner, action: 'partner.rotate-signing-secret', detail: auditOf(rotated.state), answer: rotated };
    }),
  );
  return { secret: answer.secret, state: answer.state };
}

/** HMAC_SHA256: the staged secret signs from now on. Not limited: it only brings forward a switch already decided. */
export async function activateOwnSigningSecret(deps: SigningSecretDeps, partnerId: string, reason: string): Promise<SigningSecretState> {
  const { answer } = await deps.changes.selfService(partnerId, partnerActor(partnerId), reason, (current, adminDeps) => {
    const activated = activateSigningSecret(current, { box: adminDeps.box, now: (adminDeps.now ?? Date.now)() });
    return {
      next: activated.partner,
      action: 'partner.activate-signing-secret',
      detail: auditOf(activated.state),
      answer: activated.state,
    };
  });
  return answer;
}

/** The audit keeps the method and the overlap's times, never a secret. */
function auditOf(state: SigningSecretState): Record<string, unknown> {
  return state.method === 'STANDARD_WEBHOOKS'
    ? { method: state.method, previous_secret_until: state.previous_secret_until }
    : { method: state.method, next_secret_from: state.next_secret_from };
}
