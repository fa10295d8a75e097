/*
 * Asking again on a timer, only while someone can see the answer: a tab in the background (or a
 * laptop's lid closed) stops asking, and asks once at once when it is looked at again, since what
 * it shows may be old by then.
 */
import { useEffect, useRef, useState } from 'preact/hooks';

/** Whether the page is on screen (document.visibilityState), following its changes. */
export function usePageVisible(): boolean {
  const [visible, setVisible] = useState(() => document.visibilityState === 'visible');
  useEffect(() => {
    const changed = () => setVisible(document.visibilityState === 'visible');
    document.addEventListener('visibilitychange', changed);
    return () => document.removeEventListener('visibilitychange', changed);
  }, []);
  return visible;
}

/** Calls `tick` (keep it stable: a new one restarts the timer) every `intervalMs` while `active` and the page is visible; once more at once when it comes back into view. */
export function usePoll(tick: () => unknown, intervalMs: number, active: boolean): void {
  const visible = usePageVisible();
  const missed = useRef(false);
  useEffect(() => {
    if (!active) return;
    if (!visible) {
      missed.current = true;
      return;
    }
    if (missed.current) {
      missed.current = false;
      void tick();
    }
    const timer = setInterval(() => void tick(), intervalMs);
    return () => clearInterval(timer);
  }, [active, visible, tick, intervalMs]);
}
