/*
 * A refused form brings its problem to the person: once the refusal is shown, the first input at
 * fault (aria-invalid, with its note beside it) is scrolled to the middle of the view and focused,
 * so a screen reader reads the input with its note; when no input is at fault, the banner above the
 * form (role=alert) is. Without this the banner could appear far above the view while focus stays on
 * the submit button below.
 */
import type { RefObject } from 'preact';
import { useEffect } from 'preact/hooks';

export function useFocusProblem(failure: Error | undefined, form: RefObject<HTMLElement | null>): void {
  useEffect(() => {
    if (!failure || !form.current) return;
    const target =
      form.current.querySelector<HTMLElement>('[aria-invalid="true"]') ?? form.current.querySelector<HTMLElement>('[role="alert"]');
    if (!target) return;
    if (target.tabIndex < 0 && !target.matches('input, select, textarea, button')) target.tabIndex = -1;
    target.scrollIntoView({ block: 'center' });
    target.focus({ preventScroll: true });
  }, [failure]);
}
