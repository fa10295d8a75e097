/*
 * A partner retries every failing delivery of one of its endpoints now (POST …/retry-failing):
 * a dry run first, saying how many are failing and how many the hour's places let through; then,
 * confirmed, the retries themselves, and the outcome in words ("3 retried, 1 not retried"), each
 * one not retried with why. Choosing another endpoint drops the dry run.
 */
import { useEffect, useState } from 'preact/hooks';
import { retryFailing, type FailingRetry } from '../api/retry-now';
import { Failure, Section } from '../components/basics';
import { BulkOutcomes } from '../components/bulk-outcomes';
import { BusyButton } from '../components/busy-button';
import { useConfirm } from '../components/confirm';
import { endpointLabel, when } from '../format';
import { link } from '../router';

const REASONS: Record<string, string> = {
  in_flight: 'a retry now of it is already under way',
  not_failing: 'no longer failing (delivered, superseded or dead-lettered)',
  hourly_limit: 'beyond your resends and retries now left this hour',
};

const deliveries = (n: number) => `${n} ${n === 1 ? 'delivery' : 'deliveries'}`;

export function RetryFailing({ endpoints }: { endpoints: Array<{ endpoint_id: string; name?: string | null }> }) {
  const [endpoint, setEndpoint] = useState(endpoints[0]?.endpoint_id ?? '');
  const [plan, setPlan] = useState<FailingRetry | undefined>(undefined);
  const [result, setResult] = useState<FailingRetry | undefined>(undefined);
  const [busy, setBusy] = useState<'dry-run' | 'retry' | undefined>(undefined);
  const [failure, setFailure] = useState<Error | undefined>(undefined);
  const confirm = useConfirm();
  useEffect(() => setPlan(undefined), [endpoint]);

  const attempt = async (what: 'dry-run' | 'retry', work: () => Promise<void>) => {
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
  const willRetry = plan?.retried.length ?? 0;
  const retry = async () => {
    const yes = await confirm.ask({
      title: `Retry ${deliveries(willRetry)} now?`,
      body: <p>Each is sent to your endpoint once more now, and each counts against your resends and retries now of the hour.</p>,
      action: `Retry ${willRetry}`,
    });
    if (!yes) return;
    await attempt('retry', async () => {
      setResult(await retryFailing(endpoint, false));
      setPlan(undefined);
    });
  };
  return (
    <Section title="Retry failing deliveries">
      {confirm.dialog}
      <p>
        Once an endpoint is fixed, send every delivery still failing to it once more now, instead of waiting for their next retries. A dry
        run first shows how many.
      </p>
      <form
        class="inline-form"
        aria-label="Which endpoint’s failing deliveries"
        onSubmit={(event) => {
          event.preventDefault();
          void attempt('dry-run', async () => {
            setResult(undefined);
            setPlan(await retryFailing(endpoint, true));
          });
        }}
      >
        <label>
          <span>Endpoint</span>
          <select name="endpoint_id" value={endpoint} onChange={(e) => setEndpoint(e.currentTarget.value)}>
            {endpoints.map((e) => (
              <option key={e.endpoint_id} value={e.endpoint_id}>
                {endpointLabel(e)}
              </option>
            ))}
          </select>
        </label>
        <BusyButton busy={busy === 'dry-run'} disabled={busy !== undefined || !endpoint} busyLabel="Looking…">
          Dry run
        </BusyButton>
      </form>
      <Failure error={failure} />
      {plan && (
        <div role="status">
          <p>
            {plan.selected === 0
              ? `No delivery to ${plan.endpoint_id} is failing.`
              : `${deliveries(plan.selected)} failing to ${plan.endpoint_id}${plan.more ? ' (the oldest of more)' : ''}: ` +
                `${willRetry} would be retried now, ${plan.not_retried.length} not. ` +
                `You have ${plan.resends_left_this_hour} resends and retries now left this hour.`}
          </p>
          <Outcomes answer={plan} />
          {willRetry > 0 && (
            <BusyButton
              type="button"
              busy={busy === 'retry'}
              disabled={busy !== undefined}
              busyLabel="Retrying…"
              onClick={() => void retry()}
            >
              Retry {willRetry} now
            </BusyButton>
          )}
        </div>
      )}
      {result && (
        <div class="ok" role="status">
          <p>
            {result.retried.length} retried{result.not_retried.length > 0 ? `, ${result.not_retried.length} not retried` : ''}.{' '}
            <a href={link('deliveries')}>Your deliveries</a> show each attempt as it comes.
          </p>
          <Outcomes answer={result} />
        </div>
      )}
    </Section>
  );
}

function Outcomes({ answer }: { answer: FailingRetry }) {
  return (
    <BulkOutcomes
      done={answer.retried}
      doneWords={answer.dry_run ? 'would retry' : 'retried'}
      detail={(r) => `made ${when(r.created_at)}`}
      skipped={answer.not_retried}
      skippedWords="not retried"
      reasons={REASONS}
    />
  );
}
