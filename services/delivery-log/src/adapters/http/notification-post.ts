/*
 * POSTs an operational notification through the runtime's SSRF-guarded agent (never undici's
 * default dispatcher): every connection goes only to an address the guard checked, with the
 * deployment's SSRF_ALLOW, as the callback-sender connects to callback endpoints. The answer's body
 * is read to at most 4 KiB and dropped: only its status counts.
 */
import { createSsrfGuardedAgent, OutboundFailures, outboundFailureOf } from '@hookstream/runtime';
import type { NotificationPost } from '../../domain/send-notifications';

export interface NotificationPoster {
  post: NotificationPost;
  /** Closes its connections (on shutdown). */
  close(): Promise<void>;
}

export function notificationPoster(options: { allow: string[]; timeoutMs: number }): NotificationPoster {
  const agent = createSsrfGuardedAgent({ policy: { allow: options.allow }, connectTimeoutMs: options.timeoutMs, connections: 4 });
  return {
    async post(url, headers, body) {
      const target = new URL(url);
      const signal = AbortSignal.timeout(options.timeoutMs);
      try {
        const response = await agent.request({
          origin: target.origin,
          path: `${target.pathname}${target.search}`,
          method: 'POST',
          headers,
          body,
          signal,
          headersTimeout: options.timeoutMs,
          bodyTimeout: options.timeoutMs,
        });
        await response.body.dump({ limit: 4096 }).catch(() => undefined);
        return { status: response.statusCode };
      } catch (error) {
        // The failure's class only (ssrf_refused, timeout, connection_refused …): never a header or the body.
        const failure = outboundFailureOf(error, signal.aborted);
        return { error: failure, final: failure === OutboundFailures.ssrfRefused };
      }
    },
    close: () => agent.destroy(),
  };
}
