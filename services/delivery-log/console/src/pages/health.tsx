/*
 * How a partner's endpoints are doing: per endpoint, the share of requests answered 200 and the
 * 95th percentile of their latency over the last hour and day, an hour-by-hour chart of the day,
 * and the partner's circuit as the sender last recorded it.
 */
import { useEffect, useState } from 'preact/hooks';
import { client, type Session } from '../api';
import { Badge, Facts, Failure, Section } from '../components/basics';
import { glossaryHref } from '../components/code';
import { Filters } from '../components/filters';
import { HourlyChart } from '../components/hourly-chart';
import { endpointLabel, ms, percent, when } from '../format';
import { useApi } from '../use-api';

/**
 * How often the page asks again, while it is on screen: its figures are over an hour and a day,
 * so they hardly move in seconds, and each answer is computed over a day of attempts.
 */
const HEALTH_INTERVAL_MS = 30_000;

export function HealthPage({ session, partnerId }: { session: Session; partnerId: string | null }) {
  const chosen = session.kind === 'partner' || partnerId !== null;
  const { data, error } = useApi(
    !chosen
      ? null
      : () =>
          session.kind === 'partner' || !partnerId
            ? client.GET('/api/portal/v1/endpoints')
            : client.GET('/api/admin/v1/partners/{partnerId}/endpoints', { params: { path: { partnerId } } }),
    [session.kind, partnerId],
    () => true,
    HEALTH_INTERVAL_MS,
  );
  // When the figures were read: the circuit's own time is its latest record's, minutes old on a quiet
  // endpoint, and read as "as of" it looked like a stale page (issue 46).
  const [readAt, setReadAt] = useState<Date | undefined>(undefined);
  useEffect(() => setReadAt(data ? new Date() : undefined), [data]);
  const chooser =
    session.kind === 'operator' ? (
      <Filters
        segments={['health']}
        fields={[{ name: 'partner_id', label: 'Partner', type: 'partner' }]}
        values={{ partner_id: partnerId ?? undefined }}
      />
    ) : null;
  if (!chosen)
    return (
      <>
        <h1>Endpoint health</h1>
        {chooser}
        <p>Choose a partner to see its endpoints’ health.</p>
      </>
    );
  if (error) return <Failure error={error} />;
  if (!data) return <p role="status">Loading the endpoints’ health…</p>;
  const h = data.data;
  return (
    <>
      <h1>Endpoint health</h1>
      {chooser}
      <p>
        Circuit: <Badge kind="circuit" value={h.circuit_state} />{' '}
        <a class="muted" href={glossaryHref('circuit', h.circuit_state)}>
          what is this?
        </a>
        {h.circuit_as_of && <span class="muted"> (the sender’s latest record of it: {when(h.circuit_as_of)})</span>}
        {h.circuit_state === 'open' && <span> — requests are paused after repeated failures; one probe is sent before they resume.</span>}
      </p>
      {readAt && (
        <p class="muted" data-testid="read-at">
          Read {when(readAt.toISOString())}; read again every {HEALTH_INTERVAL_MS / 1000} s while this page is on screen.
        </p>
      )}
      {h.endpoints.map((e) => (
        <Section key={e.endpoint_id} title={`Endpoint ${endpointLabel(e)}`}>
          <p class="muted">{e.url ?? '(since removed)'}</p>
          <Facts
            rows={[
              ['Success, last hour', `${percent(e.last_hour.success_rate)} of ${e.last_hour.sends}`],
              ['p95 latency, last hour', ms(e.last_hour.p95_latency_ms)],
              ['Success, last day', `${percent(e.last_day.success_rate)} of ${e.last_day.sends}`],
              ['p95 latency, last day', ms(e.last_day.p95_latency_ms)],
            ]}
          />
          <HourlyChart hours={e.hourly} />
        </Section>
      ))}
      {h.endpoints.length === 0 && <p class="empty">No callback endpoints.</p>}
    </>
  );
}
