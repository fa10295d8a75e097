import { deliveryTimeline, timeToDeliver, type TimelineAttempt, type TimelineSources } from '../../src/domain/delivery-timeline';

const T0 = Date.parse('2026-11-29T10:00:00.000Z');
const at = (ms: number) => new Date(T0 + ms);

const attempt = (fields: Partial<TimelineAttempt> & Pick<TimelineAttempt, 'attempt' | 'outcome' | 'recorded_at'>): TimelineAttempt => ({
  tier: 0,
  latency_ms: null,
  trigger: null,
  next_attempt_at: null,
  ...fields,
});

const sources = (fields: Partial<TimelineSources>): TimelineSources => ({
  publishedAt: at(0),
  fannedOutAt: at(40),
  attempts: [],
  replayedAt: [],
  retriedNowAt: [],
  ...fields,
});

/** A delivery that failed once (to tier 1, due at +5 s), then was delivered from tier 1. */
const failedOnceThenDelivered = [
  attempt({ attempt: 1, outcome: 'FAILED_ATTEMPT', latency_ms: 120, recorded_at: at(200), next_attempt_at: at(5_200) }),
  attempt({ attempt: 2, tier: 1, outcome: 'DELIVERED', latency_ms: 30, recorded_at: at(5_300) }),
];

describe('a delivery’s timeline', () => {
  test('when a delivery failed once then was delivered, then its steps follow in order with the time each took', () => {
    const steps = deliveryTimeline(sources({ attempts: failedOnceThenDelivered }));

    expect(steps.map((s) => [s.name, s.at.getTime() - T0, s.ms, s.attempt, s.tier])).toEqual([
      ['published', 0, null, null, null],
      ['fanned_out', 40, 40, null, null],
      ['attempt_sent', 80, 40, 1, 0],
      ['attempt_answered', 200, 120, 1, 0],
      ['waited_in_tier', 5_200, 5_000, null, 1],
      ['attempt_sent', 5_270, 70, 2, 1],
      ['delivered', 5_300, 30, 2, 1],
    ]);
    expect(steps.some((s) => s.clocks_disagree)).toBe(false);
    expect(timeToDeliver(steps)).toBe(5_300);
  });

  test('when the publish time is not known, then the timeline starts at the fan-out and the total from there', () => {
    const steps = deliveryTimeline(sources({ publishedAt: null, attempts: failedOnceThenDelivered }));

    expect(steps[0]).toMatchObject({ name: 'fanned_out', ms: null });
    expect(steps.map((s) => s.name)).not.toContain('published');
    expect(timeToDeliver(steps)).toBe(5_300 - 40);
  });

  test('when the core system’s clock is ahead of the fan-out’s, then the gap shows 0 and is flagged, never negative', () => {
    const steps = deliveryTimeline(sources({ publishedAt: at(1_000), attempts: failedOnceThenDelivered }));

    expect(steps[1]).toMatchObject({ name: 'fanned_out', ms: 0, clocks_disagree: true });
    expect(steps.every((s) => s.ms === null || s.ms >= 0)).toBe(true);
    expect(timeToDeliver(steps)).toBe(4_300);
  });

  test('when nothing is known yet, then the timeline is empty and there is no total', () => {
    const steps = deliveryTimeline(sources({ publishedAt: null, fannedOutAt: null }));

    expect(steps).toEqual([]);
    expect(timeToDeliver(steps)).toBeNull();
  });

  test('when a retry now was asked during a wait, then it comes where it happened and the tier’s wait still shows', () => {
    const steps = deliveryTimeline(
      sources({
        attempts: [
          failedOnceThenDelivered[0]!,
          attempt({ attempt: 2, outcome: 'DELIVERED', trigger: 'RETRY_NOW', latency_ms: 20, recorded_at: at(1_020) }),
          attempt({ attempt: 3, tier: 1, outcome: 'ALREADY_DELIVERED', recorded_at: at(5_210) }),
        ],
        retriedNowAt: [at(900)],
      }),
    );

    expect(steps.map((s) => s.name)).toEqual([
      'published',
      'fanned_out',
      'attempt_sent',
      'attempt_answered',
      'retried_now',
      'attempt_sent',
      'delivered',
      'waited_in_tier',
      'already_delivered',
    ]);
    expect(steps[4]).toMatchObject({ ms: 700 });
  });

  test('when the last retry failed and an operator replayed it, then the dead-lettering and the replay come before the new first send', () => {
    const steps = deliveryTimeline(
      sources({
        attempts: [
          attempt({ attempt: 1, outcome: 'FAILED_ATTEMPT', latency_ms: 100, recorded_at: at(200) }),
          attempt({ attempt: 1, outcome: 'DEAD_LETTERED', recorded_at: at(200) }),
          attempt({ attempt: 1, outcome: 'DELIVERED', latency_ms: 50, recorded_at: at(60_100) }),
        ],
        replayedAt: [at(60_000)],
      }),
    );

    expect(steps.slice(2).map((s) => [s.name, s.at.getTime() - T0])).toEqual([
      ['attempt_sent', 100],
      ['attempt_answered', 200],
      ['dead_lettered', 200],
      ['replayed', 60_000],
      ['attempt_sent', 60_050],
      ['delivered', 60_100],
    ]);
  });
});
