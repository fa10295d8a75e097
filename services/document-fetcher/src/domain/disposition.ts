/* What became of one retrieval: the use case's answer (fetch-document.ts), written by adapters/kafka/disposition-writer.ts. */
import type { StoredDocument } from './document';
import type { FetchFailure } from './fetch-failure';

export type DocumentDisposition =
  /** Retrieved and stored: a STORED record. */
  | { kind: 'stored'; attempts: number; document: StoredDocument; latencyMs: number }
  /** Failed for good at once (it cannot pass): a FAILED record, no retries. */
  | { kind: 'failed'; attempts: number; failure: FetchFailure; latencyMs: number }
  /** Failed, may pass: into a retry tier. */
  | { kind: 'retry'; attempts: number; failure: FetchFailure; tier: number; dueAt: number; latencyMs: number }
  /** Failed its last tier: a FAILED record and a dead letter, in one transaction. */
  | { kind: 'dead-letter'; attempts: number; failure: FetchFailure; latencyMs: number }
  /** Its record is already on partner-documents (a record read again): nothing to do. */
  | { kind: 'already-recorded' };
