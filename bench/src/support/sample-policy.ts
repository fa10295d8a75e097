/**
 * The sample policy the outbound benches send: one product and status with a year's protection,
 * the same in the integrator's policy-status events (outbound-e2e, isolation) and in the callback
 * bodies written straight to callback-requests (outbound-send), so that both measure one shape.
 */

/** The terms every sample policy shares; the ids (policy, partner's and insurer's transaction) differ per event. */
export const SAMPLE_POLICY_TERMS = {
  product_code: 'GADGET_PROTECT_12M',
  status: 'POLICY_ACTIVE',
  start_protection_at: '2026-01-08T00:00:00+07:00',
  end_protection_at: '2027-01-07T23:59:59+07:00',
} as const;
