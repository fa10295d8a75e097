/** Resolves after `ms` milliseconds. */
export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Settles like `promise`, or rejects with `new Error(message)` after `ms`; the timer never outlives the race. */
export async function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Resolves after `ms`, or rejects with the signal's reason as soon as it is aborted. */
export function sleepUnlessAborted(ms: number, signal: AbortSignal): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  return untilAborted(new Promise<void>((resolve) => (timer = setTimeout(resolve, ms))), signal).finally(() => clearTimeout(timer));
}

/** Settles like `work`, or rejects with the signal's reason as soon as it is aborted (`work` is then left to itself). */
export function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    void work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
