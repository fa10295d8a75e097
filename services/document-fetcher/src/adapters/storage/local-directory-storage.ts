/*
 * The local-directory store (the default: `npm start` needs no other server). An object is
 * `<dir>/<2 hex>/<sha256>`; the spool is `<dir>/.incoming`, on the same file system, so storing is
 * one rename: atomic, so a kill leaves either the whole object or none under its key.
 */
import { access, link, mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { SpooledDocument, StoredDocument } from '../../domain/document';
import { contentKey, type DocumentStorage } from './document-storage';

export class LocalDirectoryStorage implements DocumentStorage {
  readonly kind = 'local';
  readonly spoolDir: string;
  private readonly dir: string;

  constructor(dir: string) {
    this.dir = path.resolve(dir);
    this.spoolDir = path.join(this.dir, '.incoming');
  }

  async store(document: SpooledDocument): Promise<StoredDocument> {
    const target = path.join(this.dir, contentKey(document.sha256));
    await mkdir(path.dirname(target), { recursive: true });
    let written: boolean;
    try {
      // link() fails when the key exists, where rename() would replace it: the first copy stays, and
      // a replica storing the same bytes at the same moment cannot swap the file under a reader.
      written = await link(document.path, target).then(
        () => true,
        (error: NodeJS.ErrnoException) => {
          if (error.code === 'EEXIST') return false;
          throw error;
        },
      );
    } finally {
      await rm(document.path, { force: true });
    }
    const { sha256, sizeBytes, contentType } = document;
    return { uri: pathToFileURL(target).href, sha256, sizeBytes, contentType, written };
  }

  async check(): Promise<void> {
    await mkdir(this.spoolDir, { recursive: true });
    await access(this.spoolDir);
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
