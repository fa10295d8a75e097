/*
 * A list's table, or what stands in for it: "Loading…" while its first page is asked for (never an
 * empty table that looks like "none"), the empty note once it answered none, and the table once
 * there are rows. A failure is shown above it by the view (Failure).
 */
import type { ComponentChildren } from 'preact';

export function ListState(props: {
  loading: boolean;
  /** The list could not be read (the view shows why): neither "Loading" nor "none". */
  failed?: boolean;
  count: number;
  what: string;
  empty: string;
  children: ComponentChildren;
}) {
  if (props.count > 0) return <>{props.children}</>;
  if (props.failed) return null;
  if (props.loading)
    return (
      <p class="loading" role="status" aria-live="polite">
        <span class="spinner" aria-hidden="true" />
        Loading {props.what}…
      </p>
    );
  return <p class="empty">{props.empty}</p>;
}
