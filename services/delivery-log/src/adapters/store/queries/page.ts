/*
 * Keyset pagination of the log's lists: newest first, by time then id, with an opaque cursor that
 * names the last row of a page. Stable while rows are added (a new row sorts before the cursor).
 */
import { isStorableTime, MAX_ID_LENGTH } from '../storable-values';

/** Where a page ends: the time and id of its last row. */
export interface PageCursor {
  at: Date;
  id: string;
}

export interface Page<T> {
  items: T[];
  /** Pass as `cursor` for the next page; null on the last one. */
  nextCursor: string | null;
}

export function encodeCursor(cursor: PageCursor): string {
  return Buffer.from(JSON.stringify([cursor.at.toISOString(), cursor.id])).toString('base64url');
}

/**
 * The cursor `text` names, or null when it is not one of ours (the caller refuses it as a bad field):
 * a forged one naming a time or an id the store cannot hold would otherwise reach the query.
 */
export function decodeCursor(text: string): PageCursor | null {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
    if (!Array.isArray(parsed) || parsed.length !== 2 || typeof parsed[0] !== 'string' || typeof parsed[1] !== 'string') return null;
    const [time, id] = parsed as [string, string];
    const at = new Date(time);
    const storable = isStorableTime(at) && id.length <= MAX_ID_LENGTH;
    return storable ? { at, id } : null;
  } catch {
    return null;
  }
}

/** A page from rows fetched with limit + 1: the extra row says there is a next page. */
export function pageOf<T>(rows: T[], limit: number, cursorOf: (row: T) => PageCursor): Page<T> {
  const items = rows.slice(0, limit);
  const last = items.at(-1);
  return { items, nextCursor: rows.length > limit && last ? encodeCursor(cursorOf(last)) : null };
}
