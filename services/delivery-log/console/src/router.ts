/*
 * The console's routes live in the URL's fragment (/console/#/deliveries/abc?status=failing), so
 * the server serves one page and a link to any view can be shared or bookmarked.
 */
import { useEffect, useState } from 'preact/hooks';

export interface Route {
  /** The path segments: ['deliveries', 'abc']. */
  segments: string[];
  params: URLSearchParams;
}

function routeOf(hash: string): Route {
  const [path = '', search = ''] = hash.replace(/^#\/?/, '').split('?', 2);
  return { segments: path.split('/').filter(Boolean).map(decodeURIComponent), params: new URLSearchParams(search) };
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => routeOf(location.hash));
  useEffect(() => {
    const changed = () => setRoute(routeOf(location.hash));
    addEventListener('hashchange', changed);
    return () => removeEventListener('hashchange', changed);
  }, []);
  return route;
}

/** The href of a view: `link('deliveries', id)` → "#/deliveries/<id>". */
export function link(...segments: string[]): string {
  return `#/${segments.map(encodeURIComponent).join('/')}`;
}

/** Goes to a view without adding a history entry (the one replaced is not to be gone back to). */
export function replaceRoute(...segments: string[]): void {
  history.replaceState(null, '', link(...segments));
  dispatchEvent(new HashChangeEvent('hashchange'));
}

/** Replaces the current view's query parameters (filters) without adding a history entry per keystroke. */
export function setParams(segments: string[], params: Record<string, string | undefined>): void {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value) search.set(name, value);
  const text = search.toString();
  history.replaceState(null, '', `${link(...segments)}${text ? `?${text}` : ''}`);
  dispatchEvent(new HashChangeEvent('hashchange'));
}
