/**
 * outbound-send's input and its check on the sender's commits: callback requests written straight
 * to callback-requests as the policy-status-consumer writes them, each its own policy at version
 * 1 (latest-wins ordering supersedes none, so every record is one delivery), and the records the
 * sender's group committed once it stopped.
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { type AvroCodec, type Kafka } from '@hookstream/kafka';
import { CallbackRequestHeaders } from '@hookstream/contract';
import { SAMPLE_POLICY_TERMS } from '../support/sample-policy';

/** The bench partner's outbound auth: the sender signs every callback with it. */
export const PARTNER_AUTH = { method: 'HMAC_SHA256', api_key: 'bench-api-key', secret: 'bench-hmac-secret' } as const;

const policyNumberOf = (n: number) => `POL-${String(n).padStart(8, '0')}`;

/** A contract 2.1 style body of about 2 KB for policy `n`. */
export function callbackBody(n: number): string {
  const policy = policyNumberOf(n);
  return JSON.stringify({
    policy_number: policy,
    partner_transaction_number: `PTN-${n}`,
    transaction_number: `TRX-${n}`,
    ...SAMPLE_POLICY_TERMS,
    insured: { name: 'Bench Insured', email: `insured-${n}@example.com`, phone: '+62 811 0000 0000' },
    device: { brand: 'Example', model: 'Phone 15 Pro', imei: String(350_000_000_000_000 + n), purchase_price: 17_999_000 },
    documents: Array.from({ length: 8 }, (_, i) => ({
      type: 'POLICY_CERTIFICATE',
      url: `https://docs.example/policies/${policy}/certificate-${i}.pdf`,
      filename: `${policy}-certificate-${i}.pdf`,
      checksum: 'sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
    })),
  });
}

/**
 * Writes `records` callback requests for partner `partnerId` as the policy-status-consumer does:
 * keyed by policy number, Avro in the Confluent format, partner, endpoint and version in headers.
 * Returns the seconds it took.
 */
export async function prefill(
  kafka: Kafka,
  codec: AvroCodec,
  topic: string,
  partnerId: string,
  bodies: string[],
  records: number,
): Promise<number> {
  const producer = kafka.producer();
  await producer.connect();
  const started = performance.now();
  try {
    const chunk = 1_500;
    for (let from = 0; from < records; from += chunk) {
      const messages = await Promise.all(
        Array.from({ length: Math.min(chunk, records - from) }, async (_, j) => {
          const i = from + j;
          const policyNumber = policyNumberOf(i);
          const value = await codec.encode(topic, {
            delivery_id: randomUUID(),
            event_id: randomUUID(),
            partner_id: partnerId,
            endpoint_id: 'ep-1',
            policy_number: policyNumber,
            policy_version: 1,
            policy_status: 'POLICY_ACTIVE',
            body: bodies[i % bodies.length]!,
            created_at: Date.now(),
          });
          const headers = {
            [CallbackRequestHeaders.partnerId]: partnerId,
            [CallbackRequestHeaders.endpointId]: 'ep-1',
            [CallbackRequestHeaders.policyVersion]: '1',
          };
          return { key: policyNumber, value, headers };
        }),
      );
      await producer.sendBatch({ topicMessages: [{ topic, messages }] });
    }
  } finally {
    await producer.disconnect();
  }
  return (performance.now() - started) / 1000;
}

/** Records before the committed offsets of `groupId` on `topic`, all partitions together. */
export async function committedRecords(kafka: Kafka, groupId: string, topic: string): Promise<number> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const [offsets] = await admin.fetchOffsets({ groupId, topics: [topic] });
    return (offsets?.partitions ?? []).reduce((sum, p) => sum + Math.max(0, Number(p.offset)), 0);
  } finally {
    await admin.disconnect();
  }
}
