/*
 * The spool: where a body is written while it is retrieved, before its SHA-256 (and so its key) is
 * known. A file is named at random, removed once stored or failed, and one a killed process left
 * behind is swept at the next start: nothing half-written ever sits under a content key.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, readdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '@hookstream/runtime';

const SUFFIX = '.part';

export class Spool {
  constructor(
    readonly dir: string,
    private readonly logger: Logger,
  ) {}

  /** Creates the folder and removes files older than `olderThanMs` (a live retrieval would have touched its file since). */
  async open(olderThanMs: number, now = Date.now()): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    let swept = 0;
    for (const name of await readdir(this.dir)) {
      if (!name.endsWith(SUFFIX)) continue;
      const file = path.join(this.dir, name);
      const info = await stat(file).catch(() => undefined);
      if (info && now - info.mtimeMs > olderThanMs) {
        await rm(file, { force: true });
        swept += 1;
      }
    }
    if (swept > 0) this.logger.info({ swept, dir: this.dir }, 'spool files left by an earlier process removed');
  }

  /** A fresh file path in the spool (the file is not created). */
  newFile(): string {
    return path.join(this.dir, `${process.pid}-${randomUUID()}${SUFFIX}`);
  }

  /** Removes a spool file; absent is fine (it was stored by a rename). */
  async discard(file: string): Promise<void> {
    await rm(file, { force: true });
  }
}
