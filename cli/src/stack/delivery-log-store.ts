/*
 * The delivery log's embedded store (PGlite) that `hookstream start` keeps beside the stack's state
 * (docs/delivery-log.md). It is wiped with the stack: a log kept across a wiped Kafka holds rows of
 * records that no longer exist, and (before it told topics apart by their ids) skipped the new
 * records that reused their positions.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { defaultStateDir } from './state-dir';

/**
 * Where the delivery log of the stack in `stateDir` keeps its store: DELIVERY_LOG_DATA_DIR when set,
 * else `delivery-log` beside the default state dir. Undefined for another state dir without that
 * setting: `hookstream start` runs only on the default one, so no log belongs to it.
 */
export function deliveryLogDataDir(stateDir: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.DELIVERY_LOG_DATA_DIR) return path.resolve(env.DELIVERY_LOG_DATA_DIR);
  const standard = defaultStateDir(env);
  return path.resolve(stateDir) === standard ? path.join(path.dirname(standard), 'delivery-log') : undefined;
}

/**
 * Why `stack wipe` must not delete `dir`, or undefined when it may: absent, empty, or a PostgreSQL
 * data folder (PGlite's holds PG_VERSION). Guards against a mistyped DELIVERY_LOG_DATA_DIR.
 */
export function deliveryLogWipeRefusal(dir: string): string | undefined {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    if (code === 'ENOTDIR') return `${dir} (the delivery log's store) is not a folder`;
    throw error;
  }
  if (entries.length === 0 || entries.includes('PG_VERSION')) return undefined;
  return `${dir} does not look like the delivery log's store (no PG_VERSION in it): not deleting it or the stack`;
}
