/*
 * A partner recovers: resends every dead-lettered delivery of its own since a time (optionally of
 * one endpoint). First a dry run, which says how many there are, how many the hourly limit of
 * resends lets through now, and which are not resent and why; then, confirmed, the resend itself,
 * and what it did. Changing the time or the endpoint drops the dry run: only what was dry-run is
 * offered. While either runs, a line says what is being done and for how long: the resend is
 * paced (a hundred take about ten seconds), and a spinner alone looked stuck.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { client } from '../api';
import { recover, type RecoverRequest, type RecoveryAnswer } from '../api/operator-views';
import { Failure, Section } from '../components/basics';
import { BulkOutcomes } from '../components/bulk-outcomes';
import { BusyButton } from '../components/busy-button';
import { useConfirm } from '../components/confirm';
import { fieldNotes, fieldProblemsOf, RefusalBanner } from '../components/field-problems';
import { useFocusProblem } from '../components/focus-problem';
import { TYPED_TIME, isoOf, typedTime, when, zoneName } from '../format';
import { link } from '../router';
import { useApi } from '../use-api';

const REASONS: Record<string, string> = {
  superseded: 'superseded: a newer status of the policy was delivered first',
  already_resent: 'already resent',
  resent_too_often: 'resent the most times allowed',
  hourly_limit: 'beyond your resends left this hour',
  cannot_resend: 'cannot be resent',
};

export function RecoverPage() {
  const endpoints = useApi(() => client.GET('/api/portal/v1/endpoints'), []);
  const [since, setSince] = useState(() => typedTime(new Date(Date.now() - 24 * 3600_000)));
  const [endpoint, setEndpoint] = useState('');
  const [reason, setReason] = useState('');
  const [plan, setPlan] = useState<{ request: RecoverRequest; answer: RecoveryAnswer } | undefined>(undefined);
  const [result, setResult] = useState<RecoveryAnswer | undefined>(undefined);
  const [failure, setFailure] = useState<Error | undefined>(undefined);
  const [busy, setBusy] = useState<'dry-run' | 'resend' | undefined>(undefined);
  const form = useRef<HTMLDivElement>(null);
  const placement = fieldProblemsOf(failure, ['since', 'endpoint_id', 'reason']);
  const notes = fieldNotes(placement);
  const confirm = useConfirm();
  const elapsed = useElapsedSeconds(busy !== undefined);
  // A refused field gets the focus, its problem beside it.
  useFocusProblem(failure, form);
  // Other choices are another recovery: its dry run comes first again.
  useEffect(() => setPlan(undefined), [since, endpoint]);

  const attempt = async (what: 'dry-run' | 'resend', work: () => Promise<void>) => {
    if (busy) return;
    setBusy(what);
    setFailure(undefined);
    try {
      await work();
    } catch (e) {
      setFailure(e as Error);
    } finally {
      setBusy(undefined);
    }
  };
  const dryRun = (event: Event) => {
    event.preventDefault();
    void attempt('dry-run', async () => {
      setResult(undefined);
      const request: RecoverRequest = { since: isoOf(since) ?? since, dry_run: true, ...(endpoint ? { endpoint_id: endpoint } : {}) };
      setPlan({ request, answer: await recover(request) });
    });
  };
  const willResend = plan?.answer.resent.length ?? 0;
  const resend = async (done: { request: RecoverRequest; answer: { until: string } }) => {
    const yes = await confirm.ask({
      title: `Resend ${willResend} ${willResend === 1 ? 'delivery' : 'deliveries'}?`,
      body: (
        <p>
          Each is sent to your endpoint again from its first attempt, as the dry run listed, and counts against your resends of the hour. It
          cannot be undone.
        </p>
      ),
      action: `Resend ${willResend}`,
    });
    if (!yes) return;
    await attempt('resend', async () => {
      // Bounded by the dry run's own end: what was dead-lettered after it was not in the count confirmed.
      const request = { ...done.request, until: done.answer.until, dry_run: false };
      setResult(await recover({ ...request, ...(reason.trim() ? { reason: reason.trim() } : {}) }));
      setPlan(undefined);
    });
  };
  return (
    <div class="recover" ref={form}>
      <h1>Recover dead letters</h1>
      <p class="lead">
        Resend every delivery of yours that was dead-lettered since a time, as a resend of each would: what was superseded or resent too
        often is not sent again, and each one resent counts against your resends of the hour. A dry run first shows what would happen.
      </p>
      <Failure error={endpoints.error} />
      <form class="inline-form" onSubmit={dryRun} aria-label="What to recover">
        <label>
          <span>Dead-lettered since (your time, {zoneName(-new Date().getTimezoneOffset())})</span>
          <input
            type="text"
            name="since"
            required
            inputMode="numeric"
            placeholder={TYPED_TIME.placeholder}
            pattern={TYPED_TIME.pattern}
            value={since}
            onInput={(e) => setSince(e.currentTarget.value)}
            {...notes.described('since')}
          />
          {notes.problem('since')}
        </label>
        <label>
          <span>Endpoint</span>
          <select
            name="endpoint_id"
            value={endpoint}
            onChange={(e) => setEndpoint(e.currentTarget.value)}
            {...notes.described('endpoint_id')}
          >
            <option value="">every endpoint</option>
            {endpoints.data?.data.endpoints.map((e) => (
              <option key={e.endpoint_id} value={e.endpoint_id}>
                {e.endpoint_id} {e.url ? `(${e.url})` : ''}
              </option>
            ))}
          </select>
          {notes.problem('endpoint_id')}
        </label>
        <BusyButton busy={busy === 'dry-run'} disabled={busy !== undefined} busyLabel="Asking…">
          Dry run
        </BusyButton>
      </form>
      {confirm.dialog}
      <RefusalBanner failure={failure} placement={placement} />
      {busy && (
        <p class="muted" role="status">
          {busy === 'dry-run'
            ? 'Looking through your dead letters…'
            : `Resending ${willResend} ${willResend === 1 ? 'delivery' : 'deliveries'}, a few a second…`}
          {elapsed > 0 ? ` ${elapsed} s` : ''}
        </p>
      )}
      {plan && (
        <Section title="Dry run">
          <p role="status">
            {plan.answer.selected === 0
              ? `Nothing dead-lettered since ${when(plan.request.since)}.`
              : `${plan.answer.selected} dead-lettered since ${when(plan.request.since)}${plan.answer.more ? ' (the oldest of more)' : ''}: ` +
                `${willResend} would be resent now, ${plan.answer.not_resent.length} not. You have ${plan.answer.resends_left_this_hour} resends left this hour.`}
          </p>
          <Outcomes answer={plan.answer} />
          {willResend > 0 && (
            <form
              class="inline-form"
              onSubmit={(event) => {
                event.preventDefault();
                void resend(plan);
              }}
            >
              <label>
                <span>Reason (optional, for the audit trail)</span>
                <input name="reason" value={reason} onInput={(e) => setReason(e.currentTarget.value)} maxLength={500} />
              </label>
              <BusyButton busy={busy === 'resend'} disabled={busy !== undefined} busyLabel="Resending…">
                Resend {willResend}
              </BusyButton>
            </form>
          )}
        </Section>
      )}
      {result && (
        <div class="ok" role="status">
          <p>
            {result.resent.length} resent
            {result.not_resent.length > 0 ? `, ${result.not_resent.length} not resent` : ''}.{' '}
            <a href={link('deliveries')}>Your deliveries</a> show them as they are sent.
          </p>
          <Outcomes answer={result} />
        </div>
      )}
    </div>
  );
}

/** Whole seconds since `running` became true (0 while it is not). */
function useElapsedSeconds(running: boolean): number {
  const [seconds, setSeconds] = useState(0);
  useEffect(() => {
    setSeconds(0);
    if (!running) return;
    const started = Date.now();
    const timer = setInterval(() => setSeconds(Math.floor((Date.now() - started) / 1000)), 1000);
    return () => clearInterval(timer);
  }, [running]);
  return seconds;
}

function Outcomes({ answer }: { answer: RecoveryAnswer }) {
  return (
    <BulkOutcomes
      done={answer.resent}
      doneWords={answer.dry_run ? 'would resend' : 'resent'}
      detail={(r) => `to ${r.endpoint_id}, dead-lettered ${when(r.dead_lettered_at)}`}
      skipped={answer.not_resent}
      skippedWords="not resent"
      reasons={REASONS}
    />
  );
}
