/*
 * The sender of operational notifications (docs/notifications.md): every replica claims the
 * notifications due (the store hands each to one claimer: FOR UPDATE SKIP LOCKED, then a lease),
 * signs each with the partner's signing secret as its callbacks are signed, and POSTs it to the
 * partner's notification URL through the SSRF-guarded dispatcher. Only an answer of 200 delivers
 * it (the contract's rule for callbacks, spec 5.3); anything else is tried again after the next
 * delay of the schedule, and once the schedule is spent the notification is given up.
 */
import { DeliveryHeaders } from '@hookstream/contract';
import type { Partner } from '@hookstream/partners';
import type { NotificationType } from './notification-events';

/** The headers that sign `body` for `partner`, or undefined when it has no signing secret to sign with. */
export type NotificationSigner = (partner: Partner, input: { id: string; body: string; now: Date }) => Record<string, string> | undefined;

/**
 * POSTs a notification: the answer's status, or why there was none (timed out, refused …); `final`
 * when trying again cannot help (the SSRF guard refuses the address).
 */
export type NotificationPost = (
  url: string,
  headers: Record<string, string>,
  body: string,
) => Promise<{ status: number } | { error: string; final?: boolean }>;

/** A notification claimed for one attempt. */
export interface DueNotification {
  notificationId: string;
  partnerId: string;
  type: NotificationType;
  body: string;
  /** This attempt's number (1 for the first). */
  attempt: number;
  /** The partner's notification URL now (a changed URL takes effect at the next attempt). */
  url: string;
}

export type AttemptOutcome =
  | { state: 'delivered'; httpStatus: number }
  | { state: 'pending'; httpStatus: number | null; error: string; nextAttemptAt: Date }
  | { state: 'given_up'; httpStatus: number | null; error: string };

/** What the sender needs of the store (adapters/store/notification-outbox.ts). */
export interface NotificationSending {
  /** Up to `limit` notifications due at `now`, each leased to this caller for `leaseMs` (another claimer skips it meanwhile). */
  claimDue(now: Date, limit: number, leaseMs: number): Promise<DueNotification[]>;
  settle(notificationId: string, outcome: AttemptOutcome, at: Date): Promise<void>;
}

export interface SenderDeps {
  sending: NotificationSending;
  /** The partner directory: `ready` once it has read partner-config up to where it ended at start. */
  partners: { readonly ready: boolean; get(partnerId: string): Partner | undefined };
  sign: NotificationSigner;
  post: NotificationPost;
  /** The waits after each failed attempt; a notification is given up after retryDelaysMs.length + 1 attempts. */
  retryDelaysMs: readonly number[];
  /** Counts each attempt's outcome (delivered, failed: to be tried again, given_up). */
  counted: (type: NotificationType, outcome: 'delivered' | 'failed' | 'given_up') => void;
  now: () => Date;
}

/** Notifications claimed per pass. */
const BATCH = 20;

/** One pass: sends the notifications due now; returns how many it claimed (a full batch: there may be more). */
export async function sendDueNotifications(deps: SenderDeps, leaseMs: number): Promise<{ claimed: number; batch: number }> {
  // Not before the directory has loaded: a partner not read yet would look as if it had no
  // signing secret, and its notification would be given up (a replica's first seconds).
  if (!deps.partners.ready) return { claimed: 0, batch: BATCH };
  const due = await deps.sending.claimDue(deps.now(), BATCH, leaseMs);
  await Promise.all(due.map((notification) => sendOne(deps, notification)));
  return { claimed: due.length, batch: BATCH };
}

async function sendOne(deps: SenderDeps, notification: DueNotification): Promise<void> {
  const answer = await attempt(deps, notification);
  const at = deps.now();
  const lastAttempt = notification.attempt > deps.retryDelaysMs.length;
  let outcome: AttemptOutcome;
  if ('status' in answer && answer.status === 200) outcome = { state: 'delivered', httpStatus: 200 };
  else {
    const httpStatus = 'status' in answer ? answer.status : null;
    const error = 'status' in answer ? `answered ${answer.status}, not 200` : answer.error;
    outcome =
      lastAttempt || ('final' in answer && answer.final === true)
        ? { state: 'given_up', httpStatus, error }
        : { state: 'pending', httpStatus, error, nextAttemptAt: new Date(at.getTime() + deps.retryDelaysMs[notification.attempt - 1]!) };
  }
  await deps.sending.settle(notification.notificationId, outcome, at);
  deps.counted(notification.type, outcome.state === 'pending' ? 'failed' : outcome.state);
}

async function attempt(deps: SenderDeps, n: DueNotification): Promise<{ status: number } | { error: string; final?: boolean }> {
  const partner = deps.partners.get(n.partnerId);
  let signature: Record<string, string> | undefined;
  try {
    signature = partner && deps.sign(partner, { id: n.notificationId, body: n.body, now: deps.now() });
  } catch {
    // The secret does not decrypt: say so without a word of it.
    return { error: 'the signing secret could not be read', final: true };
  }
  if (!partner) return { error: 'the partner is no longer known', final: true };
  if (!signature) return { error: 'the partner has no signing secret (Standard Webhooks or HMAC_SHA256) to sign it with', final: true };
  const headers = {
    'content-type': 'application/json',
    ...signature,
    [DeliveryHeaders.deliveryId]: n.notificationId,
    [DeliveryHeaders.attempt]: String(n.attempt),
  };
  return deps.post(n.url, headers, n.body);
}
