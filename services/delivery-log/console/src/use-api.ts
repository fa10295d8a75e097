/*
 * Loading an API answer into a view: the data, the failure, a reload, and polling while `live`
 * says the data is still moving (a delivery pending or retrying), so the view updates by itself.
 * Polling pauses while the page is hidden (poll.ts).
 *
 *   const { data } = useApi(() => client.GET('/api/portal/v1/deliveries/{deliveryId}', { params: { path: { deliveryId } } }), [deliveryId]);
 *
 * `deps` name what the call depends on (as for useEffect): when they change it is another answer,
 * loaded afresh. A null call loads nothing.
 */
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { read, type AnswerOf } from './api';
import { usePoll } from './poll';

/** How often a moving view asks again by default: retries happen seconds apart at the first tiers. */
export const LIVE_INTERVAL_MS = 3000;

/** A call of the typed client (api.ts's `client`). */
export type ApiCall<R> = () => Promise<R>;

export function useApi<R extends { data?: unknown; error?: unknown; response: Response }>(
  call: ApiCall<R> | null,
  deps: readonly unknown[],
  live?: (data: AnswerOf<R>) => boolean,
  intervalMs = LIVE_INTERVAL_MS,
) {
  type T = AnswerOf<R>;
  // What is loaded: the deps, as one comparable value (the call itself is a new function each render).
  const key = call ? JSON.stringify(deps) : null;
  const latestCall = useRef(call);
  latestCall.current = call;
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<Error | undefined>(undefined);
  const [loading, setLoading] = useState(call !== null);
  const current = useRef(key);
  current.current = key;
  // A poll's tick is skipped while a request of this view is unanswered (slow, or waiting out a 503
  // in api.ts), so ticks do not pile up; a load asked for (the first, a reload after a write) always
  // goes. Counted, not flagged: a reload made while a tick's request runs must not clear it early.
  const inFlight = useRef<{ key: string | null; count: number }>({ key: null, count: 0 });

  const load = useCallback(
    async (tick = false) => {
      const running = inFlight.current;
      const call = latestCall.current;
      if (key === null || !call || (tick && running.key === key && running.count > 0)) return;
      if (running.key !== key) inFlight.current = { key, count: 0 };
      const mine = inFlight.current;
      mine.count += 1;
      setLoading(true);
      try {
        const answer = await read(call);
        if (current.current === key) {
          setData(answer);
          setError(undefined);
        }
      } catch (failure) {
        if (current.current === key) setError(failure as Error);
      } finally {
        mine.count -= 1;
        if (current.current === key) setLoading(mine.count > 0);
      }
    },
    [key],
  );
  const pollTick = useCallback(() => load(true), [load]);
  const reload = useCallback(() => load(), [load]);

  useEffect(() => {
    setData(undefined);
    void load();
  }, [load]);

  const moving = data !== undefined && live !== undefined && live(data);
  usePoll(pollTick, intervalMs, moving);

  // Nothing answered yet for what is asked: loading, even before the effect has started the request.
  const waiting = loading || (key !== null && data === undefined && error === undefined);
  return { data, error, loading: waiting, reload, live: moving };
}
