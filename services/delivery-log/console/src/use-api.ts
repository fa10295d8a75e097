/*
 * Loading an API answer into a view: the data, the failure, a reload, and polling while `live`
 * says the data is still moving (a delivery pending or retrying), so the view updates by itself.
 * Polling pauses while the page is hidden (poll.ts).
 */
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { api } from './api';
import { usePoll } from './poll';

/** How often a moving view asks again by default: retries happen seconds apart at the first tiers. */
export const LIVE_INTERVAL_MS = 3000;

export function useApi<T>(url: string | null, live?: (data: T) => boolean, intervalMs = LIVE_INTERVAL_MS) {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<Error | undefined>(undefined);
  const [loading, setLoading] = useState(false);
  const current = useRef(url);
  current.current = url;
  // A poll's tick is skipped while a request of this view is unanswered (slow, or waiting out a 503
  // in api.ts), so ticks do not pile up; a load asked for (the first, a reload after a write) always
  // goes. Counted, not flagged: a reload made while a tick's request runs must not clear it early.
  const inFlight = useRef<{ url: string | null; count: number }>({ url: null, count: 0 });

  const load = useCallback(
    async (tick = false) => {
      const running = inFlight.current;
      if (!url || (tick && running.url === url && running.count > 0)) return;
      if (running.url !== url) inFlight.current = { url, count: 0 };
      const mine = inFlight.current;
      mine.count += 1;
      setLoading(true);
      try {
        const answer = await api.get<T>(url);
        if (current.current === url) {
          setData(answer);
          setError(undefined);
        }
      } catch (failure) {
        if (current.current === url) setError(failure as Error);
      } finally {
        mine.count -= 1;
        setLoading(false);
      }
    },
    [url],
  );
  const pollTick = useCallback(() => load(true), [load]);
  const reload = useCallback(() => load(), [load]);

  useEffect(() => {
    setData(undefined);
    void load();
  }, [load]);

  const moving = data !== undefined && live !== undefined && live(data);
  usePoll(pollTick, intervalMs, moving);

  return { data, error, loading, reload, live: moving };
}
