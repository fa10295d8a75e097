/*
 * How the fact writers put rows in: at most ROWS_PER_STATEMENT per INSERT, and one row per key
 * per statement (an upsert may not touch one row twice in a statement).
 */

/** Rows per INSERT: PostgreSQL takes at most 65,535 parameters in one statement. */
const ROWS_PER_STATEMENT = 500;

export async function insertChunked<T>(rows: T[], insert: (chunk: T[]) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT) await insert(rows.slice(i, i + ROWS_PER_STATEMENT));
}

/**
 * The last of each key in `items` (or the one `newer` prefers), in key order: two batches written
 * side by side then lock the rows they share in the same order, so they wait for each other rather
 * than deadlock.
 */
export function lastByKey<T>(items: T[], key: (item: T) => string, newer: (a: T, b: T) => boolean = () => true): T[] {
  const byKey = new Map<string, T>();
  for (const item of items) {
    const current = byKey.get(key(item));
    if (current === undefined || newer(item, current)) byKey.set(key(item), item);
  }
  return [...byKey.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, item]) => item);
}
