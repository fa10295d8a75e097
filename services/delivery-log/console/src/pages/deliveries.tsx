/*
 * A partner's callbacks (an operator: every partner's, with a partner filter): newest first, with
 * filters in the URL (so a filtered view can be shared), updating by itself while any delivery
 * shown is still pending or retrying.
 */
import { client, filtersAs, type Schema, type Session } from '../api';
import { Badge, Failure } from '../components/basics';
import { Code } from '../components/code';
import { ListState } from '../components/list-state';
import { useEndpointNames } from '../components/endpoint-names';
import { Time } from '../components/time';
import { Filters, type FilterField } from '../components/filters';
import { LoadMore, PausedNote, usePages } from '../components/pages';
import { isoOf } from '../format';
import { link, type Route } from '../router';

type Delivery = Schema<'DeliverySummary'>;

const STATES = ['pending', 'failing', 'delivered', 'dead_lettered', 'superseded'];

export function DeliveriesPage({ session, route }: { session: Session; route: Route }) {
  const fields: FilterField[] = [
    ...(session.kind === 'operator' ? [{ name: 'partner_id', label: 'Partner', type: 'partner' as const }] : []),
    { name: 'status', label: 'State', options: STATES },
    { name: 'policy_number', label: 'Policy number' },
    { name: 'endpoint_id', label: 'Endpoint' },
    { name: 'from', label: 'From', type: 'time' },
    { name: 'to', label: 'To', type: 'time' },
  ];
  const filters = Object.fromEntries(fields.map((f) => [f.name, route.params.get(f.name) ?? undefined]));
  // Test events are listed apart (the API's default leaves them out), so the states are those of real callbacks.
  const tests = route.params.get('test') === 'true';
  const asked = { ...filters, from: isoOf(filters['from']), to: isoOf(filters['to']), test: tests ? 'true' : undefined, limit: 50 };
  const pages = usePages(
    (cursor) =>
      session.kind === 'partner'
        ? client.GET('/api/portal/v1/deliveries', { params: { query: { ...filtersAs('/api/portal/v1/deliveries', asked), cursor } } })
        : client.GET('/api/admin/v1/deliveries', { params: { query: { ...filtersAs('/api/admin/v1/deliveries', asked), cursor } } }),
    [session.kind, asked],
    (items: Delivery[]) => items.some((d) => d.state === 'pending' || d.state === 'failing'),
  );
  const endpointOf = useEndpointNames(session);
  return (
    <>
      <h1>Deliveries</h1>
      <p class="lead">
        {tests ? 'Test events' : 'Every policy status'} sent to {session.kind === 'partner' ? 'your endpoints' : 'partners'}, newest first.{' '}
        <a href={tests ? link('deliveries') : `${link('deliveries')}?test=true`}>{tests ? 'Show real deliveries' : 'Show test events'}</a>
      </p>
      <Filters segments={['deliveries']} fields={fields} values={filters} />
      <Failure error={pages.error} />
      {pages.live && (
        <p class="live" aria-live="polite">
          Updating while deliveries are in progress…
        </p>
      )}
      <PausedNote pages={pages} />
      <ListState
        loading={pages.loading}
        failed={pages.error !== undefined}
        count={pages.items.length}
        what="deliveries"
        empty="No deliveries match."
      >
        <div class="table-wrap">
          {/* Under 40rem each row is a card of labelled fields (styles.css): no sideways scroll on a phone. */}
          <table class="cards">
            <caption class="visually-hidden">Deliveries</caption>
            <thead>
              <tr>
                <th scope="col">Policy</th>
                <th scope="col">Status sent</th>
                {session.kind === 'operator' && <th scope="col">Partner</th>}
                <th scope="col">Endpoint</th>
                <th scope="col">State</th>
                <th scope="col">Sends</th>
                <th scope="col">Last answer</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {pages.items.map((d) => (
                <tr key={d.delivery_id}>
                  <td class="policy" data-label="Policy">
                    <a href={link('deliveries', d.delivery_id)}>{d.policy_number}</a> <PolicyVersion version={d.policy_version} />
                    {d.test && <span class="badge badge-neutral">test</span>}
                  </td>
                  <td data-label="Status sent">{d.policy_status ?? '–'}</td>
                  {session.kind === 'operator' && <td data-label="Partner">{d.partner_id}</td>}
                  <td data-label="Endpoint">{endpointOf(d.partner_id, d.endpoint_id)}</td>
                  <td data-label="State">
                    <Badge kind="state" value={d.state} />
                  </td>
                  <td class="num" data-label="Sends">
                    {d.attempt_count}
                  </td>
                  <td data-label="Last answer">
                    {d.last_http_status !== null ? (
                      <span class="num">HTTP {d.last_http_status}</span>
                    ) : (
                      <Code kind="error-class" code={d.last_error_class} showCode={false} />
                    )}
                  </td>
                  <td data-label="Created">
                    <Time at={d.created_at} />
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

/**
 * A policy's version, shown as it is but labelled: it is the insurer's system's number (often a
 * time in seconds) and only orders the statuses of one policy; the glossary says so (policy
 * version), and so does its hover text. Not a link: a row keeps one Tab stop.
 */
export function PolicyVersion({ version }: { version: number }) {
  return (
    <span class="muted version" title="The policy system’s version number of this status: a higher one is newer (see the glossary)">
      version {version}
    </span>
  );
}
