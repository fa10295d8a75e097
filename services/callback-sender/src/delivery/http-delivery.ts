import { Agent, errors, request, type Dispatcher } from 'undici';
import type { SignedCallback } from '../signing';

/** What one POST to a partner came to. Only a 200 is success (spec 4.1, 7.2). */
export type AttemptResult =
  | { kind: 'response'; status: number; latencyMs: number }
  | { kind: 'error'; errorClass: DeliveryErrorClass; message: string; latencyMs: number };

export type DeliveryErrorClass =
  'TIMEOUT' | 'CONNECTION_REFUSED' | 'CONNECTION_RESET' | 'DNS_FAILURE' | 'TLS_FAILURE' | 'NETWORK_ERROR' | 'INVALID_URL';

export interface CallbackHttpClientOptions {
  /** Longest wait for a connection, in ms. */
  connectTimeoutMs: number;
  /** Keep-alive connections per origin. */
  connectionsPerOrigin: number;
  /** Most response bytes read before the rest is dropped. */
  maxResponseBytes: number;
  /** Replaces the agent (the SSRF-guarded one, tests). Default: a keep-alive Agent with the options above. */
  dispatcher?: Dispatcher;
}

/**
 * POSTs signed callbacks with undici: one keep-alive pool per origin (undici's Agent), a connect
 * timeout, a total timeout per attempt (the endpoint's timeout_ms, covering headers and body),
 * and a cap on the response body read, so a partner streaming an endless answer cannot hold a
 * connection or memory. Never throws: every failure is an AttemptResult with a class.
 */
export class CallbackHttpClient {
  readonly dispatcher: Dispatcher;

  constructor(private readonly options: CallbackHttpClientOptions) {
    this.dispatcher =
      options.dispatcher ??
      new Agent({
        connections: options.connectionsPerOrigin,
        connect: { timeout: options.connectTimeoutMs },
        keepAliveTimeout: 30_000,
        pipelining: 1,
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
      await this.drain(response.body);
      return { kind: 'response', status: response.statusCode, latencyMs: latency() };
    } catch (error) {
      return { kind: 'error', ...classify(error, signal.aborted), latencyMs: latency() };
    }
  }

  async close(): Promise<void> {
    await this.dispatcher.close();
  }

  /** Reads at most maxResponseBytes, then drops the connection rather than reading on. */
  private async drain(body: Dispatcher.ResponseData['body']): Promise<void> {
    let read = 0;
    try {
      for await (const chunk of body) {
        read += (chunk as Buffer).length;
        if (read > this.options.maxResponseBytes) {
          body.destroy();
          return;
        }
      }
    } catch {
      // The status has arrived; a broken body does not change the outcome.
    }
  }
}

function classify(error: unknown, timedOut: boolean): { errorClass: DeliveryErrorClass; message: string } {
  const e = error as { code?: string; name?: string; message?: string; cause?: { code?: string } };
  const code = e.code ?? e.cause?.code ?? '';
  const message = `${e.name ?? 'Error'}: ${e.message ?? String(error)}`.slice(0, 300);
  if (timedOut || error instanceof errors.HeadersTimeoutError || error instanceof errors.BodyTimeoutError || e.name === 'TimeoutError') {
    return { errorClass: 'TIMEOUT', message };
  }
  if (error instanceof errors.ConnectTimeoutError) return { errorClass: 'TIMEOUT', message };
  if (code === 'ECONNREFUSED') return { errorClass: 'CONNECTION_REFUSED', message };
  if (code === 'ECONNRESET' || code === 'EPIPE' || error instanceof errors.SocketError) return { errorClass: 'CONNECTION_RESET', message };
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return { errorClass: 'DNS_FAILURE', message };
  if (/CERT|SSL|TLS/i.test(code)) return { errorClass: 'TLS_FAILURE', message };
  if (error instanceof errors.InvalidArgumentError || code === 'ERR_INVALID_URL') return { errorClass: 'INVALID_URL', message };
  return { errorClass: 'NETWORK_ERROR', message };
}
