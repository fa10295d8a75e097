/** A time as the console shows it everywhere (format.ts's `when`: the viewer's zone, named), machine-readable in its datetime. */
import { when } from '../format';

export function Time({ at }: { at: string | null | undefined }) {
  if (!at) return <>–</>;
  return (
    <time dateTime={at} class="time">
      {when(at)}
    </time>
  );
}
