/**
 * Traffic and process lookups for the supervisor's tests: webhooks POSTed without pause and
 * policy events published while processes are killed under them, with what each got.
 */
import { readFileSync } from 'node:fs';
import { AvroCodec, createKafkaClient, defaultSchemasDir, topicCatalogue, type Producer } from '@hookstream/kafka';
import { createLogger, sleep } from '@hookstream/runtime';
import { parsePolicyEventJson } from '@hookstream/contract';
import { webhook } from './ingress';
import { processesMentioning } from './processes';
import { policyEvent } from './outbound';

/** One answer: its HTTP status, 0 when there was no answer (connection refused, timeout). */
export interface Answer {
  at: number;
  status: number;
}

/** Webhooks POSTed one after another (every `pauseMs`) until stopped. */
export class WebhookTraffic {
  readonly answers: Answer[] = [];
  private stopped = false;
  private readonly running: Promise<void>;

  constructor(url: string, apiKey: string, pauseMs = 100) {
    this.running = (async () => {
      while (!this.stopped) {
        let status = 0;
        try {
          const response = await fetch(url, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
            body: JSON.stringify(webhook()),
            signal: AbortSignal.timeout(15_000),
          });
          await response.text();
          status = response.status;
        } catch {
          // no answer: counted as 0
        }
        this.answers.push({ at: Date.now(), status });
        await sleep(pauseMs);
      }
    })();
  }

  /** Answers received in [from, to]. */
  between(from: number, to = Date.now()): Answer[] {
    return this.answers.filter((a) => a.at >= from && a.at <= to);
  }

  /** The first 200 received after `from`, if any. */
  firstOkAfter(from: number): Answer | undefined {
    return this.answers.find((a) => a.at > from && a.status === 200);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.running;
  }
}

/** Policy-status events for `partnerId`, published one by one (every `pauseMs`) until stopped; only acknowledged ones are kept. */
export class PolicyTraffic {
  /** Policy numbers of the events the broker acknowledged. */
  readonly acknowledged: string[] = [];
  private stopped = false;
  private readonly running: Promise<void>;
  private readonly producer: Producer;

  constructor(settings: { brokers: string; registryUrl: string; prefix: string; partnerId: string; pauseMs?: number }) {
    const kafka = createKafkaClient({
      brokers: settings.brokers.split(','),
      clientId: 'supervision-test',
      logger: createLogger({ service: 'test', level: 'silent' }),
    });
    const producer = kafka.producer();
    this.producer = producer;
    const topic = topicCatalogue({ prefix: settings.prefix }).find((t) => t.name === 'policy-status')!;
    const codec = new AvroCodec(settings.registryUrl, defaultSchemasDir());
    this.running = (async () => {
      await codec.registerTopics([topic]);
      await producer.connect();
      while (!this.stopped) {
        const event = parsePolicyEventJson(policyEvent(settings.partnerId));
        const number = event.policy.policy_number;
        try {
          const value = await codec.encode(topic.topic, event);
          await producer.send({ topic: topic.topic, messages: [{ key: number, value }] });
          this.acknowledged.push(number);
        } catch {
          // the broker is away: not acknowledged, so not expected at the partner
        }
        await sleep(settings.pauseMs ?? 500);
      }
    })();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.running.finally(() => this.producer.disconnect());
  }
}

/** Pids of the children of `parent` whose command line contains `needle` (from /proc). */
export function childrenOf(parent: number, needle: string): number[] {
  return processesMentioning(needle).filter((pid) => parentOf(pid) === parent);
}

/** The parent's pid, from /proc/<pid>/stat (the field after the state, which follows the command in parentheses). */
function parentOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return undefined; // ended meanwhile
  }
}

/** Where `hookstream start` said everything listens, and the demo partner's key. */
export function startedSystem(output: string) {
  const find = (pattern: RegExp, what: string) => {
    const found = pattern.exec(output)?.[1];
    if (!found) throw new Error(`start did not print ${what}:\n${output}`);
    return found;
  };
  const ops = (name: string) => find(new RegExp(`${name} ops\\s+(http://\\S+)/metrics`), `${name}'s address`);
  return {
    webhookUrl: find(/ingress \(partner webhooks\)\s+(http:\/\/\S+)/, 'the webhook address'),
    partnerApiUrl: find(/partner API \(delivery log\)\s+(http:\/\/\S+)/, 'the partner API address'),
    demoEndpoint: find(/demo partner endpoint\s+(http:\/\/\S+)\/callbacks/, 'the demo endpoint'),
    apiKey: find(/shown once: (hsk_[A-Za-z0-9_-]{43})/, 'the demo API key'),
    brokers: find(/^Kafka\s+(\S+)$/m, 'the Kafka address'),
    registryUrl: find(/^schema registry\s+(\S+)$/m, 'the registry address'),
    services: {
      ingress: ops('ingress'),
      'policy-status-consumer': ops('policy-status-consumer'),
      'callback-sender': ops('callback-sender'),
    } as Record<string, string>,
  };
}
