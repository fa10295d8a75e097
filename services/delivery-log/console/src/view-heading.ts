/*
 * What a screen reader and the keyboard need when the view changes in place, without a page load:
 * the document's title names the new view, and focus moves to its heading (made focusable with
 * tabindex=-1), as a page load would start at the top, instead of staying on a link that is gone.
 * Not on the first view of a load: the browser has put focus at the page's start already. A view's
 * heading can come only with its data (a delivery's), so it is waited for.
 */
import { useEffect, useRef } from 'preact/hooks';

const APP_NAME = 'Hookstream console';

/**
 * Titles and focuses the view's h1 (under `root`) whenever `viewKey` changes; the h1's data-title,
 * when set, is its title. A null key (the page still finding out who is signed in) is no view yet.
 */
export function useViewHeading(viewKey: string | null, root: HTMLElement): void {
  const first = useRef(true);
  useEffect(() => {
    if (viewKey === null) return;
    const moveFocus = !first.current;
    first.current = false;
    const settle = (): boolean => {
      const heading = root.querySelector('h1');
      if (!heading) return false;
      const name = (heading.dataset['title'] ?? heading.textContent ?? '').trim();
      document.title = name && name !== APP_NAME ? `${name} · ${APP_NAME}` : APP_NAME;
      if (moveFocus) {
        heading.tabIndex = -1;
        heading.focus();
      }
      return true;
    };
    if (settle()) return;
    const observer = new MutationObserver(() => {
      if (settle()) observer.disconnect();
    });
    observer.observe(root, { childList: true, subtree: true });
    return () => observer.disconnect();
  }, [viewKey, root]);
}
