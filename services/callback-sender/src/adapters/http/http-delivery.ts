import { request, type Dispatcher } from 'undici';
import { createSsrfGuardedAgent, outboundFailureOf } from '@hookstream/runtime';
import type { AttemptResult, DeliveryErrorClass } from '../../domain/deliver-callback';
import type { SignedCallback } from '../signing';
import { ResponseExcerpt } from './response-excerpt';

export interface CallbackHttpClientOptions {
  /** Longest wait for a connection, in ms. */
  connectTimeoutMs: number;
  /** Keep-alive connections per origin. */
  connectionsPerOrigin: number;
  /** Most response bytes read before the rest is dropped. */
  maxResponseBytes: number;
  /** Address ranges a partner URL may resolve to despite the SSRF guard (e.g. loopback for the demo). */
  /** The SSRF guard's policy: the SSRF_ALLOW ranges. */
  ssrf: Parameters<typeof createSsrfGuardedAgent>[0]['policy'];
}

/**
 * POSTs signed callbacks with undici: one keep-alive pool per origin (undici's Agent), a connect
 * timeout, a total timeout per attempt (the endpoint's timeout_ms, covering headers and body),
 * and a cap on the response body read, so a partner streaming an endless answer cannot hold a
 * connection or memory. Never throws: every failure is an AttemptResult (domain/deliver-callback) with a class.
 */
export class CallbackHttpClient {
  readonly dispatcher: Dispatcher;

  constructor(private readonly options: CallbackHttpClientOptions) {
    // Every connection goes to an address the guard checked (no second DNS resolution to rebind).
    this.dispatcher = createSsrfGuardedAgent({
      policy: options.ssrf,
      connectTimeoutMs: options.connectTimeoutMs,
      connections: options.connectionsPerOrigin,
    });
  }

  async post(url: string, signed: SignedCallback, timeoutMs: number): Promise<AttemptResult> {
    const started = performance.now();
    const latency = () => performance.now() - started;
    const signal = AbortSignal.timeout(timeoutMs);
    try {
      const response = await request(url, {
        method: 'POST',
        headers: signed.headers,
        body: signed.body,
        dispatcher: this.dispatcher,
        signal,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
      const responseExcerpt = await this.drain(response.body);
      const retryAfterMs =
        response.statusCode === 429 || response.statusCode === 503 ? retryAfter(response.headers['retry-after']) : undefined;
      return {
        kind: 'response',
        status: response.statusCode,
        latencyMs: latency(),
        ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
        responseExcerpt,
      };
    } catch (error) {
      return { kind: 'error', ...classify(error, signal.aborted), latencyMs: latency() };
    }
  }

  /**
   * Closes every connection at once, aborting requests still in flight: on shutdown, after the
   * consumers have stopped, those belong to records handed back (uncommitted, delivered again by the
   * next owner with the same delivery id), and waiting for them could outlast the shutdown timeout.
   */
  async close(): Promise<void> {
    await this.dispatcher.destroy();
  }

  /**
   * Reads at most maxResponseBytes (undici's dump drops the connection beyond), keeping the start as
   * the excerpt and discarding the rest.
   */
  private async drain(body: Dispatcher.ResponseData['body']): Promise<string> {
    const excerpt = new ResponseExcerpt();
    body.on('data', excerpt.onData);
    // The status has arrived; a broken body does not change the outcome (the excerpt is what came).
    await body.dump({ limit: this.options.maxResponseBytes }).catch(() => undefined);
    return excerpt.text();
  }
}

function classify(error: unknown, timedOut: boolean): { errorClass: DeliveryErrorClass; message: string } {
  const e = error as { name?: string; message?: string };
  const message = `${e.name ?? 'Error'}: ${e.message ?? String(error)}`.slice(0, 300);
  return { errorClass: outboundFailureOf(error, timedOut), message };
}

/** A Retry-After header (seconds, or an HTTP date) in ms; undefined when absent or unreadable. */
export function retryAfter(value: string | string[] | undefined, now = Date.now()): number | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (!text) return undefined;
  if (/^\d+$/.test(text.trim())) return Number(text.trim()) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
