import type { DeadLetter } from '../src/read/dead-letter';

/** A decoded callback dead letter for unit tests; `overrides` change what a test is about. */
export function deadLetter(overrides: Partial<DeadLetter> = {}): DeadLetter {
  return {
    source: 'callback-dlq',
    partition: 0,
    offset: '10',
    deadLetteredAt: Date.parse('2026-11-23T08:00:00Z'),
    undecodable: null,
    unreplayable: null,
    partnerId: 'acme',
    policyNumber: 'POL-1',
    policyStatus: 'POLICY_ACTIVE',
    policyVersion: 1,
    eventId: 'event-1',
    deliveryId: 'delivery-1',
    endpointId: 'ep-1',
    attempts: 9,
    lastHttpStatus: 500,
    errorClass: 'HTTP_STATUS',
    lastAttemptErrorClass: 'HTTP_STATUS',
    reason: '9 attempts failed; the last: HTTP 500',
    replayCount: 0,
    createdAt: Date.parse('2026-11-23T07:00:00Z'),
    ...overrides,
  };
}
