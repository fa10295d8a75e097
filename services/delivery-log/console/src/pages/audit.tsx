/** The audit trail: who changed what and why, from the operator API, the partner API or the CLI. */
import { client, filtersAs, type Session } from '../api';
import { Failure } from '../components/basics';
import { Filters, type FilterField } from '../components/filters';
import { ListState } from '../components/list-state';
import { LoadMore, usePages } from '../components/pages';
import { when } from '../format';
import type { Route } from '../router';

const FIELDS: FilterField[] = [
  { name: 'actor_id', label: 'Actor id' },
  { name: 'subject_id', label: 'Subject id' },
  { name: 'action', label: 'Action' },
];

export function AuditPage({ route }: { session: Session; route: Route }) {
  const filters = Object.fromEntries(FIELDS.map((f) => [f.name, route.params.get(f.name) ?? undefined]));
  const pages = usePages(
    (cursor) =>
      client.GET('/api/admin/v1/audit', { params: { query: { ...filtersAs('/api/admin/v1/audit', filters), limit: 50, cursor } } }),
    [filters],
  );
  return (
    <>
      <h1>Audit trail</h1>
      <Filters segments={['audit']} fields={FIELDS} values={filters} />
      <Failure error={pages.error} />
      <ListState
        loading={pages.loading}
        failed={pages.error !== undefined}
        count={pages.items.length}
        what="the audit trail"
        empty="Nothing audited yet."
      >
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Who</th>
                <th scope="col">What</th>
                <th scope="col">On</th>
                <th scope="col">Why</th>
                <th scope="col">Detail</th>
              </tr>
            </thead>
            <tbody>
              {pages.items.map((a) => (
                <tr key={a.audit_id}>
                  <td>{when(a.at)}</td>
                  <td>
                    {a.actor_name} <span class="muted">({a.actor_type})</span>
                  </td>
                  <td>
                    <code>{a.action}</code>
                  </td>
                  <td>
                    {a.subject_type} <code>{a.subject_id}</code>
                  </td>
                  <td>{a.reason}</td>
                  <td>
                    <code class="detail">{JSON.stringify(a.detail)}</code>
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
