/*
 * The event catalogue: each policy status the partner is called back about, what it means, which of
 * its endpoints receive it, and the callback's body exactly as the partner gets it (its body mapping
 * applied to the sample policy); the headers every callback carries and how to verify one. A
 * partner's own, or any partner's for an operator. Nothing is sent from here.
 */
import { client, type Schema, type Session } from '../api';
import { Failure, Section } from '../components/basics';
import { pretty, statusWords } from '../format';
import { link } from '../router';
import { useApi } from '../use-api';

type EventType = Schema<'EventCatalogue'>['event_types'][number];

export function EventTypesPage({ session, partnerId }: { session: Session; partnerId: string | null }) {
  const { data, error } = useApi(
    () =>
      partnerId === null
        ? client.GET('/api/portal/v1/event-types')
        : client.GET('/api/admin/v1/partners/{partnerId}/event-types', { params: { path: { partnerId } } }),
    [partnerId],
  );
  if (error) return <Failure error={error} />;
  if (!data) return <p role="status">Loading the event types…</p>;
  const catalogue = data.data;
  const whose = session.kind === 'partner' ? 'your' : `${catalogue.partner_id}’s`;
  return (
    <>
      <h1>Event types</h1>
      <p>
        What {session.kind === 'partner' ? 'you are' : `${catalogue.partner_id} is`} called back about: a POST to {whose} endpoints each
        time a policy’s status changes, with the body as {session.kind === 'partner' ? 'your endpoint gets it' : 'its endpoint gets it'}.
        Nothing is sent from this page
        {session.kind === 'partner' ? (
          <>
            : <a href={link('test-event')}>Send a test event</a> sends a real one, signed as every callback is.
          </>
        ) : (
          '.'
        )}
      </p>
      {catalogue.event_types.map((type) => (
        <EventTypeSection key={type.status} type={type} whose={whose} />
      ))}
      <Section title="Headers of every callback">
        <table>
          <thead>
            <tr>
              <th scope="col">Header</th>
              <th scope="col">Value</th>
            </tr>
          </thead>
          <tbody>
            {catalogue.headers.map((h) => (
              <tr key={h.name}>
                <td>
                  <code>{h.name}</code>
                </td>
                <td>{h.value}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </Section>
      {catalogue.verification && (
        <Section title={`Verifying a callback (${catalogue.verification.method})`}>
          <ol>
            {catalogue.verification.steps.map((step) => (
              <li key={step}>{step}</li>
            ))}
          </ol>
        </Section>
      )}
    </>
  );
}

function EventTypeSection({ type, whose }: { type: EventType; whose: string }) {
  return (
    <Section title={`${statusWords(type.status)} (${type.status})`}>
      <p>{type.description}</p>
      {type.endpoints.length === 0 ? (
        <p class="warning">None of {whose} endpoints receives it: their statuses leave it out, or they are disabled.</p>
      ) : (
        <p>
          Received by{' '}
          {type.endpoints.map((e, i) => (
            <span key={e.endpoint_id}>
              {i > 0 && ', '}
              {e.name ? `${e.name} (${e.endpoint_id})` : <code>{e.endpoint_id}</code>}
              {e.product_codes.length > 0 && ` for products ${e.product_codes.join(', ')} only`}
            </span>
          ))}
          .
        </p>
      )}
      {type.example_body === null ? (
        <p class="warning">{type.problem}</p>
      ) : (
        <details open>
          <summary>Example body (policy EXAMPLE-0001)</summary>
          <pre class="body">{pretty(type.example_body)}</pre>
        </details>
      )}
    </Section>
  );
}
