/*
 * A partner's callbacks (an operator: every partner's, with a partner filter): newest first, with
 * filters in the URL (so a filtered view can be shared), updating by itself while any delivery
 * shown is still pending or retrying.
 */
import type { z } from 'zod';
import type { DeliveryPage } from '../../../src/entry/http/schemas/schemas';
import { apiBase, query, type Session } from '../api';
import { Badge, Failure } from '../components/basics';
import { Filters, type FilterField } from '../components/filters';
import { LoadMore, PausedNote, usePages } from '../components/pages';
import { when } from '../format';
import { link, type Route } from '../router';

type Delivery = z.infer<typeof DeliveryPage>['data'][number];

const STATES = ['pending', 'failing', 'delivered', 'dead_lettered', 'superseded'];

export function DeliveriesPage({ session, route }: { session: Session; route: Route }) {
  const fields: FilterField[] = [
    ...(session.kind === 'operator' ? [{ name: 'partner_id', label: 'Partner', type: 'partner' as const }] : []),
    { name: 'status', label: 'State', options: STATES },
    { name: 'policy_number', label: 'Policy number' },
    { name: 'endpoint_id', label: 'Endpoint' },
    { name: 'from', label: 'From', type: 'datetime-local' },
    { name: 'to', label: 'To', type: 'datetime-local' },
  ];
  const filters = Object.fromEntries(fields.map((f) => [f.name, route.params.get(f.name) ?? undefined]));
  const url = `${apiBase(session)}/deliveries${query({ ...filters, from: isoOf(filters['from']), to: isoOf(filters['to']), limit: 50 })}`;
  const pages = usePages<Delivery>(url, (items) => items.some((d) => d.state === 'pending' || d.state === 'failing'));
  return (
    <>
      <h1>Deliveries</h1>
      <p class="lead">Every policy status sent to {session.kind === 'partner' ? 'your endpoints' : 'partners'}, newest first.</p>
      <Filters segments={['deliveries']} fields={fields} values={filters} />
      <Failure error={pages.error} />
      {pages.live && (
        <p class="live" aria-live="polite">
          Updating while deliveries are in progress…
        </p>
      )}
      <PausedNote pages={pages} />
      <div class="table-wrap">
        <table>
          <caption class="visually-hidden">Deliveries</caption>
          <thead>
            <tr>
              <th scope="col">Policy</th>
              <th scope="col">Status sent</th>
              {session.kind === 'operator' && <th scope="col">Partner</th>}
              <th scope="col">Endpoint</th>
              <th scope="col">State</th>
              <th scope="col">Attempts</th>
              <th scope="col">Last HTTP</th>
              <th scope="col">Created</th>
            </tr>
          </thead>
          <tbody>
            {pages.items.map((d) => (
              <tr key={d.delivery_id}>
                <td>
                  <a href={link('deliveries', d.delivery_id)}>{d.policy_number}</a> <span class="muted">v{d.policy_version}</span>
                </td>
                <td>{d.policy_status ?? '–'}</td>
                {session.kind === 'operator' && <td>{d.partner_id}</td>}
                <td>{d.endpoint_id}</td>
                <td>
                  <Badge value={d.state} />
                </td>
                <td class="num">{d.attempt_count}</td>
                <td class="num">{d.last_http_status ?? d.last_error_class ?? '–'}</td>
                <td>{when(d.created_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
        {pages.items.length === 0 && !pages.loading && <p class="empty">No deliveries match.</p>}
      </div>
      <LoadMore pages={pages} />
    </>
  );
}

/** A datetime-local value (the viewer's time) as RFC 3339. */
export function isoOf(local: string | undefined): string | undefined {
  if (!local) return undefined;
  const date = new Date(local);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}
