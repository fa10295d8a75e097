import { KafkaUnavailableError, RegistryUnavailableError, isRetryable } from '@hookstream/errors';
import { isKafkaClientError, type AvroCodec, type RecordWriter } from '@hookstream/kafka';
import type { PartnerEventValue } from '@hookstream/contract';
import type { EncodedEvent, PartnerEventLog } from '../../domain/partner-events';

/** partner-events through the service's idempotent producer (acks=all) and the schema registry's codec. */
export class KafkaPartnerEvents implements PartnerEventLog {
  constructor(
    private readonly options: {
      codec: AvroCodec;
      /** The real topic name of partner-events. */
      topic: string;
      producer: RecordWriter;
      /** Whether a leader of the topic is connected now. */
      reachable: () => boolean;
    },
  ) {}

  async encode(event: PartnerEventValue): Promise<EncodedEvent | 'unavailable'> {
    try {
      return await this.options.codec.encode(this.options.topic, event);
    } catch (error) {
      if (error instanceof RegistryUnavailableError || isRetryable(error)) return 'unavailable';
      throw error;
    }
  }

  async write(transactionNumber: string, event: EncodedEvent): Promise<'written' | 'unavailable'> {
    try {
      await this.options.producer.send({ topic: this.options.topic, key: transactionNumber, value: event });
      return 'written';
    } catch (error) {
      // Any failed write is "not stored, retry later" for a partner, whatever the broker said.
      if (error instanceof KafkaUnavailableError || isRetryable(error) || isKafkaClientError(error)) return 'unavailable';
      throw error;
    }
  }

  reachable(): boolean {
    return this.options.reachable();
  }
}
