/*
 * A list that pages by cursor: the first page loads (and reloads while `live` says it moves), and
 * "Load more" appends the next one.
 */
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api';
import { useApi } from '../use-api';

interface Page<T> {
  data: T[];
  next_cursor: string | null;
}

export function usePages<T>(url: string, live?: (items: T[]) => boolean) {
  const first = useApi<Page<T>>(url, live ? (page) => live(page.data) : undefined);
  const [more, setMore] = useState<T[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [error, setError] = useState<Error | undefined>(undefined);
  useEffect(() => {
    setMore([]);
    setCursor(first.data?.next_cursor ?? null);
  }, [first.data]);
  const loadMore = async () => {
    if (!cursor) return;
    try {
      const page = await api.get<Page<T>>(`${url}${url.includes('?') ? '&' : '?'}cursor=${encodeURIComponent(cursor)}`);
      setMore((items) => [...items, ...page.data]);
      setCursor(page.next_cursor);
    } catch (failure) {
      setError(failure as Error);
    }
  };
  return {
    items: [...(first.data?.data ?? []), ...more],
    error: first.error ?? error,
    loading: first.loading,
    live: first.live,
    hasMore: cursor !== null,
    loadMore,
    reload: first.reload,
  };
}

export function LoadMore({ pages }: { pages: { hasMore: boolean; loadMore: () => Promise<void> } }) {
  if (!pages.hasMore) return null;
  return (
    <p>
      <button type="button" class="secondary" onClick={() => void pages.loadMore()}>
        Load more
      </button>
    </p>
  );
}
