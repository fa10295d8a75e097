/* What became of one callback record: the use case's answer (send-callback.ts), written by adapters/kafka/disposition-writer.ts. */
import type { RequestHeaders } from './deliver-callback';

/**
 * Where one callback record goes after it was handled. responseExcerpt: the start of the partner's
 * answer to the attempt made (domain/deliver-callback), null when none was made or answered;
 * requestHeaders: the headers of the request made (secret-bearing values redacted), null when none was.
 */
export type Disposition =
  | { kind: 'delivered'; attempt: number; httpStatus: number; latencyMs: number; responseExcerpt: string; requestHeaders: RequestHeaders }
  /** Back into a retry tier: after a failed attempt, or without one while the partner's circuit is open. */
  | {
      kind: 'retry';
      tier: number;
      dueAt: number;
      /** Attempts made so far (a skipped attempt does not count). */
      attempts: number;
      skipped: boolean;
      /** Skips since the last attempt, this one included (0 after a failed attempt). */
      skips: number;
      httpStatus: number | null;
      errorClass: string | null;
      lastError: string | null;
      latencyMs: number | null;
      responseExcerpt: string | null;
      requestHeaders: RequestHeaders | null;
    }
  | {
      kind: 'dead-letter';
      attempts: number;
      httpStatus: number | null;
      errorClass: string;
      reason: string;
      latencyMs: number | null;
      responseExcerpt: string | null;
      requestHeaders: RequestHeaders | null;
    }
  | { kind: 'superseded'; attempts: number }
  /**
   * The one attempt a retry now or a test makes, failed: only its outcome is written (no tier, no
   * dead letter; a retry now's delivery keeps the record already waiting in its tier).
   */
  | {
      kind: 'attempted';
      attempt: number;
      httpStatus: number | null;
      errorClass: string;
      latencyMs: number | null;
      responseExcerpt: string | null;
      requestHeaders: RequestHeaders | null;
    }
  /** A tier's record not sent: a retry now of its delivery was delivered after its last attempt (or its first wait). */
  | { kind: 'already-delivered'; attempts: number };
