import { randomUUID } from 'node:crypto';
import { sleep } from '@hookstream/runtime';
import { postWebhook, webhook } from './ingress';
import { policyEvent, type PolicyEvents } from './outbound';

/** One webhook's answer under load. */
export interface WebhookAnswer {
  requestId: string;
  sentAt: number;
  latencyMs: number;
  status: number;
  retryAfter: string | null;
}

/** Steady inbound load: `clients` clients each posting one webhook after another (a pause of `pauseMs` between). */
export function webhookLoad(url: string, apiKey: string, clients: number, pauseMs = 20) {
  const answers: WebhookAnswer[] = [];
  let running = true;
  const client = async () => {
    while (running) {
      const body = webhook();
      const sentAt = Date.now();
      const response = await postWebhook(url, apiKey, body).catch(() => undefined);
      if (response) {
        const requestId = body.request_id as string;
        answers.push({
          requestId,
          sentAt,
          latencyMs: Date.now() - sentAt,
          status: response.status,
          retryAfter: response.headers.get('retry-after'),
        });
      }
      await sleep(pauseMs);
    }
  };
  const done = Promise.all(Array.from({ length: clients }, client));
  return {
    answers,
    stop: async () => {
      running = false;
      await done;
    },
  };
}

/**
 * Steady outbound load: one policy-status event for `partnerId` every `intervalMs`, published one
 * after another. Only events whose publish the cluster acknowledged are recorded (with when); a
 * publish that fails is counted and the load goes on.
 */
export function policyEventLoad(events: PolicyEvents, partnerId: string, intervalMs = 50) {
  const published = new Map<string, number>();
  let failed = 0;
  let running = true;
  const done = (async () => {
    while (running) {
      const event = policyEvent(partnerId);
      try {
        await events.publish([event]);
        published.set(event.policy.policy_number, Date.now());
      } catch {
        failed++;
      }
      await sleep(intervalMs);
    }
  })();
  return {
    published,
    failed: () => failed,
    stop: async () => {
      running = false;
      await done;
    },
  };
}

/** One event of {@link versionedPolicyLoad}: its policy and version, and when its publish was acknowledged. */
export interface VersionedEvent {
  policy: string;
  version: number;
  at: number;
}

/**
 * Outbound load with several versions per policy: every `intervalMs`, one send holding a new
 * policy's version 1 and the next version of each policy started `spacing`, 2 × `spacing` … ticks
 * before, up to `versions`. A send that fails is sent again, the same events (the same event ids),
 * until acknowledged, as a core system does: so one policy's versions are published in order, and
 * once stopped every event was acknowledged (`published`, by event id). `resends` counts the retries.
 */
export function versionedPolicyLoad(events: PolicyEvents, partnerId: string, options = { intervalMs: 100, versions: 3, spacing: 5 }) {
  const published = new Map<string, VersionedEvent>();
  const started: Array<ReturnType<typeof policyEvent>['policy']> = [];
  let resends = 0;
  let running = true;
  const done = (async () => {
    for (let tick = 0; running; tick++) {
      started.push(policyEvent(partnerId).policy);
      const batch = Array.from({ length: options.versions }, (_, v) => ({ policy: started[tick - v * options.spacing], version: v + 1 }))
        .filter((e) => e.policy !== undefined)
        .map(({ policy, version }) => ({ event_id: randomUUID(), ...policyEvent(partnerId, { version }, policy) }));
      for (;;) {
        try {
          await events.publish(batch);
          break;
        } catch {
          resends++;
          await sleep(200);
        }
      }
      for (const e of batch) published.set(e.event_id, { policy: e.policy.policy_number, version: e.version, at: Date.now() });
      await sleep(options.intervalMs);
    }
  })();
  return {
    published,
    resends: () => resends,
    stop: async () => {
      running = false;
      await done;
    },
  };
}

/** The p-th percentile (0-100) of `values`, nearest rank; NaN when there are none. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = values.toSorted((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}
