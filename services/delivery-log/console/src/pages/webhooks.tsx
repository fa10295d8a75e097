/*
 * Inbound webhooks: the ones accepted (with their documents, and how often each was sent again and
 * answered as the first time: replayed) and the ones refused (with the contract's error code, the
 * fields at fault and the message the partner was answered).
 */
import { client, filtersAs, type Schema, type Session } from '../api';
import { Badge, Facts, Failure, Section } from '../components/basics';
import { Trace } from '../components/trace';
import { Code } from '../components/code';
import { ListState } from '../components/list-state';
import { termOf } from '../glossary';
import { Filters, type FilterField } from '../components/filters';
import { LoadMore, usePages } from '../components/pages';
import { isoOf, when } from '../format';
import { link, type Route } from '../router';
import { useApi } from '../use-api';

type Webhook = Schema<'WebhookSummary'>;
type Rejected = Schema<'RejectedWebhook'>;

export function WebhooksPage({ session, route }: { session: Session; route: Route }) {
  const refused = route.params.get('view') === 'refused';
  const fields: FilterField[] = [
    ...(session.kind === 'operator' ? [{ name: 'partner_id', label: 'Partner', type: 'partner' as const }] : []),
    ...(refused ? [] : [{ name: 'transaction_number', label: 'Transaction number' }]),
    { name: 'request_id', label: 'Request id' },
    { name: 'from', label: 'From', type: 'time' as const },
    { name: 'to', label: 'To', type: 'time' as const },
  ];
  const filters = Object.fromEntries(fields.map((f) => [f.name, route.params.get(f.name) ?? undefined]));
  const asked = { ...filters, from: isoOf(filters['from']), to: isoOf(filters['to']), limit: 50 };
  return (
    <>
      <h1>Inbound webhooks</h1>
      <nav class="tabs" aria-label="Accepted or refused">
        <a href={link('webhooks')} aria-current={refused ? undefined : 'page'}>
          Accepted
        </a>
        <a href={`${link('webhooks')}?view=refused`} aria-current={refused ? 'page' : undefined}>
          Refused
        </a>
      </nav>
      <Filters segments={['webhooks']} fields={fields} values={filters} />
      {refused ? <RefusedList session={session} asked={asked} /> : <AcceptedList session={session} asked={asked} />}
    </>
  );
}

/** A list's filters and page size, as the address gives them. */
type Asked = Record<string, string | number | undefined>;

function AcceptedList({ session, asked }: { session: Session; asked: Asked }) {
  const operator = session.kind === 'operator';
  const pages = usePages(
    (cursor) =>
      operator
        ? client.GET('/api/admin/v1/webhooks', { params: { query: { ...filtersAs('/api/admin/v1/webhooks', asked), cursor } } })
        : client.GET('/api/portal/v1/webhooks', { params: { query: { ...filtersAs('/api/portal/v1/webhooks', asked), cursor } } }),
    [operator, asked],
  );
  return (
    <>
      <Failure error={pages.error} />
      <ListState
        loading={pages.loading}
        failed={pages.error !== undefined}
        count={pages.items.length}
        what="webhooks"
        empty="No webhooks match."
      >
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Transaction</th>
                <th scope="col">Type</th>
                <th scope="col">Status</th>
                {operator && <th scope="col">Partner</th>}
                <th scope="col">Request id</th>
                <th scope="col">Answer</th>
                <th scope="col">Documents</th>
                <th scope="col">Received</th>
              </tr>
            </thead>
            <tbody>
              {pages.items.map((w) => (
                <tr key={w.webhook_id}>
                  <td>
                    <a href={link('webhooks', w.webhook_id)}>{w.transaction_number}</a>
                  </td>
                  <td>{w.transaction_type}</td>
                  <td>{w.status}</td>
                  {operator && <td>{w.partner_id}</td>}
                  <td>
                    <code>{w.request_id ?? '–'}</code>
                  </td>
                  <td>
                    <Answered webhook={w} />
                  </td>
                  <td>{documentsOf(w)}</td>
                  <td>{when(w.received_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </ListState>
      <LoadMore pages={pages} />
    </>
  );
}

/** "2 stored, 1 failed": what became of its documents, by outcome ("–" when it linked none). */
function documentsOf(w: Webhook): string {
  const parts = [
    [w.documents_stored, 'stored'],
    [w.documents_failed, 'failed'],
    [w.documents_pending, 'pending'],
  ].filter(([count]) => Number(count) > 0);
  return parts.length === 0 ? '–' : parts.map(([count, what]) => `${count} ${what}`).join(', ');
}

/** Accepted, and replayed N times when it was sent again with the same request_id and body. */
function Answered({ webhook }: { webhook: Webhook }) {
  return (
    <>
      <span class="badge badge-good">accepted</span>
      {webhook.replay_count > 0 && (
        <span class="badge badge-neutral">
          replayed ×{webhook.replay_count}
          <span class="visually-hidden">, last sent again {when(webhook.last_replayed_at)}</span>
        </span>
      )}
    </>
  );
}

function RefusedList({ session, asked }: { session: Session; asked: Asked }) {
  const operator = session.kind === 'operator';
  const pages = usePages<Rejected>(
    (cursor) =>
      operator
        ? client.GET('/api/admin/v1/rejected-webhooks', {
            params: { query: { ...filtersAs('/api/admin/v1/rejected-webhooks', asked), cursor } },
          })
        : client.GET('/api/portal/v1/rejected-webhooks', {
            params: { query: { ...filtersAs('/api/portal/v1/rejected-webhooks', asked), cursor } },
          }),
    [operator, asked],
  );
  return (
    <>
      <Failure error={pages.error} />
      <ListState
        loading={pages.loading}
        failed={pages.error !== undefined}
        count={pages.items.length}
        what="refused webhooks"
        empty="No refused webhooks."
      >
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Received</th>
                {operator && <th scope="col">Partner</th>}
                <th scope="col">Answer</th>
                <th scope="col">Fields</th>
                <th scope="col">Why</th>
                <th scope="col">Request id</th>
              </tr>
            </thead>
            <tbody>
              {pages.items.map((r) => (
                <tr key={r.rejection_id}>
                  <td>
                    <a href={link('refused-webhooks', r.rejection_id)} title="Open the request as it arrived">
                      {when(r.received_at)}
                    </a>
                  </td>
                  {operator && <td>{r.partner_id}</td>}
                  <td>
                    <span class="badge badge-bad">{r.http_status}</span> <Code kind="error-code" code={r.error_code} />
                  </td>
                  <td>
                    {r.fields.map((f) => (
                      <code key={f} class="field">
                        {f}
                      </code>
                    ))}
                  </td>
                  <td>
                    {r.message}
                    {termOf('error-code', r.error_code) && <div class="muted">{termOf('error-code', r.error_code)?.meaning}</div>}
                  </td>
                  <td>
                    <code>{r.request_id ?? '–'}</code>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </ListState>
      <LoadMore pages={pages} />
    </>
  );
}

export function WebhookPage({ session, webhookId }: { session: Session; webhookId: string }) {
  const { data, error } = useApi(
    () =>
      session.kind === 'partner'
        ? client.GET('/api/portal/v1/webhooks/{webhookId}', { params: { path: { webhookId } } })
        : client.GET('/api/admin/v1/webhooks/{webhookId}', { params: { path: { webhookId } } }),
    [session.kind, webhookId],
  );
  if (error) return <Failure error={error} />;
  if (!data) return <p>Loading…</p>;
  const w = data.data;
  return (
    <>
      <h1>Webhook {w.transaction_number}</h1>
      <Section title="Summary">
        <Facts
          rows={[
            ['Partner', w.partner_id],
            ['Type', w.transaction_type],
            ['Status', w.status],
            ['Request id', <code>{w.request_id ?? '–'}</code>],
            ['Received', when(w.received_at)],
            ['Answer', <Answered webhook={w} />],
            ['Body fingerprint', <code>{w.payload_fingerprint}</code>],
            ['Trace', <Trace session={session} traceId={w.trace_id} />],
          ]}
        />
      </Section>
      {w.replay_count > 0 && (
        <Section title="Sent again">
          <p>
            {session.kind === 'partner' ? 'You' : w.partner_id} sent this webhook again{' '}
            {w.replay_count === 1 ? 'once' : `${w.replay_count} times`} with the same request_id and body. Each time it was answered 200
            with the first answer and not processed again.
          </p>
          <ul>
            {w.replays.map((r) => (
              <li key={r.replay_id}>{when(r.received_at)}</li>
            ))}
          </ul>
          {w.replays.length < w.replay_count && <p class="muted">The newest {w.replays.length} are listed.</p>}
        </Section>
      )}
      <Section title="Documents">
        <ol class="documents">
          {w.documents.map((d) => (
            <li key={d.document_id}>
              <Badge kind="document" value={d.outcome} /> <strong>{d.filename ?? d.document_type}</strong>{' '}
              <span class="muted">{d.source_url}</span>
              {d.outcome === 'STORED' && (
                <div class="muted">
                  {d.content_type}, {d.size_bytes} bytes, SHA-256 <code>{d.sha256}</code>
                </div>
              )}
              {d.outcome === 'FAILED' && (
                <div>
                  <Code kind="error-class" code={d.failure_reason} />
                  {d.http_status ? ` (your document host answered ${d.http_status})` : ''}: {d.error}
                </div>
              )}
            </li>
          ))}
        </ol>
        {w.documents.length === 0 && <p class="empty">No documents linked.</p>}
      </Section>
    </>
  );
}
