/*
 * Dead letters by topic, as `hookstream dlq list` shows them, and their replay: of every dead letter
 * the filters select (a time range among them), or of the rows chosen one by one. First a dry run
 * says what would be replayed and what skipped (and why), writing nothing; then the replay itself,
 * with a reason and confirmed, replays what the dry run showed, and the audit trail records it.
 */
import { useEffect, useState } from 'preact/hooks';
import { client, filtersAs, type Session } from '../api';
import { replay, type ReplayAnswer, type ReplayRequest } from '../api/operator-views';
import { Failure, Section } from '../components/basics';
import { BusyButton } from '../components/busy-button';
import { Code } from '../components/code';
import { useConfirm } from '../components/confirm';
import { Filters, type FilterField } from '../components/filters';
import { ListState } from '../components/list-state';
import { ReplayDecisions } from '../components/replay-decisions';
import { isoOf, when } from '../format';
import { formText } from '../form-text';
import { link, type Route } from '../router';
import { useApi } from '../use-api';

/** A dry run: the request as it was sent (bounded by its time), what it was of, and its answer. */
interface DryRun {
  selectionKey: string;
  request: ReplayRequest;
  answer: ReplayAnswer;
}

const FIELDS: FilterField[] = [
  { name: 'topic', label: 'Topic', options: ['callback', 'policy-status', 'documents'] },
  { name: 'partner_id', label: 'Partner', type: 'partner' },
  { name: 'since', label: 'Dead-lettered from', type: 'time' },
  { name: 'until', label: 'Dead-lettered before', type: 'time' },
  { name: 'error_class', label: 'Error class' },
  { name: 'last_status', label: 'Last HTTP status' },
  { name: 'policy_number', label: 'Policy number' },
  { name: 'delivery_id', label: 'Delivery id' },
];

const coordinates = (l: { partition: number; offset: string }) => `${l.partition}:${l.offset}`;

export function DeadLettersPage({ session, route }: { session: Session; route: Route }) {
  const filters = Object.fromEntries(FIELDS.map((f) => [f.name, route.params.get(f.name) ?? undefined]));
  const selection = { ...filters, topic: filters['topic'] ?? 'callback', since: isoOf(filters['since']), until: isoOf(filters['until']) };
  const { data, error, reload } = useApi(
    () => client.GET('/api/admin/v1/dead-letters', { params: { query: filtersAs('/api/admin/v1/dead-letters', selection) } }),
    [selection],
  );
  const request = Object.fromEntries(Object.entries(selection).filter(([, v]) => v !== undefined)) as Record<string, string>;
  const [chosen, setChosen] = useState<string[]>([]);
  const [force, setForce] = useState(false);
  const filtersKey = JSON.stringify(request);
  const selectionKey = JSON.stringify([request, chosen, force]);
  const [dryRun, setDryRun] = useState<DryRun | undefined>(undefined);
  const [result, setResult] = useState<ReplayAnswer | undefined>(undefined);
  const [failure, setFailure] = useState<Error | undefined>(undefined);
  const [busy, setBusy] = useState<'dry-run' | 'replay' | undefined>(undefined);
  // Other filters are other rows: none stays chosen.
  useEffect(() => setChosen([]), [filtersKey]);
  // A dry run stands for the selection it was made of only. Changed filters, rows or force drop it, so
  // a replay is only ever offered right after a dry run of what it replays; a dry run answered after
  // the selection changed is not shown for the new one either.
  useEffect(() => setDryRun(undefined), [selectionKey]);
  // The last replay's result stays until other filters are applied (the rows it replayed are unchosen after it).
  useEffect(() => setResult(undefined), [filtersKey]);
  const plan = dryRun?.selectionKey === selectionKey ? dryRun : undefined;

  const attempt = async (what: 'dry-run' | 'replay', work: () => Promise<void>) => {
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
  // The rows chosen, by their coordinates; else the filters (the address's, checked by the API as the
  // list's are), bounded by the dry run's time: a dead letter that comes after it is not replayed unseen.
  const runDry = () =>
    attempt('dry-run', async () => {
      const now = new Date().toISOString();
      const until = request['until'] && request['until'] < now ? request['until'] : now;
      const bounded: ReplayRequest = {
        ...(chosen.length > 0
          ? { topic: request['topic'] as ReplayRequest['topic'], letters: chosen }
          : { ...(request as ReplayRequest), until }),
        ...(force ? { force: true } : {}),
      };
      const answer = await replay({ ...bounded, dry_run: true });
      setDryRun({ selectionKey, request: bounded, answer });
    });
  // The replay sends the dry run's own request, not the selection as it is now.
  const execute = (done: DryRun, reason: string) =>
    attempt('replay', async () => {
      setResult(await replay({ ...done.request, dry_run: false, reason }));
      setDryRun(undefined);
      setChosen([]);
      void reload();
    });
  // Choosing rows starts another replay: the last one's result gives way to its panel.
  const choose = (next: (now: string[]) => string[]) => {
    setResult(undefined);
    setChosen(next);
  };
  const toggle = (key: string) => choose((now) => (now.includes(key) ? now.filter((k) => k !== key) : [...now, key]));
  const shown = data?.dead_letters ?? [];
  const allChosen = shown.length > 0 && shown.every((l) => chosen.includes(coordinates(l)));
  const writer = session.kind === 'operator' && session.role === 'operator';
  const replaying = plan?.answer.counts['replayed'] ?? 0;
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
        count={shown.length}
        what="dead letters"
        empty="No dead letters match."
      >
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                {writer && (
                  <th scope="col">
                    <input
                      type="checkbox"
                      aria-label="Choose every row shown"
                      checked={allChosen}
                      onChange={() => choose(() => (allChosen ? [] : shown.map(coordinates)))}
                    />
                  </th>
                )}
                <th scope="col">Dead-lettered</th>
                <th scope="col">Partner</th>
                <th scope="col">Policy</th>
                <th scope="col">Why</th>
                <th scope="col">Attempts</th>
                <th scope="col">Replayed</th>
              </tr>
            </thead>
            <tbody>
              {shown.map((l) => (
                <tr key={coordinates(l)}>
                  {writer && (
                    <td>
                      <input
                        type="checkbox"
                        aria-label={`Choose ${l.policy_number ?? l.event_id ?? coordinates(l)} (${coordinates(l)})`}
                        checked={chosen.includes(coordinates(l))}
                        onChange={() => toggle(coordinates(l))}
                      />
                    </td>
                  )}
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
        <Section
          title={result ? 'Replayed' : chosen.length > 0 ? `Replay the ${chosen.length} chosen` : 'Replay the selected dead letters'}
        >
          {/*
           * After a replay its result stands alone: the panel for another (whose Dry run would select every
           * dead letter the filters select, the chosen rows being spent) waits until asked for, so no click
           * meant for the replay's button lands on a dry run of everything.
           */}
          {result ? (
            <div class="ok" role="status">
              <p>
                Replayed: run <code>{result.replay_id}</code>. It is in the <a href={link('audit')}>audit trail</a>.
              </p>
              <ReplayDecisions answer={result} />
              <button type="button" class="secondary" onClick={() => setResult(undefined)}>
                Start another replay
              </button>
            </div>
          ) : (
            <>
              <p>
                {chosen.length > 0
                  ? `The ${chosen.length} dead letter${chosen.length === 1 ? '' : 's'} you chose. `
                  : 'Every dead letter the filters select (the time range too), up to now. '}
                First a dry run: it says what would be replayed and what skipped, and writes nothing. Dead letters replayed before, or
                replayed the most times allowed, are skipped unless you tick the box below; superseded ones are never replayed.
              </p>
              <label class="check">
                <input type="checkbox" checked={force} onChange={(e) => setForce(e.currentTarget.checked)} /> Replay also what was replayed
                before or replayed the most times allowed
              </label>
              <BusyButton
                type="button"
                busy={busy === 'dry-run'}
                disabled={busy !== undefined}
                busyLabel="Asking…"
                onClick={() => void runDry()}
              >
                Dry run
              </BusyButton>
              {confirm.dialog}
              <Failure error={failure} />
              {plan && <ReplayDecisions answer={plan.answer} />}
              {plan && replaying > 0 && (
                <form
                  class="inline-form"
                  onSubmit={(event) => {
                    event.preventDefault();
                    const reason = formText(event.currentTarget, 'reason');
                    void confirm
                      .ask({
                        title: `Replay ${replaying} dead ${replaying === 1 ? 'letter' : 'letters'}?`,
                        body: (
                          <p>
                            They are queued again and sent to the partners’ endpoints from the first try, as the dry run listed; the replay
                            is audited with your reason (“{reason}”). It cannot be undone.
                          </p>
                        ),
                        action: `Replay ${replaying}`,
                      })
                      .then((yes) => (yes ? execute(plan, reason) : undefined));
                  }}
                >
                  <label>
                    <span>Reason (required, for the audit trail)</span>
                    <input name="reason" required maxLength={500} placeholder="partner fixed its endpoint" />
                  </label>
                  <BusyButton busy={busy === 'replay'} disabled={busy !== undefined} busyLabel="Replaying…">
                    Replay {replaying}
                  </BusyButton>
                </form>
              )}
            </>
          )}
        </Section>
      )}
    </>
  );
}
