/**
 * Publishes policy-status events at a fixed rate without drift: every TICK_MS it sends all
 * events due by now (the count follows the clock, not the ticks), in one `producer.send` on an
 * idempotent acks=all producer; a tick that finds a send in flight leaves its events to the
 * next send. Each event is a policy of its own at version 1 (latest-wins supersedes none).
 */
import { randomUUID } from 'node:crypto';
import { TopicNames, type Message, type Producer } from '@hookstream/kafka';
import { parsePolicyEventJson, type PolicyStatusEventValue } from '@hookstream/contract';
import { sleep } from '@hookstream/runtime';
import { SAMPLE_POLICY_TERMS } from '../support/sample-policy';
import { epochMs, policyNumberOf, type EventStream, type PublishReport } from './event-stream';
import type { OutboundStack } from './outbound-stack';

export class FixedRatePublisher {
  static readonly TICK_MS = 2;
  private producer: Producer | undefined;
  private template: PolicyStatusEventValue | undefined;

  constructor(private readonly stack: OutboundStack) {}

  async connect(): Promise<void> {
    this.producer = this.stack.kafka.producer();
    await this.producer.connect();
    // The integrator's JSON form, parsed once; every event is this with its own ids.
    this.template = parsePolicyEventJson({
      partner_id: 'template',
      version: 1,
      policy: {
        policy_number: 'template',
        partner_transaction_number: 'PTN-BENCH',
        transaction_number: 'TRX-BENCH',
        ...SAMPLE_POLICY_TERMS,
        currency_code: 'IDR',
        policy_holder: { full_name: 'Bench Holder', email: 'holder@example.com', phone_number: '+62811000000' },
        documents: [{ type: 'POLICY_CERTIFICATE', filename: 'certificate.pdf', url: 'https://docs.example/certificate.pdf' }],
      },
    });
  }

  async disconnect(): Promise<void> {
    await this.producer?.disconnect();
  }

  /**
   * Publishes the streams until the last one ends; `onTick` runs every tick with the ms since the
   * start (e.g. checks on the services, snapshots); what it throws ends the run.
   */
  async run(streams: EventStream[], onTick: (elapsedMs: number) => void = () => undefined): Promise<PublishReport> {
    const producer = this.producer!;
    const template = this.template!;
    const topic = this.stack.topic(TopicNames.policyStatus);
    const startedAt = epochMs();
    const report: PublishReport = { startedAt, published: new Map(), lateness: [], sendMs: [], sends: 0, endedAt: startedAt };
    const next = streams.map(() => 0);
    const total = (s: EventStream) => Math.ceil(((s.toMs - s.fromMs) * s.rate) / 1000);
    const dueAt = (s: EventStream, seq: number) => startedAt + s.fromMs + (seq * 1000) / s.rate;

    const sendDue = async (): Promise<void> => {
      const now = epochMs();
      const messages: Message[] = [];
      let oldest = Infinity;
      const encodings: Array<Promise<void>> = [];
      streams.forEach((s, i) => {
        while (next[i]! < total(s) && dueAt(s, next[i]!) <= now) {
          const seq = next[i]!++;
          const due = dueAt(s, seq);
          oldest = Math.min(oldest, due);
          const policyNumber = policyNumberOf(s.label, seq, due);
          const event = {
            ...template,
            event_id: randomUUID(),
            partner_id: s.partnerId,
            policy: { ...template.policy, policy_number: policyNumber },
          };
          const message: Message = { key: policyNumber, value: null };
          messages.push(message);
          encodings.push(
            this.stack.codec.encode(topic, event).then((value) => {
              message.value = value;
            }),
          );
        }
        report.published.set(s.label, next[i]!);
      });
      if (messages.length === 0) return;
      await Promise.all(encodings);
      const sendStarted = epochMs();
      await producer.send({ topic, messages });
      report.sends++;
      report.lateness.push(sendStarted - oldest);
      report.sendMs.push(epochMs() - sendStarted);
      report.endedAt = epochMs();
    };

    // A tick never waits for a send: one in flight leaves the events due meanwhile to the next.
    const finished = () => streams.every((s, i) => next[i]! >= total(s));
    let sending: Promise<void> | undefined;
    let failure: Error | undefined;
    while (!finished() || sending) {
      if (failure) throw failure;
      onTick(epochMs() - startedAt);
      sending ??= sendDue().then(
        () => {
          sending = undefined;
        },
        (error: unknown) => {
          failure = error instanceof Error ? error : new Error(String(error));
          sending = undefined;
        },
      );
      await sleep(FixedRatePublisher.TICK_MS);
    }
    if (failure) throw failure;
    return report;
  }
}
