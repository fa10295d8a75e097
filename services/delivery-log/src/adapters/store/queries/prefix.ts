/*
 * A case-insensitive prefix search on a text column: `lower(column) like '<prefix>%'`, with the
 * prefix's own % _ and \ taken literally, so an exact value still finds itself and only what
 * starts with it. Migration 0013 gives each searched column a lower(column) text_pattern_ops index.
 */
import { sql, type RawBuilder } from 'kysely';

/** The LIKE pattern of values starting with `prefix`, whatever their case. */
export function prefixPattern(prefix: string): string {
  return `${prefix.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** `lower(column) like prefix%` (column: a column name of the query's table). */
export function startsWith(column: string, prefix: string): RawBuilder<boolean> {
  return sql<boolean>`lower(${sql.ref(column)}) like ${prefixPattern(prefix)}`;
}
