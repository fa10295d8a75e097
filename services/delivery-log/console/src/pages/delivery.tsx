/*
 * One delivery: what it is now, its timeline from the publish to its last outcome, every attempt
 * (tier, HTTP status, latency, error, the start of the partner's answer), the body exactly as
 * sent, how to verify its signature, and a resend (a partner's own) or a replay (an operator's) of a dead-lettered one, with the reason
 * when it is refused.
 */
import { useState } from 'preact/hooks';
import { client, write, type Schema, type Session } from '../api';
import { Badge, Facts, Failure, Section } from '../components/basics';
import { BusyButton, useAction } from '../components/busy-button';
import { Code, glossaryHref } from '../components/code';
import { useConfirm } from '../components/confirm';
import { Trace } from '../components/trace';
import { DeliveryTimeline } from '../components/delivery-timeline';
import { Verification } from '../components/verification';
import { attemptWords, ms, pretty, when } from '../format';
import { link } from '../router';
import { LIVE_INTERVAL_MS, useApi } from '../use-api';
import { PolicyVersion } from './deliveries';
import { AttemptNote, RetryNowButton, RetryOutcome, RetrySchedule, retryResult, testFailed } from '../components/retry-now';

type Delivery = Schema<'DeliveryDetail'>;

export function DeliveryPage({ session, deliveryId }: { session: Session; deliveryId: string }) {
  // After a resend the delivery is followed until it moves on from what it was then (the log learns of it within a second or so).
  const [resentFrom, setResentFrom] = useState<{ attempts: number } | undefined>(undefined);
  // After a retry now, the attempts there were then: it is followed closely until its own attempt is in (retry-now.tsx).
  const [retriedFrom, setRetriedFrom] = useState<number | undefined>(undefined);
  const following = (d: Delivery) => retriedFrom !== undefined && retryResult(d.attempts, retriedFrom) === undefined;
  const { data, error, reload, live } = useApi(
    () =>
      session.kind === 'partner'
        ? client.GET('/api/portal/v1/deliveries/{deliveryId}', { params: { path: { deliveryId } } })
        : client.GET('/api/admin/v1/deliveries/{deliveryId}', { params: { path: { deliveryId } } }),
    [session.kind, deliveryId],
    (d) =>
      d.data.state === 'pending' ||
      d.data.state === 'failing' ||
      following(d.data) ||
      (resentFrom !== undefined && d.data.attempts.length <= resentFrom.attempts),
    retriedFrom !== undefined ? 500 : LIVE_INTERVAL_MS,
  );
  if (error) return <Failure error={error} />;
  if (!data) return <p role="status">Loading the delivery…</p>;
  const d = data.data;
  // Resent, and the log has not seen it move yet: shown as queued, never as the dead letter it was (with its Resend again).
  const queued = resentFrom !== undefined && d.state === 'dead_lettered' && d.attempts.length <= resentFrom.attempts;
  return (
    <>
      <h1>
        Delivery of {d.policy_number} <PolicyVersion version={d.policy_version} />{' '}
        {queued ? <Badge kind="state" value="pending" label="queued again" /> : <Badge kind="state" value={d.state} />}
        {d.test && <span class="badge badge-neutral">test event</span>}
      </h1>
      {live && (
        <p class="live" aria-live="polite">
          Updating while the delivery is in progress…
        </p>
      )}
      <Section title="Summary">
        <Facts
          rows={[
            ['Delivery id', <code>{d.delivery_id}</code>],
            ['Partner', d.partner_id],
            ['Endpoint', d.endpoint_id],
            ['Status sent', d.policy_status],
            [
              'Policy',
              <a
                href={`${link('deliveries')}?policy_number=${encodeURIComponent(d.policy_number)}${session.kind === 'operator' ? `&partner_id=${encodeURIComponent(d.partner_id)}` : ''}`}
              >
                every status of {d.policy_number} sent
              </a>,
            ],
            ['Created', when(d.created_at)],
            ['Sends', d.attempt_count],
            ['Last HTTP status', d.last_http_status ?? '–'],
            ['Last error', <Code kind="error-class" code={d.last_error_class} />],
            ['Dead-lettered', when(d.dead_lettered_at)],
            ['Resent', `${d.replay_count} times`],
          ]}
        />
        <RetrySchedule delivery={d} />
        {d.state === 'failing' && !following(d) && (
          <RetryNowButton
            session={session}
            delivery={d}
            onAsked={() => {
              setRetriedFrom(d.attempts.length);
              void reload();
            }}
          />
        )}
        {retriedFrom !== undefined && <RetryOutcome result={retryResult(d.attempts, retriedFrom)} />}
        {d.state === 'dead_lettered' && !queued && (
          <Resend
            session={session}
            delivery={d}
            onDone={() => {
              setResentFrom({ attempts: d.attempts.length });
              void reload();
            }}
          />
        )}
        {resentFrom && (
          <p class="ok" role="status">
            Queued: it is sent again from attempt 1 within seconds; this page follows it.
          </p>
        )}
        {d.state === 'superseded' && (
          <p class="note">Not sent, and it cannot be resent: a newer status of this policy reached the endpoint first.</p>
        )}
      </Section>
      <DeliveryTimeline session={session} delivery={d} />
      <Section title="Attempts">
        <ol class="timeline">
          {d.attempts.map((a, i) => (
            <li key={i}>
              <div class="timeline-head">
                <Badge kind="outcome" value={a.outcome} label={testFailed(a) ? 'failed, not retried' : undefined} />{' '}
                <strong>attempt {a.attempt}</strong>{' '}
                {/* A retry now or a test is read from no tier: its own mark says what it was (AttemptNote). */}
                {a.trigger === null && (
                  <>
                    <a class="muted" href={glossaryHref('term', 'retry')}>
                      {attemptWords(a)}
                    </a>{' '}
                  </>
                )}
                <time dateTime={a.recorded_at}>{when(a.recorded_at)}</time> <AttemptNote attempt={a} />
              </div>
              <Facts
                rows={[
                  ['HTTP status', a.http_status ?? '–'],
                  ['Latency', ms(a.latency_ms)],
                  ['Error', <Code kind="error-class" code={a.error_class} />],
                  // A retry now or a resend is a trace of its own; the scheduled attempts go on in the delivery's.
                  ...(a.trace_id !== null && a.trace_id !== d.trace_id
                    ? [['Trace', <Trace session={session} traceId={a.trace_id} />] satisfies [string, unknown]]
                    : []),
                ]}
              />
              {a.response_excerpt !== null && a.response_excerpt !== '' && (
                <details>
                  <summary>Answer (first 1,024 bytes)</summary>
                  <pre>{pretty(a.response_excerpt)}</pre>
                </details>
              )}
            </li>
          ))}
        </ol>
        {d.attempts.length === 0 && <p class="empty">Not tried yet.</p>}
      </Section>
      <Section title="Body as sent">
        <pre class="body">{pretty(d.body) || '(not read yet)'}</pre>
      </Section>
      <Verification delivery={d} />
      {d.replays.length > 0 && (
        <Section title="Resends and replays">
          <ul>
            {d.replays.map((r) => (
              <li key={r.replay_id}>
                {when(r.replayed_at)}: {r.outcome} by {r.operator} — “{r.reason}”{r.detail ? ` (${r.detail})` : ''}
              </li>
            ))}
          </ul>
        </Section>
      )}
    </>
  );
}

function Resend({ session, delivery, onDone }: { session: Session; delivery: Delivery; onDone: () => void }) {
  const [reason, setReason] = useState('');
  const action = useAction();
  const confirm = useConfirm();
  const viewer = session.kind === 'operator' && session.role !== 'operator';
  const partner = session.kind === 'partner';
  const submit = async (event: Event) => {
    event.preventDefault();
    if (action.busy) return;
    // An operator's replay re-queues a partner's callback on its behalf: asked first.
    if (
      !partner &&
      !(await confirm.ask({
        title: `Replay the delivery of ${delivery.policy_number}?`,
        body: (
          <p>
            It is sent to {delivery.partner_id}’s endpoint {delivery.endpoint_id} again from the first try, and audited with your reason.
          </p>
        ),
        action: 'Replay',
        danger: false,
      }))
    )
      return;
    await action.run(async () => {
      if (partner) {
        await write(
          client.POST('/api/portal/v1/deliveries/{deliveryId}/resend', {
            params: { path: { deliveryId: delivery.delivery_id } },
            body: reason ? { reason } : {},
          }),
        );
      } else {
        await write(
          client.POST('/api/admin/v1/dead-letters/replay', {
            body: { topic: 'callback', delivery_id: [delivery.delivery_id], dry_run: false, reason: reason || 'replayed from the console' },
          }),
        );
      }
      onDone();
    });
  };
  if (viewer) return null;
  return (
    <form class="inline-form" onSubmit={submit}>
      {confirm.dialog}
      <label>
        <span>Reason (for the audit trail)</span>
        <input name="reason" value={reason} onInput={(e) => setReason(e.currentTarget.value)} placeholder="endpoint fixed" />
      </label>
      <BusyButton busy={action.busy} busyLabel={partner ? 'Resending…' : 'Replaying…'}>
        {partner ? 'Resend' : 'Replay'}
      </BusyButton>
      <Failure error={action.error} />
    </form>
  );
}
