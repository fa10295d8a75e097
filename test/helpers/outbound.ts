import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { AvroCodec, defaultSchemasDir, topicCatalogue, type Kafka, type KafkaMessage } from '@hookstream/kafka';
import { parsePolicyEventJson } from '@hookstream/contract';
import { testInfrastructure, testKafka, waitFor } from './infrastructure';
import { REPO_ROOT, startReadyService, type RunningService } from './processes';

export const POLICY_CONSUMER_ENTRY = path.join(REPO_ROOT, 'services', 'policy-status-consumer', 'dist', 'main.js');
export const CALLBACK_SENDER_ENTRY = path.join(REPO_ROOT, 'services', 'callback-sender', 'dist', 'main.js');
export const DOCUMENT_FETCHER_ENTRY = path.join(REPO_ROOT, 'services', 'document-fetcher', 'dist', 'main.js');
export const DELIVERY_LOG_ENTRY = path.join(REPO_ROOT, 'services', 'delivery-log', 'dist', 'main.js');

export type { RunningService } from './processes';

/** Starts a service process (compiled code) on `prefix`'s topics, logging at info, and waits until /readyz says ready. */
export function startService(entry: string, prefix: string, extraEnv: NodeJS.ProcessEnv = {}): Promise<RunningService> {
  return startReadyService(entry, { ...process.env, TOPIC_PREFIX: prefix, LOG_LEVEL: 'info', ...extraEnv });
}

/** One request a test receiver got: the raw bytes, exactly as sent. */
export interface ReceivedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  raw: Buffer;
  body: Record<string, unknown>;
  at: number;
}

export interface Receiver {
  url: string;
  requests: ReceivedRequest[];
  close: () => Promise<void>;
}

/** What a test receiver answers: a status, a status with headers or a body of its own, or no answer at all. */
export type ReceiverAnswer = number | 'hang' | { status: number; headers?: Record<string, string>; body?: string };

/** The body a receiver answers when its answer gives none. */
export const RECEIVER_DEFAULT_BODY = '{"ok":true}';

/**
 * A partner's callback endpoint on loopback: records every request and answers with `answer`
 * (a status, or 'hang' to accept the connection and never answer).
 */
export async function startReceiver(answer: (request: ReceivedRequest, index: number) => ReceiverAnswer = () => 200): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
      } catch {
        // recorded raw; the test decides
      }
      const request = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, raw, body, at: Date.now() };
      requests.push(request);
      const answered = answer(request, requests.length - 1);
      if (answered === 'hang') return;
      const { status, headers = {}, body: reply = RECEIVER_DEFAULT_BODY } = typeof answered === 'number' ? { status: answered } : answered;
      res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(status === 204 ? undefined : reply);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Publishes policy-status events written in the integrator's JSON form (as `hookstream policy publish` does). */
export class PolicyEvents {
  private readonly codec = new AvroCodec(testInfrastructure().registryUrl, defaultSchemasDir());
  private readonly topic: { topic: string; schemaFile: string };
  private producer: ReturnType<Kafka['producer']> | undefined;

  constructor(
    private readonly kafka: Kafka,
    prefix: string,
  ) {
    this.topic = topicCatalogue({ prefix }).find((t) => t.name === 'policy-status')!;
  }

  /** Publishes `events`, each record with `headers` (a core system's `traceparent`, say) when given. */
  async publish(events: unknown[], headers?: Record<string, string>): Promise<void> {
    if (!this.producer) {
      await this.codec.registerTopics([this.topic]);
      this.producer = this.kafka.producer();
      await this.producer.connect();
    }
    const messages = await Promise.all(
      events.map(async (input) => {
        const event = parsePolicyEventJson(input);
        return { key: event.policy.policy_number, value: await this.codec.encode(this.topic.topic, event), ...(headers && { headers }) };
      }),
    );
    await this.producer.send({ topic: this.topic.topic, messages });
  }

  async close(): Promise<void> {
    await this.producer?.disconnect();
  }
}

export interface ReadRecord<T> {
  key: string;
  value: T;
  headers: KafkaMessage['headers'];
  partition: number;
  offset: string;
}

/**
 * Reads a whole topic (read_committed) until `enough(records)` holds, decoding values through the
 * registry; fails after `timeoutMs`.
 */
export async function readTopicUntil<T>(
  topic: string,
  enough: (records: Array<ReadRecord<T>>) => boolean,
  timeoutMs = 30_000,
): Promise<Array<ReadRecord<T>>> {
  const codec = new AvroCodec(testInfrastructure().registryUrl, defaultSchemasDir());
  const kafka = testKafka();
  const records: Array<ReadRecord<T>> = [];
  const consumer = kafka.consumer({
    groupId: `reader-${Math.random().toString(36).slice(2)}`,
    readUncommitted: false,
    fromBeginning: true,
    maxWaitMs: 100,
  });
  await consumer.connect();
  await consumer.subscribe({ topics: [topic] });
  await consumer.run({
    eachMessage: async ({ message, partition }) => {
      const value = (message.value ? await codec.decode(message.value) : null) as T;
      records.push({ key: message.key?.toString() ?? '', value, headers: message.headers, partition, offset: message.offset });
    },
  });
  try {
    await waitFor(() => enough(records), `${topic} to hold what the test expects (has ${records.length})`, timeoutMs);
    return records;
  } finally {
    await consumer.disconnect();
  }
}

/** A policy-status event in the integrator's JSON form. */
export function policyEvent(partnerId: string, overrides: Record<string, unknown> = {}, policy: Record<string, unknown> = {}) {
  const n = Math.random().toString(36).slice(2, 10).toUpperCase();
  return {
    partner_id: partnerId,
    version: 1,
    ...overrides,
    policy: {
      policy_number: `POL-${n}`,
      partner_transaction_number: `PTN-${n}`,
      transaction_number: `TRX-${n}`,
      product_code: 'GADGET_PROTECT_12M',
      status: 'POLICY_ACTIVE',
      start_protection_at: '2026-01-08T00:00:00+07:00',
      end_protection_at: '2027-01-07T23:59:59+07:00',
      ...policy,
    },
  };
}
