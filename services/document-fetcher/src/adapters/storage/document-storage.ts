/*
 * Where documents are kept: one small interface, two adapters (local-directory-storage.ts, the
 * default; s3-storage.ts). Keys are content-addressed: the same bytes are stored once.
 */
import type { SpooledDocument, StoredDocument } from '../../domain/document';

export interface DocumentStorage {
  /** `local` or `s3`: logs and metrics. */
  readonly kind: string;
  /** Where spool files go: on the same file system as the store for the local adapter, so that storing is a rename. */
  readonly spoolDir: string;
  /**
   * Stores the spooled body under its content address, unless that object exists. Whole or not
   * at all: an object appears under its key only once complete. Throws when the store is
   * unavailable (the record is then read again; see DocumentRecords).
   */
  store(document: SpooledDocument): Promise<StoredDocument>;
  /** Throws when the store cannot be used (readiness, start-up). */
  check(): Promise<void>;
  close(): Promise<void>;
}

/** The content address of a body: `<2 hex>/<64 hex>`, so that no folder holds millions of files. */
export function contentKey(sha256: string): string {
  if (!/^[0-9a-f]{64}$/.test(sha256)) throw new Error(`not a hex SHA-256: ${sha256}`);
  return `${sha256.slice(0, 2)}/${sha256}`;
}
