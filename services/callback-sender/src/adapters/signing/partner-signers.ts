import type { Dispatcher } from 'undici';
import type { Partner, PartnerDirectory } from '@hookstream/partners';
import type { SecretBox } from '@hookstream/runtime';
import { BearerTokenFetcher } from './bearer-token-fetcher';
import { createCallbackSigner, type CallbackSigner } from './callback-signer';

/**
 * One signer per partner revision, built on first use: secrets are decrypted once per revision
 * rather than per attempt, and a partner change (a rotated secret) takes effect with the next
 * attempt. A BEARER_FETCHED partner's token cache lives as long as its revision.
 */
export class PartnerSigners {
  private readonly signers = new Map<string, { revision: number; signer: CallbackSigner }>();

  constructor(
    private readonly secrets: SecretBox,
    /** For BEARER_FETCHED partners' token requests: the SSRF-guarded one (required: the token URL is the partner's). */
    private readonly dispatcher: Dispatcher,
    partners: PartnerDirectory,
  ) {
    partners.onChange((_partner, partnerId) => this.signers.delete(partnerId));
  }

  /** The partner's signer; throws CallbackSigningError SIGNING_CONFIG_INVALID when its auth cannot be used. */
  signerFor(partner: Partner & { outbound_auth: NonNullable<Partner['outbound_auth']> }): CallbackSigner {
    const cached = this.signers.get(partner.partner_id);
    if (cached && cached.revision === partner.revision) return cached.signer;
    const auth = partner.outbound_auth;
    const signer = createCallbackSigner({
      partnerId: partner.partner_id,
      auth,
      secrets: this.secrets,
      ...(auth.method === 'BEARER_FETCHED'
        ? {
            tokenFetcher: new BearerTokenFetcher({
              partnerId: partner.partner_id,
              auth,
              secrets: this.secrets,
              dispatcher: this.dispatcher,
            }),
          }
        : {}),
    });
    this.signers.set(partner.partner_id, { revision: partner.revision, signer });
    return signer;
  }
}
