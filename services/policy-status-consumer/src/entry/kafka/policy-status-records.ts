import { AvroInvalidError, ErrorCodes, hasErrorCode } from '@hookstream/errors';
import { type PolicyStatusEventValue } from '@hookstream/contract';
import { type AvroCodec, type KafkaMessage, type OutputRecord } from '@hookstream/kafka';
import type { PolicyStatusOutputs } from '../../adapters/kafka/policy-status-outputs';
import type { FanOutPolicyEvent } from '../../domain/fan-out-policy-event';

export interface PolicyStatusRecordsOptions {
  codec: AvroCodec;
  /** The policy-status topic's real name (the decoder's subject). */
  policyStatusTopic: string;
  fanOut: FanOutPolicyEvent;
  outputs: PolicyStatusOutputs;
}

/**
 * What one policy-status record becomes: decoded, fanned out to its partner's callbacks
 * (domain/fan-out-policy-event), and written as callback requests or one dead letter with the
 * reason (adapters/kafka). Kafka or the registry being away is thrown, so the batch is read again.
 */
export class PolicyStatusRecords {
  constructor(private readonly options: PolicyStatusRecordsOptions) {}

  /** The records of `message`; `unknownPartners` lives for one batch (FanOutPolicyEvent.run). */
  async of(partition: number, message: KafkaMessage, unknownPartners: Set<string>): Promise<OutputRecord[]> {
    const source = { partition, message };
    return this.options.outputs.writable(source, await this.process(partition, message, unknownPartners));
  }

  private async process(partition: number, message: KafkaMessage, unknownPartners: Set<string>): Promise<OutputRecord[]> {
    const { codec, outputs } = this.options;
    const source = { partition, message };
    let event: PolicyStatusEventValue;
    try {
      if (!message.value) throw new AvroInvalidError('the record has no value');
      event = (await codec.decode(message.value, this.options.policyStatusTopic)) as PolicyStatusEventValue;
    } catch (error) {
      if (!hasErrorCode(error, ErrorCodes.AVRO_INVALID)) throw error; // the registry is down: retry the batch
      return [await outputs.deadLetter(source, 'DECODE_ERROR', (error as Error).message)];
    }
    const plan = await this.options.fanOut.run(event, unknownPartners);
    switch (plan.kind) {
      case 'no-target':
        return [];
      case 'dead-letter':
        return [await outputs.deadLetter(source, plan.errorClass, plan.reason, event)];
      case 'callbacks':
        return outputs.callbackRequests(plan.requests, source);
    }
  }
}
