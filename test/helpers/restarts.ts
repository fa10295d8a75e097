import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AvroCodec, defaultSchemasDir, type KafkaMessage } from '@hookstream/kafka';
import { sleep } from '@hookstream/runtime';
import { readTopicToEnd, testInfrastructure } from './infrastructure';
import type { RunningService } from './processes';

/** How a service ended after SIGTERM, and what its /readyz and `hookstream_service_ready` said meanwhile. */
export interface ObservedStop {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** From SIGTERM to the process's end, in ms. */
  ms: number;
  /** Answers of /readyz 503 whose check `draining` failed, while it drained. */
  drainingAnswers: number;
  /** `hookstream_service_ready` read once /readyz said draining (undefined if never read). */
  readyGauge: number | undefined;
}

/**
 * Sends SIGTERM to `service` (SIGKILL after 15 s, past the default shutdown timeout and its hard
 * stop) and asks its /readyz without pause until it has ended, reading its readiness gauge once
 * /readyz says draining.
 */
export async function stopObserved(service: RunningService): Promise<ObservedStop> {
  const started = Date.now();
  let ended = false;
  const stopped = service.stop('SIGTERM').then(() => (ended = true));
  let drainingAnswers = 0;
  let readyGauge: number | undefined;
  // A few askers side by side: a drain with little in flight lasts a few hundred ms, and each answer runs every readiness check.
  const ask = async () => {
    while (!ended) {
      try {
        const response = await fetch(`${service.opsUrl}/readyz`, { signal: AbortSignal.timeout(1000) });
        const body = (await response.json()) as { checks?: { draining?: { ok: boolean } } };
        if (response.status === 503 && body.checks?.draining?.ok === false) {
          drainingAnswers += 1;
          readyGauge ??= await readinessGauge(service.opsUrl);
        }
      } catch {
        await sleep(5); // closed (or closing): its end is near
      }
    }
  };
  await Promise.all([ask(), ask(), ask(), stopped]);
  const status = await service.ended;
  return { code: status.code, signal: status.signal, ms: Date.now() - started, drainingAnswers, readyGauge };
}

async function readinessGauge(url: string): Promise<number | undefined> {
  const text = await (await fetch(`${url}/metrics`, { signal: AbortSignal.timeout(1000) })).text();
  const value = /^hookstream_service_ready(?:\{[^}]*\})? (\S+)$/m.exec(text)?.[1];
  return value === undefined ? undefined : Number(value);
}

/** A partner's callback endpoint counting deliveries by their delivery id. */
export interface CountingReceiver {
  url: string;
  /** Requests received per delivery id (`x-hookstream-delivery-id`). */
  byDeliveryId: Map<string, number>;
  /** Policy numbers of the callbacks received. */
  policies: Set<string>;
  /** Requests whose connection closed before they were answered (a sender that cut them off). */
  cut: () => number;
  close: () => Promise<void>;
}

/** Starts a receiver on loopback answering 200 after `delayMs` (so that deliveries are in flight when a sender stops). */
export async function startCountingReceiver(delayMs: number): Promise<CountingReceiver> {
  const byDeliveryId = new Map<string, number>();
  const policies = new Set<string>();
  let cut = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const id = String(req.headers['x-hookstream-delivery-id']);
      byDeliveryId.set(id, (byDeliveryId.get(id) ?? 0) + 1);
      policies.add(String((JSON.parse(Buffer.concat(chunks).toString('utf8')) as { policy_number?: unknown }).policy_number));
      const timer = setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'), delayMs);
      res.on('close', () => {
        if (!res.writableFinished) cut += 1;
        clearTimeout(timer);
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    byDeliveryId,
    policies,
    cut: () => cut,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Every committed record of `topic` (read_committed, to its end as it is now), values decoded through the registry. */
export async function readWholeTopic<T>(topic: string): Promise<Array<{ message: KafkaMessage; value: T }>> {
  const codec = new AvroCodec(testInfrastructure().registryUrl, defaultSchemasDir());
  const messages = await readTopicToEnd(topic);
  return Promise.all(messages.map(async (message) => ({ message, value: (await codec.decode(message.value!)) as T })));
}
