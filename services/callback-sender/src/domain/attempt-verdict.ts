/**
 * What a partner's circuit learns from one attempt:
 * - success: the partner took the callback (HTTP 200);
 * - failure: evidence that the partner is down or hanging, so that attempting more now is wasted
 *   or holds slots for nothing;
 * - inconclusive: no evidence either way; the circuit counts nothing.
 */
export type AttemptVerdict = 'success' | 'failure' | 'inconclusive';

/** The parts of one attempt's outcome (domain/deliver-callback's DeliveryOutcome) that the verdict reads. */
export type JudgedAttempt =
  | { kind: 'delivered' }
  /** httpStatus null: no answer (timeout, refused or reset connection, DNS, TLS, token endpoint down). */
  | { kind: 'failed'; httpStatus: number | null; latencyMs: number | null }
  /** A configuration problem (unknown or disabled partner, SSRF-refused URL, unusable auth). */
  | { kind: 'undeliverable' };

/**
 * The verdict on attempt number `attempt` (1 = the event's first) of one callback. An error the
 * partner answered quickly is cheap for the sender, and a partner may well refuse a first
 * delivery it takes on the retry (busy, not yet consistent, deduplicating): the retry tiers are
 * there for exactly that, and a circuit opened on it held a flaky partner's every event back for
 * minutes. So such an answer to a first attempt proves nothing; to a retry it is a failure (the
 * partner refused this very event before: retrying is not helping). No answer at all (a timeout
 * or a refused connection), or an error answered only after `slowAnswerMs`, is a failure
 * whatever the attempt: that is the partner the circuit protects the others from.
 */
export function attemptVerdict(outcome: JudgedAttempt, attempt: number, slowAnswerMs: number): AttemptVerdict {
  switch (outcome.kind) {
    case 'delivered':
      return 'success';
    case 'undeliverable':
      return 'inconclusive';
    case 'failed': {
      if (outcome.httpStatus === null) return 'failure';
      if ((outcome.latencyMs ?? 0) >= slowAnswerMs) return 'failure';
      return attempt >= 2 ? 'failure' : 'inconclusive';
    }
  }
}
