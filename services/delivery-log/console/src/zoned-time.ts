/** Times as the console shows them on the views across partners: the viewer's time with its zone, so a time read aloud or pasted is not ambiguous. */

export function zoned(iso: string | Date | null | undefined): string {
  if (!iso) return '–';
  const date = typeof iso === 'string' ? new Date(iso) : iso;
  return date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'long' });
}

/** The viewer's zone's name (Europe/Berlin), for a form asking for a time. */
export function viewerZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone;
}
