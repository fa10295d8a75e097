/*
 * A failing delivery's schedule and its "Retry now": when the next attempt is due (with its zone,
 * and how far off), how many retries are left and over how long; the button shows its request in
 * flight, then the page follows the delivery until the retry now's attempt is in the log, and says
 * what it came to (delivered, or failed with its HTTP status: the schedule goes on). Also how the
 * attempts timeline marks a retry now's attempt, a test's, and a retry that found the delivery done.
 */
import { retryNow } from '../api/retry-now';
import type { Schema, Session } from '../api';
import { Failure } from './basics';
import { glossaryHref } from './code';
import { BusyButton, useAction } from './busy-button';
import { Time } from './time';

type Delivery = Schema<'DeliveryDetail'>;
type Attempt = Delivery['attempts'][number];

/** How far off a moment is, in plain words: "in 4 min", "in 20 s", "due now". */
export function fromNow(iso: string, now = Date.now()): string {
  const s = Math.round((new Date(iso).getTime() - now) / 1000);
  if (s <= 0) return 'due now';
  if (s < 90) return `in ${s} s`;
  if (s < 90 * 60) return `in ${Math.round(s / 60)} min`;
  return `in ${(s / 3600).toFixed(1)} h`;
}

/** A span of milliseconds in plain words: "10 h 37 min", "2 min 30 s". */
export function span(msTotal: number): string {
  const s = Math.round(msTotal / 1000);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const rest = s % 60;
  if (h > 0) return m > 0 ? `${h} h ${m} min` : `${h} h`;
  if (m > 0) return rest > 0 ? `${m} min ${rest} s` : `${m} min`;
  return `${rest} s`;
}

/** What a retry now asked for became, from the attempts the page sees since it was asked. */
export function retryResult(attempts: readonly Attempt[], before: number): Attempt | undefined {
  // ALREADY_DELIVERED: the sender found the delivery delivered already (by a send the log had not shown yet) and sent nothing.
  const ends = ['DELIVERED', 'FAILED_ATTEMPT', 'ALREADY_DELIVERED'];
  return attempts.slice(before).find((a) => a.trigger === 'RETRY_NOW' && ends.includes(a.outcome));
}

export function RetrySchedule({ delivery }: { delivery: Delivery }) {
  const schedule = delivery.retry_schedule;
  if (!schedule) return null;
  const later = schedule.later_delays_ms.reduce((sum, d) => sum + d, 0);
  return (
    <p class="note" data-testid="retry-schedule">
      Next attempt at <Time at={schedule.next_attempt_at} /> ({fromNow(schedule.next_attempt_at)}); {schedule.retries_left}{' '}
      {schedule.retries_left === 1 ? 'retry' : 'retries'} left
      {later > 0 ? ` over ${span(later)} more` : ''}.
    </p>
  );
}

/**
 * The button, for a failing delivery: `onAsked` tells the page to follow the delivery from the
 * attempts it has now. A viewer (an operator who only reads) gets none.
 */
export function RetryNowButton({ session, delivery, onAsked }: { session: Session; delivery: Delivery; onAsked: () => void }) {
  const action = useAction();
  if (session.kind === 'operator' && session.role !== 'operator') return null;
  const ask = () =>
    void action.run(async () => {
      await retryNow(session, delivery.delivery_id);
      onAsked();
    });
  return (
    <div class="inline-form">
      <BusyButton type="button" busy={action.busy} busyLabel="Retrying…" onClick={ask}>
        Retry now
      </BusyButton>
      <Failure error={action.error} />
    </div>
  );
}

/** After a retry now: following it, or what it came to. */
export function RetryOutcome({ result }: { result: Attempt | undefined }) {
  if (!result)
    return (
      <p class="live" role="status" aria-live="polite">
        Retrying now: the attempt follows within seconds; this page follows it.
      </p>
    );
  if (result.outcome === 'DELIVERED')
    return (
      <p class="ok" role="status">
        Retried now: delivered (HTTP {result.http_status}).
      </p>
    );
  if (result.outcome === 'ALREADY_DELIVERED')
    return (
      <p class="ok" role="status">
        Not sent again: the delivery was delivered already.
      </p>
    );
  const why = result.http_status !== null ? `HTTP ${result.http_status}` : (result.error_class ?? 'no answer');
  return (
    <p class="failure" role="status">
      The retry now failed: {why}. The scheduled retries go on.
    </p>
  );
}

/** A test event's failed send: never retried, so not "failed, will retry". */
export function testFailed(attempt: Attempt): boolean {
  return attempt.trigger === 'TEST' && attempt.outcome === 'FAILED_ATTEMPT';
}

/** What the timeline says beside an attempt besides its outcome. */
export function AttemptNote({ attempt }: { attempt: Attempt }) {
  if (attempt.outcome === 'ALREADY_DELIVERED')
    return (
      <span class="muted">
        {attempt.trigger === 'RETRY_NOW' ? 'not sent: delivered already' : 'not sent: delivered already by a retry now'}
      </span>
    );
  if (attempt.trigger === 'RETRY_NOW')
    return (
      <a class="badge badge-neutral" href={glossaryHref('term', 'retry-now')}>
        retry now
      </a>
    );
  if (attempt.trigger === 'TEST')
    return (
      <a class="badge badge-neutral" href={glossaryHref('term', 'test-event')}>
        test
      </a>
    );
  return null;
}
