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
import { api } from '../api';
import { useApi } from '../use-api';

interface Page<T> {
  data: T[];
  next_cursor: string | null;
}

/** The pages loaded after the first, for the list address they were loaded from. */
interface Older<T> {
  url: string;
  items: T[];
  cursor: string | null;
}

export function usePages<T>(url: string, live?: (items: T[]) => boolean) {
  const [loaded, setLoaded] = useState<Older<T> | undefined>(undefined);
  // Other filters are another list: its older pages start again from its first.
  const older = loaded?.url === url ? loaded : undefined;
  const first = useApi<Page<T>>(url, live && !older ? (page) => live(page.data) : undefined);
  const [error, setError] = useState<Error | undefined>(undefined);
  const cursor = older ? older.cursor : (first.data?.next_cursor ?? null);
  const items = [...(first.data?.data ?? []), ...(older?.items ?? [])];

  const loadMore = async () => {
    if (!cursor) return;
    try {
      const page = await api.get<Page<T>>(`${url}${url.includes('?') ? '&' : '?'}cursor=${encodeURIComponent(cursor)}`);
      // Appended only if no other click appended this page meanwhile.
      setLoaded((now) => {
        const kept = now?.url === url ? now : undefined;
        if ((kept ? kept.cursor : first.data?.next_cursor) !== cursor) return now;
        return { url, items: [...(kept?.items ?? []), ...page.data], cursor: page.next_cursor };
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
