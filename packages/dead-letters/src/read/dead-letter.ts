/*
 * A dead letter as `hookstream dlq` shows it, whichever topic it comes from: one view model that
 * the filters, the replay plan and the output work on. Each dead-letter topic's adapter
 * (callback-letters.ts, policy-status-letters.ts) decodes its records into it.
 */

/** A record as read from a dead-letter topic, before decoding. */
export interface DlqRecord {
  partition: number;
  offset: string;
  /** The record's Kafka timestamp (epoch ms): when it was dead-lettered. */
  timestamp: number;
  key: Buffer | null;
  value: Buffer | null;
  /** Every header, each value as the bytes written. */
  headers: Record<string, Buffer>;
}

export interface DeadLetter {
  /** Logical name of the topic it was read from: callback-dlq, policy-status-dlq. */
  source: string;
  partition: number;
  offset: string;
  deadLetteredAt: number;
  /** Why the record (or the original event it carries) cannot be decoded; null when it can. */
  undecodable: string | null;
  /** Why a replay cannot re-queue it (undecodable, the original not carried); null when it can. */
  unreplayable: string | null;
  partnerId: string | null;
  policyNumber: string | null;
  policyStatus: string | null;
  policyVersion: number | null;
  eventId: string | null;
  deliveryId: string | null;
  endpointId: string | null;
  /** Attempts made before it was dead-lettered (callbacks). */
  attempts: number | null;
  /** The partner's last HTTP answer, when the last failure was one. */
  lastHttpStatus: number | null;
  /** Why it was dead-lettered: HTTP_STATUS, TIMEOUT, CIRCUIT_OPEN, UNKNOWN_PARTNER, DECODE_ERROR … */
  errorClass: string | null;
  /** The failure class of its last attempt, where that differs from why it was dead-lettered (HTTP_STATUS before an open circuit). */
  lastAttemptErrorClass: string | null;
  /** Why it was dead-lettered, in words. */
  reason: string | null;
  /** Replays so far, as the record itself says (the header a replayed delivery carries). */
  replayCount: number;
  /** When the delivery was built or the event occurred (epoch ms). */
  createdAt: number | null;
}

/** A dead letter where it lies, before its value is read: nothing known of it yet. */
export function letterAt(source: string, record: DlqRecord): DeadLetter {
  return {
    source,
    partition: record.partition,
    offset: record.offset,
    deadLetteredAt: record.timestamp,
    undecodable: null,
    unreplayable: null,
    partnerId: null,
    policyNumber: record.key?.toString('utf8') ?? null,
    policyStatus: null,
    policyVersion: null,
    eventId: null,
    deliveryId: null,
    endpointId: null,
    attempts: null,
    lastHttpStatus: null,
    errorClass: null,
    lastAttemptErrorClass: null,
    reason: null,
    replayCount: 0,
    createdAt: null,
  };
}

/** The same dead letter, marked as one whose value cannot be decoded (so it cannot be replayed either). */
export function undecodable(letter: DeadLetter, why: string): DeadLetter {
  return { ...letter, undecodable: why, unreplayable: `it cannot be decoded (${why}): see \`hookstream dlq export --raw\`` };
}

/** `partition:offset`, as the commands print and take them. */
export function coordinatesOf(letter: Pick<DeadLetter, 'partition' | 'offset'>): string {
  return `${letter.partition}:${letter.offset}`;
}
