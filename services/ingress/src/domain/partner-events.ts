import type { PartnerEventValue } from '@hookstream/contract';

/** An event encoded for partner-events (Avro, Confluent-framed), ready to write. */
export type EncodedEvent = Buffer;

/**
 * partner-events as accepting a webhook uses it (adapters/kafka/partner-events.ts). A failure that
 * may pass later (the schema registry or Kafka away) is 'unavailable', for the partner to retry;
 * anything else throws.
 */
export interface PartnerEventLog {
  /** The event encoded by its topic's schema; made before a request_id is claimed, so a registry outage holds no claim. */
  encode(event: PartnerEventValue): Promise<EncodedEvent | 'unavailable'>;
  /** Writes the event durably (acks=all), keyed by its transaction_number. */
  write(transactionNumber: string, event: EncodedEvent): Promise<'written' | 'unavailable'>;
  /** Whether a leader of partner-events is connected now (the producer's view, no request). */
  reachable(): boolean;
}
