/*
 * Loading an API answer into a view: the data, the failure, a reload, and polling while `live`
 * says the data is still moving (a delivery pending or retrying), so the view updates by itself.
 */
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { api } from './api';

/** How often a moving view asks again: retries happen seconds apart at the first tiers. */
export const LIVE_INTERVAL_MS = 3000;

export function useApi<T>(url: string | null, live?: (data: T) => boolean) {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<Error | undefined>(undefined);
  const [loading, setLoading] = useState(false);
  const current = useRef(url);
  current.current = url;

  const load = useCallback(async () => {
    if (!url) return;
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
      setLoading(false);
    }
  }, [url]);

  useEffect(() => {
    setData(undefined);
    void load();
  }, [load]);

  const moving = data !== undefined && live !== undefined && live(data);
  useEffect(() => {
    if (!moving) return;
    const timer = setInterval(() => void load(), LIVE_INTERVAL_MS);
    return () => clearInterval(timer);
  }, [moving, load]);

  return { data, error, loading, reload: load, live: moving };
}
