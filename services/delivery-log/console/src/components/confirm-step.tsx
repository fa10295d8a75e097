/*
 * The last step before a write that cannot be taken back: says what will happen, and offers to do
 * it or not. The confirming button shows the request in flight and is disabled meanwhile.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';

export function ConfirmStep({
  children,
  confirm,
  busy,
  onConfirm,
  onCancel,
}: {
  children: ComponentChildren;
  /** The confirming button's words: what it does. */
  confirm: string;
  busy: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const first = useRef<HTMLButtonElement>(null);
  // The question gets the focus, so a keyboard or a screen reader meets it at once.
  useEffect(() => first.current?.focus(), []);
  return (
    <div class="confirm" role="alertdialog" aria-label="Confirm" aria-describedby="confirm-question">
      <div id="confirm-question">{children}</div>
      <button type="button" ref={first} disabled={busy} aria-busy={busy} onClick={onConfirm}>
        {busy ? `${confirm}…` : confirm}
      </button>{' '}
      <button type="button" class="secondary" disabled={busy} onClick={onCancel}>
        Cancel
      </button>
    </div>
  );
}
