/*
 * Dead letters by topic, as `hookstream dlq list` shows them, and their replay: first a dry run
 * that says what would be replayed and what skipped (and why), then the replay itself with a
 * reason, which the audit trail records.
 */
import { useEffect, useState } from 'preact/hooks';
import { client, filtersAs, write, type Schema, type Session } from '../api';
import { Badge, Failure, Section } from '../components/basics';
import { BusyButton } from '../components/busy-button';
import { Code } from '../components/code';
import { useConfirm } from '../components/confirm';
import { ListState } from '../components/list-state';
import { Filters, type FilterField } from '../components/filters';
import { when } from '../format';
import { formText } from '../form-text';
import { link, type Route } from '../router';
import { useApi } from '../use-api';

type ReplayAnswer = Schema<'ReplayAnswer'>;
type ReplayRequest = Schema<'ReplayRequest'>;

/** A dry run: the selection's request as it was sent (bounded by its time), and its answer. */
interface DryRun {
  selectionKey: string;
  request: ReplayRequest;
  answer: ReplayAnswer;
}

const FIELDS: FilterField[] = [
  { name: 'topic', label: 'Topic', options: ['callback', 'policy-status', 'documents'] },
  { name: 'partner_id', label: 'Partner' },
  { name: 'error_class', label: 'Error class' },
  { name: 'last_status', label: 'Last HTTP status' },
  { name: 'policy_number', label: 'Policy number' },
  { name: 'delivery_id', label: 'Delivery id' },
];

export function DeadLettersPage({ session, route }: { session: Session; route: Route }) {
  const filters = Object.fromEntries(FIELDS.map((f) => [f.name, route.params.get(f.name) ?? undefined]));
  const selection = { ...filters, topic: filters['topic'] ?? 'callback' };
  const { data, error, reload } = useApi(
    () => client.GET('/api/admin/v1/dead-letters', { params: { query: filtersAs('/api/admin/v1/dead-letters', selection) } }),
    [selection],
  );
  const request = Object.fromEntries(Object.entries(selection).filter(([, v]) => v !== undefined)) as Record<string, string>;
  const selectionKey = JSON.stringify(request);
  const [dryRun, setDryRun] = useState<DryRun | undefined>(undefined);
  const [result, setResult] = useState<ReplayAnswer | undefined>(undefined);
  const [failure, setFailure] = useState<Error | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  // A dry run stands for the selection it was made of only. Changed filters drop it (and the last
  // replay's result), so "Replay" is only ever offered right after a dry run of what it replays; a
  // dry run answered after the filters changed is not shown for the new ones either.
  useEffect(() => {
    setDryRun(undefined);
    setResult(undefined);
  }, [selectionKey]);
  const plan = dryRun?.selectionKey === selectionKey ? dryRun : undefined;

  const attempt = async (work: () => Promise<void>) => {
    setBusy(true);
    setFailure(undefined);
    try {
      await work();
    } catch (e) {
      setFailure(e as Error);
    } finally {
      setBusy(false);
    }
  };
  // Bounded by the dry run's time: a dead letter that comes after it is not replayed unseen.
  const runDry = () =>
    attempt(async () => {
      // The address's filters as the replay's selection: the API checks them as it checks the list's.
      const bounded = { ...(request as ReplayRequest), until: new Date().toISOString() };
      const answer = await write(client.POST('/api/admin/v1/dead-letters/replay', { body: { ...bounded, dry_run: true } }));
      setDryRun({ selectionKey, request: bounded, answer });
    });
  // The replay sends the dry run's own request, not the filters as they are now.
  const replay = (done: DryRun, reason: string) =>
    attempt(async () => {
      setResult(await write(client.POST('/api/admin/v1/dead-letters/replay', { body: { ...done.request, dry_run: false, reason } })));
      setDryRun(undefined);
      void reload();
    });
  const writer = session.kind === 'operator' && session.role === 'operator';
  const confirm = useConfirm();
  return (
    <>
      <h1>Dead letters</h1>
      <Filters segments={['dead-letters']} fields={FIELDS} values={filters} />
      <Failure error={error} />
      {data && (
        <p>
          {data.selected} selected in <code>{data.topic}</code>, {data.not_replayed} not replayed (newest {data.dead_letters.length} shown).
        </p>
      )}
      <ListState
        loading={data === undefined}
        failed={error !== undefined}
        count={data?.dead_letters.length ?? 0}
        what="dead letters"
        empty="No dead letters match."
      >
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Dead-lettered</th>
                <th scope="col">Partner</th>
                <th scope="col">Policy</th>
                <th scope="col">Why</th>
                <th scope="col">Attempts</th>
                <th scope="col">Replayed</th>
              </tr>
            </thead>
            <tbody>
              {data?.dead_letters.map((l) => (
                <tr key={`${l.partition}:${l.offset}`}>
                  <td>{when(l.dead_lettered_at)}</td>
                  <td>{l.partner_id ?? '?'}</td>
                  <td>
                    {l.delivery_id ? (
                      <a href={link('deliveries', l.delivery_id)}>{l.policy_number ?? l.delivery_id}</a>
                    ) : (
                      (l.policy_number ?? l.event_id)
                    )}
                  </td>
                  <td>
                    <Code kind="error-class" code={l.error_class ?? '?'} />{' '}
                    {l.last_http_status ? `(last answer ${l.last_http_status})` : ''}
                    <div class="muted">{l.reason}</div>
                  </td>
                  <td class="num">{l.attempts ?? '–'}</td>
                  <td>{l.replayed ? 'yes' : 'no'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </ListState>
      {writer && (
        <Section title="Replay the selected dead letters">
          <p>First a dry run: it says what would be replayed and what skipped, and writes nothing.</p>
          <BusyButton type="button" busy={busy} busyLabel="Asking…" onClick={() => void runDry()}>
            Dry run
          </BusyButton>
          {confirm.dialog}
          <Failure error={failure} />
          {plan && <Decisions answer={plan.answer} />}
          {plan && (plan.answer.counts['replayed'] ?? 0) > 0 && (
            <form
              class="inline-form"
              onSubmit={(event) => {
                event.preventDefault();
                const reason = formText(event.currentTarget, 'reason');
                const count = plan.answer.counts['replayed'] ?? 0;
                void confirm
                  .ask({
                    title: `Replay ${count} dead ${count === 1 ? 'letter' : 'letters'}?`,
                    body: (
                      <p>
                        They are queued again and sent to the partners’ endpoints from the first try, as the dry run listed; the replay is
                        audited with your reason. It cannot be undone.
                      </p>
                    ),
                    action: `Replay ${count}`,
                  })
                  .then((yes) => (yes ? replay(plan, reason) : undefined));
              }}
            >
              <label>
                <span>Reason (required, for the audit trail)</span>
                <input name="reason" required placeholder="partner fixed its endpoint" />
              </label>
              <BusyButton busy={busy} busyLabel="Replaying…">
                Replay {plan.answer.counts['replayed']}
              </BusyButton>
            </form>
          )}
          {result && (
            <div class="ok" role="status">
              <p>
                Replayed: run <code>{result.replay_id}</code>. It is in the <a href={link('audit')}>audit trail</a>.
              </p>
              <Decisions answer={result} />
            </div>
          )}
        </Section>
      )}
    </>
  );
}

function Decisions({ answer }: { answer: ReplayAnswer }) {
  return (
    <>
      <p>
        {answer.dry_run ? 'Would do: ' : 'Done: '}
        {Object.entries(answer.counts)
          .filter(([, n]) => n > 0)
          .map(([outcome, n]) => `${n} ${outcome}`)
          .join(', ') || 'nothing selected'}
      </p>
      <ul class="decisions">
        {answer.decisions.map((d, i) => (
          <li key={i}>
            <Badge kind="replay" value={d.outcome} /> {d.partner_id} {d.policy_number} <code>{d.delivery_id ?? d.event_id}</code>
            {d.detail && <span class="muted"> — {d.detail}</span>}
          </li>
        ))}
      </ul>
    </>
  );
}
