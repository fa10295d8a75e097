/**
 * Resolves after `ms`, or at once when `signal` is aborted (the projection stopping: a failed batch
 * is given up, not waited for). It leaves no listener on `signal`: the projection pauses on one
 * signal after every failed batch for as long as it runs, and a listener per pause would pile up
 * through a store outage (Node warns past 10 and keeps every one until the signal is dropped).
 */
export function retryPause(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const end = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', end);
      resolve();
    };
    const timer = setTimeout(end, ms);
    signal.addEventListener('abort', end, { once: true });
  });
}
