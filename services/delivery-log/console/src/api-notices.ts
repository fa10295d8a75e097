/*
 * What the API calls of every view tell the page as a whole, beside their own answers: that the
 * session ended (a 401: it expired, or what it was opened with was revoked), and whether a read is
 * waiting for the service (a 503 being retried, unavailable.ts). The page (main.tsx) listens.
 */

/** Why a session ended: it expired or was revoked, or the insurer disabled the partner account. */
export type SessionEnd = 'ended' | 'partner_disabled';

export interface ApiListener {
  sessionEnded: (why: SessionEnd) => void;
  waitingChanged: (waiting: boolean) => void;
}

const listeners = new Set<ApiListener>();
let waitingReads = 0;

/** Listens until the returned function is called. */
export function listenToApi(listener: ApiListener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function announceSessionEnded(why: SessionEnd = 'ended'): void {
  for (const l of listeners) l.sessionEnded(why);
}

/** A read starts (+1) or stops (-1) waiting for the service; the page hears when the first starts and the last stops. */
export function countWaitingRead(change: 1 | -1): void {
  const before = waitingReads > 0;
  waitingReads = Math.max(0, waitingReads + change);
  if (before !== waitingReads > 0) for (const l of listeners) l.waitingChanged(waitingReads > 0);
}
