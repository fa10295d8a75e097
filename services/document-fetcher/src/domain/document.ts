/* A document's body on its way: retrieved into the spool, then stored (adapters/storage). */

/** A retrieved body in the spool (adapters/storage/spool.ts): a local file, with what was computed on the way in. */
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
