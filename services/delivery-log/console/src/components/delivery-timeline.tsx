/*
 * A delivery's timeline (docs/console.md): every step from the publish of the policy status to its
 * last outcome, with when it happened and the time it took since the step before, and the total to
 * its delivery. An operator whose deployment names its trace store has "open the trace" beside it:
 * the same steps as spans, service by service.
 */
import type { Schema, Session } from '../api';
import { Section } from './basics';
import { Code } from './code';
import { Time } from './time';
import { Trace } from './trace';
import { ms } from '../format';

type Delivery = Schema<'DeliveryDetail'>;
type Step = Delivery['timeline'][number];

/** Why there is no total, for the states that end without a delivery (else "not yet"). */
const NOT_DELIVERED: Partial<Record<Delivery['state'], string>> = {
  dead_lettered: 'Not delivered: dead-lettered after its last retry.',
  superseded: 'Not delivered: a newer status of the policy was delivered first.',
};

export function DeliveryTimeline({ session, delivery: d }: { session: Session; delivery: Delivery }) {
  const startsAtPublish = d.timeline[0]?.name === 'published';
  return (
    <Section title="Timeline">
      <p>
        {d.time_to_deliver_ms !== null ? (
          <strong class="timeline-total">
            {startsAtPublish ? 'Published to delivered' : 'Made to delivered'}: {ms(d.time_to_deliver_ms)}
          </strong>
        ) : (
          <span class="muted">{NOT_DELIVERED[d.state] ?? 'Not delivered yet.'}</span>
        )}{' '}
        <span class="timeline-trace">
          Trace: <Trace session={session} traceId={d.trace_id} />
        </span>
      </p>
      {d.timeline.length === 0 ? (
        <p class="empty">No step recorded yet.</p>
      ) : (
        <div class="table-wrap">
          <table class="delivery-timeline">
            <thead>
              <tr>
                <th scope="col">Step</th>
                <th scope="col">When</th>
                <th scope="col">Took</th>
              </tr>
            </thead>
            <tbody>
              {d.timeline.map((step, i) => (
                <tr key={i}>
                  <td>
                    <Code kind="step" code={step.name} showCode={false} /> <StepNote step={step} />
                  </td>
                  <td>
                    <Time at={step.at} />
                  </td>
                  <td>
                    <Took step={step} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {!startsAtPublish && d.timeline.length > 0 && (
        <p class="note">The publish time is not known for this delivery (made before it was kept, or not from a policy status).</p>
      )}
    </Section>
  );
}

/** Which attempt, and which retry tier it came from or waited in. */
function StepNote({ step }: { step: Step }) {
  const parts = [
    ...(step.attempt !== null ? [`attempt ${step.attempt}`] : []),
    ...(step.tier !== null && step.tier > 0 ? [`retry ${step.tier}`] : []),
  ];
  return parts.length > 0 ? <span class="muted">({parts.join(', ')})</span> : null;
}

/** The time since the step before; 0 flagged where another machine's clock put it earlier. */
function Took({ step }: { step: Step }) {
  if (step.ms === null) return <>–</>;
  if (!step.clocks_disagree) return <>{ms(step.ms)}</>;
  return (
    <span title="Recorded by another machine whose clock is behind: its time is before the step before’s, so 0 is shown">
      {ms(step.ms)} <span class="badge badge-warn">clocks disagree</span>
    </span>
  );
}
