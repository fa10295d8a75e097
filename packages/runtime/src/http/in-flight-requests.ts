import type { RequestHandler } from 'express';

/** The ops routes: they answer while the process drains and are never waited for. */
export const OPS_PATHS: readonly string[] = ['/healthz', '/readyz', '/metrics'];

/**
 * The HTTP side of draining. Counts the requests in flight other than the ops routes (the
 * ingress's webhooks), so that shutdown can wait for their answers; and while the process drains,
 * closes each connection after its answer (`Connection: close`), so that a client's next request
 * opens a connection to another replica instead of reusing this one.
 */
export class InFlightRequests {
  private inFlight = 0;
  private waiting: Array<() => void> = [];

  constructor(private readonly draining: () => boolean) {}

  /** Requests in flight now, the ops routes not counted. */
  get size(): number {
    return this.inFlight;
  }

  /** The first middleware of the app. */
  readonly middleware: RequestHandler = (req, res, next) => {
    if (this.draining()) res.setHeader('Connection', 'close');
    if (OPS_PATHS.includes(req.path)) {
      next();
      return;
    }
    this.inFlight += 1;
    // 'close' comes once, whether the answer was sent or the client went away first.
    res.once('close', () => {
      this.inFlight -= 1;
      if (this.inFlight === 0) for (const wake of this.waiting.splice(0)) wake();
    });
    next();
  };

  /** Resolves once no request is in flight, or as soon as `handBack` is aborted (those still in flight are then left to finish on their own). */
  settled(handBack: AbortSignal): Promise<void> {
    if (this.inFlight === 0 || handBack.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        handBack.removeEventListener('abort', done);
        resolve();
      };
      this.waiting.push(done);
      handBack.addEventListener('abort', done, { once: true });
    });
  }
}
