/*
 * A destructive action asked twice: the first click shows what will happen and two buttons, the
 * action's own (which shows its request in flight, disabled meanwhile) and Cancel.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';

export function ConfirmStep({
  title,
  children,
  confirm,
  busyLabel,
  busy,
  onConfirm,
  onCancel,
}: {
  title: string;
  children: ComponentChildren;
  confirm: string;
  busyLabel: string;
  busy: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const box = useRef<HTMLDivElement>(null);
  // The question takes the focus, so a keyboard or screen reader user meets it where it appears.
  useEffect(() => {
    box.current?.focus();
    box.current?.scrollIntoView({ block: 'nearest' });
  }, []);
  return (
    <div class="confirm" role="alertdialog" aria-label={title} tabIndex={-1} ref={box}>
      <p>
        <strong>{title}</strong>
      </p>
      {children}
      <p>
        <button type="button" class="danger" disabled={busy} aria-busy={busy} onClick={onConfirm}>
          {busy ? busyLabel : confirm}
        </button>{' '}
        <button type="button" class="secondary" disabled={busy} onClick={onCancel}>
          Cancel
        </button>
      </p>
    </div>
  );
}

/** A time with its zone (the reader's, named), so no one guesses which clock it is. */
export function withZone(iso: string | null | undefined): string {
  if (!iso) return '–';
  return new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'long' });
}
