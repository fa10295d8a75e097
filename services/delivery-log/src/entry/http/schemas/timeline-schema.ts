/* A delivery's timeline as the delivery detail answers it (domain/delivery-timeline.ts). */
import { z } from 'zod';
import { TIMELINE_STEP_NAMES } from '../../../domain/delivery-timeline';

const timestamp = z.iso.datetime({ offset: true }).meta({ description: 'RFC 3339 date-time', example: '2026-11-25T10:00:00Z' });

export const TimelineStep = z
  .object({
    name: z.enum(TIMELINE_STEP_NAMES).meta({
      description:
        'published: the insurer’s system published the policy status; fanned_out: the delivery was made for this endpoint; ' +
        'attempt_sent / attempt_answered: a send and the answer (or failure) it got; waited_in_tier: the wait in retry tier `tier` until the retry was due; ' +
        'circuit_open: not sent, the endpoint’s circuit was open; delivered: the endpoint answered 200; dead_lettered: given up; ' +
        'superseded / already_delivered: not sent (a newer status went first / it was delivered already); retried_now: a retry now was asked for; ' +
        'replayed: re-queued from the dead letters (a resend or a replay)',
    }),
    at: timestamp,
    ms: z.number().int().nullable().meta({
      description: 'Milliseconds since the step before (what this step took); null for the first. Never negative: see clocks_disagree',
    }),
    attempt: z.number().int().nullable().meta({ description: 'The attempt it belongs to; null for steps of no attempt' }),
    tier: z
      .number()
      .int()
      .nullable()
      .meta({ description: 'The retry tier the attempt was read from, or the one waited in; null otherwise' }),
    clocks_disagree: z.boolean().meta({
      description:
        'Its time, by the clock of the machine that recorded it, is before the step before’s (recorded elsewhere): ms shows 0 instead of a negative gap',
    }),
  })
  .meta({ id: 'TimelineStep' });

/** What a delivery's detail adds for its timeline. */
export const timelineFields = {
  timeline: z.array(TimelineStep).meta({
    description:
      'Every step of the delivery in the order they followed one another, from the publish of the policy status to its last outcome',
  }),
  time_to_deliver_ms: z.number().int().nullable().meta({
    description: 'From its first step (the publish, when known) to its delivery, in ms; null until delivered',
  }),
};
