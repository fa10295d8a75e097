/*
 * A list that pages by cursor: the first page loads (and reloads while `live` says it moves), and
 * "Load more" appends the next one.
 *
 * Once older pages are loaded the list stops updating by itself, and says so. Refreshing only the
 * first page would leave a gap or a repeat where it meets the pages loaded after its old last row
 * (new rows push old ones past it), and refreshing every loaded page would multiply each poll's
 * load; someone reading older rows wants them to stay put. `reload` goes back to the newest page,
 * which updates by itself again.
 */
import { useCallback, useState } from 'preact/hooks';
import { read } from '../api';
import { useApi } from '../use-api';

interface Page<T> {
  data: T[];
  next_cursor: string | null;
}

/** A call of the typed client for one page of a list: the first without a cursor. */
type PageCall<T> = (cursor: string | undefined) => Promise<{ data?: Page<T>; error?: unknown; response: Response }>;

/** The pages loaded after the first, for the list (its deps) they were loaded from. */
interface Older<T> {
  key: string;
  items: T[];
  cursor: string | null;
}

/**
 * A list by pages: `call(cursor)` asks the API for one page, `deps` name what the list depends on (its filters).
 *
 *   usePages((cursor) => client.GET('/api/admin/v1/audit', { params: { query: { ...filters, limit: 50, cursor } } }), [filters]);
 */
export function usePages<T>(call: PageCall<T>, deps: readonly unknown[], live?: (items: T[]) => boolean) {
  const key = JSON.stringify(deps);
  const [loaded, setLoaded] = useState<Older<T> | undefined>(undefined);
  // Other filters are another list: its older pages start again from its first.
  const older = loaded?.key === key ? loaded : undefined;
  const first = useApi(() => call(undefined), deps, live && !older ? (page) => live(page.data) : undefined);
  const firstPage = first.data;
  const [error, setError] = useState<Error | undefined>(undefined);
  const cursor = older ? older.cursor : (firstPage?.next_cursor ?? null);
  const items = [...(firstPage?.data ?? []), ...(older?.items ?? [])];

  const loadMore = async () => {
    if (!cursor) return;
    try {
      const page = await read(() => call(cursor));
      // Appended only if no other click appended this page meanwhile.
      setLoaded((now) => {
        const kept = now?.key === key ? now : undefined;
        if ((kept ? kept.cursor : firstPage?.next_cursor) !== cursor) return now;
        return { key, items: [...(kept?.items ?? []), ...page.data], cursor: page.next_cursor };
      });
    } catch (failure) {
      setError(failure as Error);
    }
  };
  const { reload: reloadFirst } = first;
  const reload = useCallback(() => {
    setLoaded(undefined);
    return reloadFirst();
  }, [reloadFirst]);

  return {
    items,
    error: first.error ?? error,
    loading: first.loading,
    live: first.live,
    /** Older pages are shown, so the list no longer updates by itself, though what it shows is still moving. */
    paused: older !== undefined && live !== undefined && live(items),
    hasMore: cursor !== null,
    loadMore,
    reload,
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

/** Says why a moving list stands still (older pages loaded) and offers its newest page, which updates again. */
export function PausedNote({ pages }: { pages: { paused: boolean; reload: () => Promise<void> } }) {
  if (!pages.paused) return null;
  return (
    <p class="live">
      Older pages are shown, so the list no longer updates by itself.{' '}
      <button type="button" class="secondary" onClick={() => void pages.reload()}>
        Show the newest
      </button>
    </p>
  );
}
