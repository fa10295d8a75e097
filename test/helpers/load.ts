import { sleep } from '@hookstream/shared';
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

/** The p-th percentile (0-100) of `values`, nearest rank; NaN when there are none. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = values.toSorted((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}
