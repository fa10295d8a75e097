import { sleep } from '@hookstream/runtime';
import { webhook } from './ingress';

/** How one webhook ended: 200 after some attempts, or given up (another status, or out of time). */
export interface WebhookRecord {
  requestId: string;
  attempts: number;
  /** Its final status: 200, another non-retryable status, or 0 when it ran out of time. */
  status: number;
}

/** The partner's retry policy: a connection error or a 503 is retried, with the same body, on the next replica. */
const RETRY_PAUSE_MS = 100;
/** Longest a partner keeps retrying one webhook (a replica restart on 2 busy cores takes seconds). */
const GIVE_UP_AFTER_MS = 120_000;

export interface PartnerClientOptions {
  /** Partners posting side by side. */
  clients: number;
  /** Each one's pause between webhooks. */
  pauseMs: number;
  /** A new webhook's body. Default: {@link webhook}'s. */
  body?: () => Record<string, unknown>;
  /**
   * Every n-th webhook is sent twice at once, to two replicas (a partner's retry racing its first
   * attempt): two records of the same request_id in `webhooks`. Default: never.
   */
  twiceEvery?: number;
}

/**
 * Partners posting webhooks at a steady pace to a set of ingress replicas, as a well-behaved
 * partner does behind a load balancer: each webhook goes first to the next replica in turn; a
 * connection error (a replica stopped or not started yet) or a 503 (draining, starting, Kafka away)
 * is sent again, the same body and request_id, to the next replica. Anything else ends the webhook.
 * The replicas' URLs are read at every attempt, so a restarted replica's new port is used.
 */
export class PartnerClient {
  readonly webhooks: WebhookRecord[] = [];
  /** Why attempts were retried: "503 <error_code>: <message>" or "connection <code>", with counts. */
  readonly retries = new Map<string, number>();
  private stopped = false;
  private turn = 0;
  private readonly running: Promise<void[]>;

  constructor(
    private readonly urls: () => string[],
    private readonly apiKey: string,
    options: PartnerClientOptions,
  ) {
    const body = options.body ?? (() => webhook());
    let sent = 0;
    this.running = Promise.all(
      Array.from({ length: options.clients }, async () => {
        while (!this.stopped) {
          const next = body();
          // Both sends take their replica before either waits: consecutive replicas, at the same time.
          const twice = options.twiceEvery !== undefined && ++sent % options.twiceEvery === 0;
          this.webhooks.push(...(await Promise.all(twice ? [this.send(next), this.send(next)] : [this.send(next)])));
          await sleep(options.pauseMs);
        }
      }),
    );
  }

  /** Webhooks answered 200. */
  get accepted(): number {
    return this.webhooks.filter((w) => w.status === 200).length;
  }

  /** Sends no new webhook; resolves once every webhook sent has ended. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.running;
  }

  private async send(body: Record<string, unknown>): Promise<WebhookRecord> {
    const requestId = body.request_id as string;
    const giveUpAt = Date.now() + GIVE_UP_AFTER_MS;
    let replica = this.turn++;
    for (let attempts = 1; Date.now() < giveUpAt; attempts++, replica++) {
      const urls = this.urls();
      const reason = await this.attempt(urls[replica % urls.length]!, body);
      if (typeof reason === 'number') return { requestId, attempts, status: reason };
      this.retries.set(reason, (this.retries.get(reason) ?? 0) + 1);
      await sleep(RETRY_PAUSE_MS);
    }
    return { requestId, attempts: 0, status: 0 };
  }

  /** The final status of one attempt, or why it is retried. */
  private async attempt(url: string, body: Record<string, unknown>): Promise<number | string> {
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': this.apiKey },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(30_000),
      });
      const text = await response.text();
      if (response.status !== 503) return response.status;
      const answer = JSON.parse(text) as { error_code?: string; message?: string };
      return `503 ${answer.error_code}: ${answer.message}`;
    } catch (error) {
      const e = error as { name?: string; cause?: { code?: string } };
      return `connection ${e.cause?.code ?? e.name}`;
    }
  }
}
