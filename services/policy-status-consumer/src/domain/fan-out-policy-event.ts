import { type PolicyStatusEventValue } from '@hookstream/contract';
import { type Partner } from '@hookstream/partners';
import type { PolicyStatusMetrics } from '../metrics';
import { planCallbacks, type CallbackPlan } from './plan-callbacks';

/** Where the partners are looked up (the partner-config directory). */
export interface PartnerLookup {
  get(partnerId: string): Partner | undefined;
  /** Resolves with the partner once known, or undefined after `timeoutMs`. */
  waitFor(partnerId: string, timeoutMs: number): Promise<Partner | undefined>;
}

export interface FanOutPolicyEventOptions {
  partners: PartnerLookup;
  metrics: PolicyStatusMetrics;
  /** How long an event for an unknown partner waits for partner-config to learn it. */
  unknownPartnerGraceMs: number;
  now: () => number;
}

/**
 * One policy event → the callback requests of each subscribed endpoint of its partner (spec 4.1, 6):
 * 1. its partner is found, waiting a little (once per batch) for one onboarded just before its first event;
 * 2. the callbacks are planned (plan-callbacks): one per endpoint that wants the status and product,
 *    nothing when no endpoint does, or a dead letter with the reason when the event can never be sent;
 * 3. what it came to is counted.
 * Writing the plan (encoding, sizes, dead letters) is the Kafka side's (adapters/kafka).
 */
export class FanOutPolicyEvent {
  constructor(private readonly options: FanOutPolicyEventOptions) {}

  /**
   * `unknownPartners` lives for one batch: a partner not found once is not waited for again in the
   * same batch, so a batch of events for a partner that does not exist waits once, not per event.
   */
  async run(event: PolicyStatusEventValue, unknownPartners: Set<string>): Promise<CallbackPlan> {
    const { metrics } = this.options;
    const partner = await this.partnerOf(event.partner_id, unknownPartners);
    const plan = planCallbacks(event, partner, this.options.now());
    if (plan.kind === 'no-target') metrics.events.inc({ outcome: 'no_target' });
    if (plan.kind === 'callbacks') {
      metrics.events.inc({ outcome: 'callbacks' });
      metrics.callbackRequests.inc({ partner: event.partner_id }, plan.requests.length);
    }
    return plan;
  }

  private async partnerOf(partnerId: string, unknown: Set<string>): Promise<Partner | undefined> {
    const { partners, unknownPartnerGraceMs } = this.options;
    const partner =
      partners.get(partnerId) ?? (unknown.has(partnerId) ? undefined : await partners.waitFor(partnerId, unknownPartnerGraceMs));
    if (!partner) unknown.add(partnerId);
    return partner;
  }
}
