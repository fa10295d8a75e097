/*
 * A case-insensitive prefix search on a text column: `lower(column) like '<prefix>%'`, with the
 * prefix's own % _ and \ taken literally, so an exact value still finds itself and only what
 * starts with it. Migration 0013 gives each searched column a lower(column) text_pattern_ops index.
 */
import { sql, type RawBuilder } from 'kysely';

/** The LIKE pattern of values starting with `prefix` (its case as given: startsWith lowers both sides). */
export function prefixPattern(prefix: string): string {
  return `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * `lower(column) like lower(prefix%)` (column: a column name of the query's table). Both sides are
 * lowered by PostgreSQL, under the database's own collation: JavaScript's toLowerCase differs from
 * it beyond ASCII (and under LC_CTYPE=C PostgreSQL lowers ASCII only), and an exact value must find
 * itself whatever its letters.
 */
export function startsWith(column: string, prefix: string): RawBuilder<boolean> {
  return sql<boolean>`lower(${sql.ref(column)}) like lower(${prefixPattern(prefix)})`;
}
