import type { Producer } from '@hookstream/kafka';
import type { AvroCodec } from '@hookstream/kafka';
import { partnerToRecord, type Partner } from './model';

/** Writes partner records to the compacted partner-config topic (key: partner id; acks=all). */
export class PartnerStore {
  constructor(
    private readonly producer: Producer,
    private readonly codec: AvroCodec,
    private readonly topic: string,
  ) {}

  async write(partner: Partner): Promise<void> {
    const value = await this.codec.encode(this.topic, partnerToRecord(partner));
    await this.producer.send({ topic: this.topic, messages: [{ key: partner.partner_id, value }] });
  }
}
