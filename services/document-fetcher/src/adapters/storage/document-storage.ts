/*
 * Where documents are kept: one small interface, two adapters (local-directory-storage.ts, the
 * default; s3-storage.ts). Keys are content-addressed: the same bytes are stored once.
 */

/** A retrieved body in the spool (spool.ts): a local file, with what was computed on the way in. */
export interface SpooledDocument {
  /** The spool file holding the body. */
  path: string;
  /** Hex SHA-256 of the body. */
  sha256: string;
  sizeBytes: number;
  /** The source's Content-Type, when it sent one. */
  contentType: string | null;
}

/** A document as stored. */
export interface StoredDocument {
  /** Where it is: file:///… or s3://bucket/key. */
  uri: string;
  sha256: string;
  sizeBytes: number;
  contentType: string | null;
  /** False when an object with the same content was already there (nothing was written). */
  written: boolean;
}

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
