/*
 * The endpoints failing across partners, for an operator: the worst first (circuit open, then
 * the lowest success rate in the last hour, then dead letters waiting: queries/failing-endpoints.ts), each with its success over
 * the last hour, its last answer and its partner's circuit, and links to its deliveries. The page
 * asks again every so often while it is on screen (never in a background tab).
 */
import { useState } from 'preact/hooks';
import { failingEndpoints } from '../api/operator-views';
import { Badge, Failure } from '../components/basics';
import { Code } from '../components/code';
import { ListState } from '../components/list-state';
import { percent, when } from '../format';
import { link } from '../router';
import { useApi } from '../use-api';

/** Endpoints per page. */
const PAGE = 25;
/** How often the view asks again while visible: its figures are over an hour and a day. */
const REFRESH_MS = 15_000;

export function FailingEndpointsPage() {
  const [offset, setOffset] = useState(0);
  const { data, error, loading } = useApi(failingEndpoints(offset, PAGE), [offset], () => true, REFRESH_MS);
  return (
    <>
      <h1>Failing endpoints</h1>
      <p class="lead">
        Partner endpoints with a failed send in the last day, deliveries still dead-lettered, or their circuit open. Worst first: circuit
        open (nothing is sent), then the lowest success rate in the last hour, then the most dead letters waiting. Refreshes every{' '}
        {REFRESH_MS / 1000} s while this page is on screen.
      </p>
      <Failure error={error} />
      {data && data.total > 0 && (
        <p role="status">
          {`${data.total} failing endpoint${data.total === 1 ? '' : 's'}; ${offset + 1}–${offset + data.data.length} shown.`}
          {loading && <span class="muted"> Refreshing…</span>}
        </p>
      )}
      <ListState
        loading={data === undefined}
        failed={error !== undefined}
        count={data?.data.length ?? 0}
        what="failing endpoints"
        empty="No endpoint is failing."
      >
        <div class="table-wrap">
          <table>
            <caption class="visually-hidden">Failing endpoints</caption>
            <thead>
              <tr>
                <th scope="col">Partner</th>
                <th scope="col">Endpoint</th>
                <th scope="col">Dead letters waiting</th>
                <th scope="col">Success, last hour</th>
                <th scope="col">Failed sends (hour / day)</th>
                <th scope="col">Last answer</th>
                <th scope="col">Circuit</th>
              </tr>
            </thead>
            <tbody>
              {(data?.data ?? []).map((e) => (
                <tr key={`${e.partner_id}/${e.endpoint_id}`}>
                  <td>
                    <a
                      href={`${link('deliveries')}?partner_id=${encodeURIComponent(e.partner_id)}&endpoint_id=${encodeURIComponent(e.endpoint_id)}`}
                    >
                      {e.partner_name ?? e.partner_id}
                    </a>
                    <div class="muted">{e.partner_id}</div>
                  </td>
                  <td>
                    {e.endpoint_name && <strong>{e.endpoint_name} </strong>}
                    <code>{e.endpoint_id}</code>
                    <div class="muted url">{e.url ?? '(since removed)'}</div>
                  </td>
                  <td class="num">
                    {e.dead_letters_waiting > 0 ? (
                      <a
                        href={`${link('deliveries')}?partner_id=${encodeURIComponent(e.partner_id)}&endpoint_id=${encodeURIComponent(e.endpoint_id)}&status=dead_lettered`}
                      >
                        {e.dead_letters_waiting}
                      </a>
                    ) : (
                      0
                    )}
                    {e.oldest_dead_letter_at && <div class="muted">oldest {when(e.oldest_dead_letter_at)}</div>}
                  </td>
                  <td class="num">
                    {percent(e.success_rate_last_hour)} <span class="muted">of {e.sends_last_hour}</span>
                  </td>
                  <td class="num">
                    {e.failed_last_hour} / {e.failed_last_day}
                  </td>
                  <td>
                    {e.last_http_status !== null ? `HTTP ${e.last_http_status}` : <Code kind="error-class" code={e.last_error_class} />}
                    <div class="muted">{when(e.last_attempt_at)}</div>
                  </td>
                  <td>
                    <Badge kind="circuit" value={e.circuit_state} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </ListState>
      {data && (offset > 0 || data.next_offset !== null) && (
        <p class="pager">
          <button type="button" class="secondary" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - PAGE))}>
            Previous {PAGE}
          </button>{' '}
          <button
            type="button"
            class="secondary"
            disabled={data.next_offset === null}
            onClick={() => setOffset(data.next_offset ?? offset)}
          >
            Next {PAGE}
          </button>
        </p>
      )}
    </>
  );
}
