/*
 * Reads a request's query string or body through its zod schema (schemas.ts): the typed value,
 * or a 400 whose message names every field at fault, as the webhook's does.
 */
import type { z } from 'zod';
import { decodeCursor } from '../../adapters/store/queries/page';
import { MAX_ID_LENGTH } from '../../adapters/store/storable-values';
import { invalidInput } from './refusals';

export function parseInput<S extends z.ZodType>(schema: S, input: unknown, where: 'query' | 'body'): z.infer<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const problems = result.error.issues.flatMap((issue) => {
    if (issue.code === 'unrecognized_keys' && issue.keys.length > 0) {
      return issue.keys.map((key) => ({ field: [...issue.path, key].join('.'), message: 'is not a known parameter' }));
    }
    return [{ field: issue.path.length > 0 ? issue.path.join('.') : `(${where})`, message: issue.message }];
  });
  throw invalidInput(where, problems);
}

/** A path parameter that can be an id at all (anything longer or stranger is no id of ours: 404). */
export function idParam(value: string | undefined): string | undefined {
  return value !== undefined && value.length > 0 && value.length <= MAX_ID_LENGTH ? value : undefined;
}

/** Paging and time range of a list query, as the queries take them. */
export function pageFilter(query: { cursor?: string | undefined; limit: number; from?: string | undefined; to?: string | undefined }) {
  return {
    limit: query.limit,
    ...(query.cursor ? { cursor: decodeCursor(query.cursor)! } : {}),
    ...(query.from ? { from: new Date(query.from) } : {}),
    ...(query.to ? { to: new Date(query.to) } : {}),
  };
}
