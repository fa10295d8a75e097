import { type POLICY_STATUSES } from '@hookstream/partners';

/**
 * A policy-status event (schemas/policy-status-event.avsc) in the form avsc encodes and decodes:
 * what parsePolicyEventJson returns and what the policy-status-consumer reads. The `policy` is
 * the contract's outbound body (spec 2.1); it differs from the plain JSON in three ways
 * (schemas/README.md): the insured `detail` is wrapped in its union branch, open JSON objects
 * are JSON text, and arrays whose item type the contract leaves open are arrays of JSON text.
 */

export type PolicyStatus = (typeof POLICY_STATUSES)[number];

/**
 * Values of the avsc form. An optional field may be left out or null (a decoded record has
 * every field, null when absent); Avro cannot tell the two apart.
 */
export interface PolicyStatusEventValue {
  event_id: string;
  partner_id: string;
  /** Epoch milliseconds, UTC. */
  occurred_at: number;
  /** Per-policy sequence number; higher is newer. */
  version: number;
  policy: PolicyNotificationValue;
}

export interface PolicyNotificationValue {
  policy_number: string;
  partner_transaction_number?: string | null;
  transaction_number?: string | null;
  quotation_number?: string | null;
  product_code?: string | null;
  insurance_number?: string | null;
  status: PolicyStatus;
  start_protection_at?: string | null;
  end_protection_at?: string | null;
  purchased_at?: string | null;
  activated_at?: string | null;
  currency_code?: string | null;
  payer_type?: string | null;
  calculation?: { gwp?: number | null; total_sum_insured?: number | null } | null;
  policy_holder?: { full_name?: string | null; email?: string | null; phone_number?: string | null } | null;
  insureds?: InsuredValue[] | null;
  product?: ProductValue | null;
  documents?: DocumentValue[] | null;
  policies?: SimplifiedPolicyValue[] | null;
}

export interface InsuredValue {
  uuid?: string | null;
  type?: string | null;
  detail?: InsuredDetailValue | null;
  documents?: DocumentValue[] | null;
}

/**
 * The insured detail union as avsc holds it: one key, the branch's name, e.g.
 * `{ 'io.hookstream.v1.GadgetDetail': { price: 12499000 } }`, or `{ map: { venue: '"Ubud"' } }`
 * (each map value the JSON text of one property).
 */
export type InsuredDetailValue = Readonly<Record<string, Record<string, unknown>>>;

export interface DocumentValue {
  type?: string | null;
  filename?: string | null;
  alias?: string | null;
  url?: string | null;
}

export interface ProductValue {
  country?: string | null;
  parent_category?: string | null;
  product_category?: string | null;
  product_summary?: string | null;
  code?: string | null;
  name?: string | null;
  language?: string | null;
  category_name?: string | null;
  insurance_name?: string | null;
  partner_name?: string | null;
  product_code?: string | null;
  product_name?: string | null;
  product_description?: string | null;
  product_terms?: string | null;
  product_wording?: string | null;
  claim_description?: string | null;
  timezone?: string | null;
  terms?: string | null;
  riplay_document?: string | null;
  benefits?: BenefitValue[] | null;
}

export interface BenefitValue {
  code?: string | null;
  name?: string | null;
  description?: string | null;
  /** Each term item is the JSON text of one item of the contract's array. */
  term?: { inclusion?: string[] | null; exclusion?: string[] | null } | null;
}

export interface SimplifiedPolicyValue {
  number?: string | null;
  status?: string | null;
  start_protection_at?: string | null;
  end_protection_at?: string | null;
  premium_amount?: number | null;
  documents?: DocumentValue[] | null;
}
