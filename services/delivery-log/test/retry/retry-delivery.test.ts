/**
 * Retry now's use case (domain/retry-delivery.ts) and a failing delivery's schedule left
 * (domain/retry-schedule.ts): only a failing delivery, the request rebuilt from the log's row with the
 * trigger RETRY_NOW and the attempts so far, one retry now in flight per delivery (its claim), the
 * partner's hourly place taken and the claim and place given back when nothing was written, the
 * audit's actor and action.
 */
import type { CallbackRequestValue } from '@hookstream/contract';
import type { Actor, AuditedChange } from '@hookstream/partners';
import { NotFoundError } from '@hookstream/errors';
import { DeliveryRetrier, type RetriableDelivery, type RetryStore } from '../../src/domain/retry-delivery';
import { retryScheduleOf } from '../../src/domain/retry-schedule';

const failing: RetriableDelivery = {
  delivery_id: 'd-1',
  partner_id: 'acme',
  endpoint_id: 'main',
  event_id: 'e-1',
  policy_number: 'POL-1',
  policy_version: 4,
  policy_status: 'POLICY_ACTIVE',
  body: '{"policy_number":"POL-1"}',
  created_at: new Date('2026-11-25T10:00:00Z'),
  state: 'failing',
  attempt_count: 3,
};
const partner: Actor = { type: 'partner', id: 'acme', name: 'partner:acme' };

const IN_FLIGHT_MS = 40_000;

function setup(delivery: RetriableDelivery | undefined, places = 1, writeFails = false) {
  const written: Array<{ request: CallbackRequestValue; attempts: number; actor: Actor; change: AuditedChange }> = [];
  const released: string[] = [];
  const claims = new Map<string, { claimId: string; claimedAt: Date; expiresAt: Date; attemptsBefore: number }>();
  let taken = 0;
  const store: RetryStore = {
    // As retry-now-claims.ts, with no outcome ever coming: a claim holds until it expires.
    claim: (id, attemptsBefore, now, expiresAt) => {
      const held = claims.get(id);
      if (held && held.expiresAt > now) return Promise.resolve({ claimed: false, claimedAt: held.claimedAt, expiresAt: held.expiresAt });
      const claimId = `c-${claims.size + 1}-${now.getTime()}`;
      claims.set(id, { claimId, claimedAt: now, expiresAt, attemptsBefore });
      return Promise.resolve({ claimed: true, claimId });
    },
    releaseClaim: (claimId) => {
      released.push(claimId);
      for (const [id, held] of claims) if (held.claimId === claimId) claims.delete(id);
      return Promise.resolve();
    },
    deliveryOf: (id, partnerId) =>
      Promise.resolve(
        delivery && delivery.delivery_id === id && (partnerId === undefined || partnerId === delivery.partner_id) ? delivery : undefined,
      ),
    reserve: () =>
      Promise.resolve(taken < places ? { reserved: true, reservationId: `r-${++taken}` } : { reserved: false, retryAfterSeconds: 1200 }),
    release: (id) => {
      released.push(id);
      return Promise.resolve();
    },
  };
  const retrier = new DeliveryRetrier(
    store,
    {
      write: (request, attempts, actor, change) => {
        if (writeFails) return Promise.reject(new Error('Kafka away'));
        written.push({ request, attempts, actor, change });
        return Promise.resolve('audit-1');
      },
    },
    60,
    () => IN_FLIGHT_MS,
  );
  return { retrier, written, released, claims };
}

describe('retry now', () => {
  test('a failing delivery is asked for again under its own id: its request rebuilt from the log, RETRY_NOW, audited', async () => {
    const { retrier, written } = setup(failing);
    expect(await retrier.retry(partner, 'acme', 'd-1', 'endpoint fixed')).toEqual({ delivery_id: 'd-1', retry_id: 'audit-1' });
    expect(written).toEqual([
      {
        request: {
          delivery_id: 'd-1',
          event_id: 'e-1',
          partner_id: 'acme',
          endpoint_id: 'main',
          policy_number: 'POL-1',
          policy_version: 4,
          policy_status: 'POLICY_ACTIVE',
          body: '{"policy_number":"POL-1"}',
          created_at: Date.parse('2026-11-25T10:00:00Z'),
          trigger: 'RETRY_NOW',
        },
        attempts: 3,
        actor: partner,
        change: expect.objectContaining({
          action: 'delivery.retry-now',
          subject: { type: 'partner', id: 'acme' },
          reason: 'endpoint fixed',
        }),
      },
    ]);
  });

  test.each([
    ['delivered', /only a failing delivery can be retried now; this one is delivered/],
    ['pending', /this one is pending/],
    ['dead_lettered', /dead-lettered: resend it instead/],
    ['superseded', /superseded: a newer status/],
  ] as const)('a delivery %s is refused with 409 and the reason, nothing written', async (state, reason) => {
    const { retrier, written } = setup({ ...failing, state });
    await expect(retrier.retry(partner, 'acme', 'd-1', 'x')).rejects.toMatchObject({
      httpStatus: 409,
      message: expect.stringMatching(reason),
    });
    expect(written).toEqual([]);
  });

  test("another partner's delivery answers 404 as an unknown one does; an operator reaches any", async () => {
    const { retrier } = setup(failing);
    await expect(retrier.retry({ type: 'partner', id: 'globex', name: 'partner:globex' }, 'globex', 'd-1', 'x')).rejects.toBeInstanceOf(
      NotFoundError,
    );
    await expect(retrier.retry(partner, 'acme', 'd-2', 'x')).rejects.toBeInstanceOf(NotFoundError);
    await expect(retrier.retry({ type: 'operator', id: 'op-1', name: 'Olga' }, undefined, 'd-1', 'x')).resolves.toMatchObject({
      delivery_id: 'd-1',
    });
  });

  test('past the hourly limit: 429 with when a place frees; a retry that was not written gives its place back', async () => {
    const limited = setup(failing, 0);
    await expect(limited.retrier.retry(partner, 'acme', 'd-1', 'x')).rejects.toMatchObject({ httpStatus: 429, retryAfterSeconds: 1200 });
    const failed = setup(failing, 1, true);
    await expect(failed.retrier.retry(partner, 'acme', 'd-1', 'x')).rejects.toThrow('Kafka away');
    expect(failed.released).toEqual(['r-1', expect.stringMatching(/^c-1-/)]);
    // The refused one gave its claim back too: a retry now after the hour is not held up by it.
    expect(limited.released).toEqual([expect.stringMatching(/^c-1-/)]);
    expect(limited.claims.size).toBe(0);
  });

  test('a second retry now while the first is in flight: 409 with the reason, nothing written, no place taken', async () => {
    const { retrier, written, claims } = setup(failing, 5);
    const at = new Date('2026-11-25T11:00:00Z');
    await retrier.retry(partner, 'acme', 'd-1', 'fixed', at);
    const second = new Date(at.getTime() + 50);
    await expect(retrier.retry(partner, 'acme', 'd-1', 'fixed', second)).rejects.toMatchObject({
      httpStatus: 409,
      message: expect.stringMatching(
        /a retry now of this delivery is in flight \(accepted at 2026-11-25T11:00:00.000Z\).+after 2026-11-25T11:00:40.000Z/,
      ),
    });
    expect(written).toHaveLength(1);
    // Claimed with the attempts so far: the retry's own outcome is numbered after them and ends the claim.
    expect(claims.get('d-1')).toMatchObject({ attemptsBefore: 3, expiresAt: new Date(at.getTime() + IN_FLIGHT_MS) });
    // A retry lost on its way blocks no one for ever.
    await expect(retrier.retry(partner, 'acme', 'd-1', 'fixed', new Date(at.getTime() + IN_FLIGHT_MS))).resolves.toMatchObject({
      delivery_id: 'd-1',
    });
  });

  test('a row the log has not read whole (no body yet) is refused: nothing half-made is sent', async () => {
    const { retrier } = setup({ ...failing, body: null });
    await expect(retrier.retry(partner, 'acme', 'd-1', 'x')).rejects.toMatchObject({ httpStatus: 409 });
  });
});

describe('the schedule left', () => {
  const DELAYS = [5_000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000, 10_800_000, 21_600_000];
  const next = new Date('2026-11-25T10:00:30Z');
  const attempt = (n: number, outcome: string, trigger: string | null, nextAt: Date | null) => ({
    attempt: n,
    outcome,
    trigger,
    next_attempt_at: nextAt,
  });

  test('after a failed second attempt: the third is next (from tier 2), then 6 more over the tiers after it', () => {
    const schedule = retryScheduleOf(
      {
        state: 'failing',
        next_attempt_at: next,
        attempts: [
          attempt(1, 'FAILED_ATTEMPT', null, new Date(0)),
          attempt(2, 'FAILED_ATTEMPT', null, next),
          attempt(3, 'FAILED_ATTEMPT', 'RETRY_NOW', null),
        ],
      },
      DELAYS,
    );
    expect(schedule).toEqual({
      next_attempt_at: next,
      next_attempt: 3,
      retries_left: 7,
      later_delays_ms: DELAYS.slice(2),
      ends_at: new Date(next.getTime() + DELAYS.slice(2).reduce((a, b) => a + b, 0)),
    });
  });

  test('a skip (circuit open) made no attempt: its number is still to come; nothing is scheduled unless failing', () => {
    expect(
      retryScheduleOf({ state: 'failing', next_attempt_at: next, attempts: [attempt(2, 'SKIPPED_CIRCUIT_OPEN', null, next)] }, DELAYS),
    ).toMatchObject({ next_attempt: 2, retries_left: 8 });
    expect(retryScheduleOf({ state: 'delivered', next_attempt_at: null, attempts: [] }, DELAYS)).toBeNull();
  });
});
