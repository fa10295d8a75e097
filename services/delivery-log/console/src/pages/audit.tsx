/**
 * The audit trail: who changed what and why, from the operator API, the partner API or the CLI.
 * Times carry their zone; each record's detail opens in full, its times written as times. The actor
 * filter takes the actor as the trail shows it (partner:ux-test) or its bare id (ux-test).
 */
import { client, filtersAs, type Session } from '../api';
import { AuditDetail } from '../components/audit-detail';
import { Code } from '../components/code';
import { Failure } from '../components/basics';
import { Filters, type FilterField } from '../components/filters';
import { ListState } from '../components/list-state';
import { LoadMore, usePages } from '../components/pages';
import { when } from '../format';
import type { Route } from '../router';

const FIELDS: FilterField[] = [
  { name: 'actor_id', label: 'Actor (as shown, or its id)' },
  { name: 'subject_id', label: 'Subject id (a partner, operator or replay)', type: 'partner' },
  { name: 'action', label: 'Action' },
];

const ACTOR_KINDS: Record<string, string> = { operator: 'an operator', partner: 'the partner itself', cli: 'the command line' };

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
        empty="Nothing audited matches."
      >
        <div class="table-wrap">
          <table class="audit">
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
                    {a.actor_name}
                    <div class="muted">
                      {ACTOR_KINDS[a.actor_type] ?? a.actor_type}
                      {a.actor_name !== a.actor_id && (
                        <>
                          , id <code>{a.actor_id}</code>
                        </>
                      )}
                    </div>
                  </td>
                  <td>
                    <Code kind="audit-action" code={a.action} />
                  </td>
                  <td>
                    {a.subject_type} <code>{a.subject_id}</code>
                  </td>
                  <td>{a.reason}</td>
                  <td>
                    <AuditDetail detail={a.detail} />
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
