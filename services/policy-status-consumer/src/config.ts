import { z } from 'zod';
import { consumerLagSetting, serviceSchemaWithPort } from '@hookstream/runtime';

/** The policy-status-consumer's settings (all in .env.example with their defaults). */
export const configSchema = serviceSchemaWithPort(8091).extend({
  ...consumerLagSetting,
  /** Consumer group of the replicas; also the prefix of their transactional ids. Default hookstream-policy-status-consumer. */
  POLICY_CONSUMER_GROUP: z.string().min(1).default('hookstream-policy-status-consumer'),
  /**
   * How long an event for a partner not (yet) in partner-config waits for it before it is
   * dead-lettered as UNKNOWN_PARTNER, in ms: covers an event published right after onboarding. Default 5000.
   */
  UNKNOWN_PARTNER_GRACE_MS: z.coerce.number().int().min(0).default(5_000),
});

export type PolicyStatusConsumerConfig = z.infer<typeof configSchema>;
