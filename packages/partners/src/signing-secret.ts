import { randomBytes } from 'node:crypto';
import type { SecretBox } from '@hookstream/runtime';
import { PartnerChangeRefused } from './key-limits';
import { secretContext, type AuthMethod, type OutboundAuth, type Partner } from './model';

/**
 * A partner rotates the secret its callbacks are signed with, without a moment when a callback
 * fails its verification (docs/partners.md "Rotating your signing secret"):
 *
 * - STANDARD_WEBHOOKS: the new secret signs at once; the old one keeps signing beside it until the
 *   overlap ends (webhook-signature carries both, as the standard allows), so a verifier holding
 *   either secret accepts every callback meanwhile.
 * - HMAC_SHA256: the contract's X-Signature carries one signature, so two cannot be sent. The new
 *   secret is staged: the old one keeps signing until the switch time (the overlap's end, or sooner
 *   when the partner activates it), then the new one. The partner's verifier accepts either while
 *   the switch is pending.
 *
 * Secrets are sealed under their own field's context (previous_secret, next_secret), so a sealed
 * value cannot be moved to another field; the plaintext of a new secret is returned once and kept
 * nowhere.
 */

export type SigningSecretState =
  { method: 'STANDARD_WEBHOOKS'; previous_secret_until: number | null } | { method: 'HMAC_SHA256'; next_secret_from: number | null };

export interface RotatedSigningSecret {
  partner: Partner;
  /** The new secret's plaintext: answered once, never stored in the clear. */
  secret: string;
  state: SigningSecretState;
}

interface Deps {
  box: SecretBox;
  now: number;
}

/** Why each other method has no secret the partner rotates itself (409). */
const NOT_ROTATABLE: Record<Exclude<AuthMethod, 'STANDARD_WEBHOOKS' | 'HMAC_SHA256'>, string> = {
  API_KEY: 'the key sent with each callback was agreed with the insurer, and its header carries one value: ask an operator to change it',
  MD5: 'the digest carries one signature and the contract has no way to send two: ask an operator to change the secret',
  BEARER_STATIC: 'the token sent with each callback was agreed with the insurer: ask an operator to change it',
  BEARER_JWT: 'the token is signed with a secret agreed with the insurer and carries one signature: ask an operator to change it',
  BEARER_FETCHED: 'the token comes from your own token endpoint: rotate the credentials there, then ask an operator to update them',
  BASIC: 'the password was agreed with the insurer: ask an operator to change it',
};

export function rotateSigningSecret(current: Partner, overlapMs: number, deps: Deps): RotatedSigningSecret {
  const auth = rotatable(current);
  const seal = (field: string, plaintext: string) => deps.box.encrypt(plaintext, secretContext(current.partner_id, field));
  const reveal = (field: string, sealed: Parameters<SecretBox['decrypt']>[0]) =>
    deps.box.decrypt(sealed, secretContext(current.partner_id, field));
  if (auth.method === 'STANDARD_WEBHOOKS') {
    const secret = `whsec_${randomBytes(32).toString('base64')}`;
    // A rotation during an overlap replaces the secret that overlap brought and keeps the oldest, with
    // its end: a partner whose first answer was lost (a timeout, a retry, a second tab) never held
    // that secret, while its verifier still holds the oldest. At most two secrets ever sign.
    const overlapping = auth.previous_secret && (auth.previous_secret_until ?? 0) > deps.now;
    const previous = overlapping ? auth.previous_secret : overlapMs > 0 ? seal('previous_secret', reveal('secret', auth.secret)) : null;
    const until = overlapping ? (auth.previous_secret_until ?? null) : previous ? deps.now + overlapMs : null;
    const next: OutboundAuth = { ...auth, secret: seal('secret', secret), previous_secret: previous, previous_secret_until: until };
    return { partner: revised(current, next, deps.now), secret, state: { method: auth.method, previous_secret_until: until } };
  }
  // HMAC_SHA256: a switch already due is made first; a staged secret not yet signing is replaced (it was never used).
  const settled = dueSwitch(auth, deps.now) ? promoted(auth, reveal, seal) : auth;
  const secret = randomBytes(32).toString('base64url');
  const from = deps.now + overlapMs;
  const next: OutboundAuth =
    overlapMs > 0
      ? { ...settled, next_secret: seal('next_secret', secret), next_secret_from: from }
      : { ...settled, secret: seal('secret', secret), next_secret: null, next_secret_from: null };
  return {
    partner: revised(current, next, deps.now),
    secret,
    state: { method: 'HMAC_SHA256', next_secret_from: overlapMs > 0 ? from : null },
  };
}

/** HMAC_SHA256: the staged secret signs from now on (the partner's verifier is ready before the switch time). */
export function activateSigningSecret(current: Partner, deps: Deps): { partner: Partner; state: SigningSecretState } {
  const auth = rotatable(current);
  if (auth.method !== 'HMAC_SHA256' || !auth.next_secret) {
    throw new PartnerChangeRefused(
      'conflict',
      auth.method === 'HMAC_SHA256'
        ? 'no rotated secret is waiting for its switch: rotate first'
        : 'a Standard Webhooks secret signs as soon as it is rotated: there is nothing to activate',
    );
  }
  const reveal = (field: string, sealed: Parameters<SecretBox['decrypt']>[0]) =>
    deps.box.decrypt(sealed, secretContext(current.partner_id, field));
  const seal = (field: string, plaintext: string) => deps.box.encrypt(plaintext, secretContext(current.partner_id, field));
  return { partner: revised(current, promoted(auth, reveal, seal), deps.now), state: { method: auth.method, next_secret_from: null } };
}

/** Where a rotation stands at `now` (an overlap or a switch already past reads as none). */
export function signingSecretState(partner: Partner, now: number): SigningSecretState | null {
  const auth = partner.outbound_auth;
  if (auth?.method === 'STANDARD_WEBHOOKS') {
    const until =
      auth.previous_secret && auth.previous_secret_until && auth.previous_secret_until > now ? auth.previous_secret_until : null;
    return { method: auth.method, previous_secret_until: until };
  }
  if (auth?.method === 'HMAC_SHA256') {
    const from = auth.next_secret && auth.next_secret_from && auth.next_secret_from > now ? auth.next_secret_from : null;
    return { method: auth.method, next_secret_from: from };
  }
  return null;
}

type Rotatable = Extract<OutboundAuth, { method: 'STANDARD_WEBHOOKS' | 'HMAC_SHA256' }>;
type HmacAuth = Extract<OutboundAuth, { method: 'HMAC_SHA256' }>;

function rotatable(current: Partner): Rotatable {
  const auth = current.outbound_auth;
  if (!auth) throw new PartnerChangeRefused('conflict', 'callbacks to this partner are not signed (it has no outbound auth)');
  if (auth.method === 'STANDARD_WEBHOOKS' || auth.method === 'HMAC_SHA256') return auth;
  throw new PartnerChangeRefused(
    'conflict',
    `callbacks to this partner are authenticated with ${auth.method}: ${NOT_ROTATABLE[auth.method]}`,
  );
}

function dueSwitch(auth: HmacAuth, now: number): boolean {
  return Boolean(auth.next_secret && auth.next_secret_from !== null && auth.next_secret_from !== undefined && auth.next_secret_from <= now);
}

/** The staged secret becomes the secret (re-sealed under its new field), nothing staged. */
function promoted(
  auth: HmacAuth,
  reveal: (field: string, sealed: NonNullable<HmacAuth['next_secret']>) => string,
  seal: (field: string, plaintext: string) => HmacAuth['secret'],
): HmacAuth {
  return { ...auth, secret: seal('secret', reveal('next_secret', auth.next_secret!)), next_secret: null, next_secret_from: null };
}

function revised(current: Partner, auth: OutboundAuth, now: number): Partner {
  return { ...current, outbound_auth: auth, revision: current.revision + 1, updated_at: now };
}
