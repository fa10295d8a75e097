/** How the console writes times, durations and rates. */

export function when(iso: string | null | undefined): string {
  if (!iso) return '–';
  const date = new Date(iso);
  // With its zone (timeStyle long): a time read aloud or pasted into a ticket is not ambiguous.
  return date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'long' });
}

export function ms(value: number | null | undefined): string {
  if (value === null || value === undefined) return '–';
  return value >= 1000 ? `${(value / 1000).toFixed(1)} s` : `${Math.round(value)} ms`;
}

export function percent(rate: number | null | undefined): string {
  return rate === null || rate === undefined ? '–' : `${(rate * 100).toFixed(rate === 1 || rate === 0 ? 0 : 1)} %`;
}

/** JSON text pretty-printed when it is JSON, else as it is. */
export function pretty(text: string | null | undefined): string {
  if (!text) return '';
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}
