/*
 * A delivery's timeline steps in words, by the API's step name (the glossary's kind step): the
 * delivery page shows "answered", not attempt_answered. A unit test fails when the OpenAPI document
 * names a step with no entry here (test/console/glossary.test.ts).
 */
export const TIMELINE_STEPS = {
  published: { words: 'published', meaning: 'The insurer’s policy system published the policy status (its own clock).' },
  fanned_out: { words: 'made for this endpoint', meaning: 'The status was turned into this delivery, one per subscribed endpoint.' },
  attempt_sent: {
    words: 'sent',
    meaning: 'A send to the endpoint started: the time it took since the step before is the wait to be sent.',
  },
  attempt_answered: {
    words: 'answered, failed',
    meaning: 'The send failed (an HTTP status other than 200, or no answer): the time it took is the send’s latency.',
  },
  waited_in_tier: {
    words: 'waited for its retry',
    meaning: 'The delivery waited in a retry tier until its retry was due (retry n: the tier it waited in).',
  },
  circuit_open: { words: 'paused, circuit open', meaning: 'Not sent: the endpoint’s circuit was open, so the send waits again.' },
  delivered: { words: 'delivered', meaning: 'The endpoint answered HTTP 200: the time it took is the send’s latency.' },
  dead_lettered: { words: 'dead lettered', meaning: 'The last try failed: the delivery was given up.' },
  superseded: { words: 'superseded', meaning: 'Not sent: a newer status of the policy reached the endpoint first.' },
  already_delivered: { words: 'already delivered', meaning: 'Not sent: a retry now had delivered it already.' },
  retried_now: { words: 'retry now asked', meaning: 'A partner or an operator asked for one more send now.' },
  replayed: { words: 'resent', meaning: 'Queued again from the dead letters (a partner’s resend or an operator’s replay).' },
} as const;
