/*
 * A partner sends a test event: a sample callback of the status it chooses to one of its endpoints,
 * signed exactly as real ones; the endpoint's answer is shown at once (status, time, the start of its
 * body, the headers sent), and the test is in the log, marked as one, never retried.
 */
import { useState } from 'preact/hooks';
import { client, type Schema } from '../api';
import { sendTestEvent, type TestEvent } from '../api/retry-now';
import { Badge, Facts, Failure, Section } from '../components/basics';
import { BusyButton, useAction } from '../components/busy-button';
import { Code } from '../components/code';
import { SelectField } from '../components/select-field';
import { formText } from '../form-text';
import { ms, pretty, statusWords } from '../format';
import { link } from '../router';
import { useApi } from '../use-api';

type Status = Schema<'TestEventRequest'>['status'];

const STATUSES: Array<[Status, string]> = [
  ['POLICY_ACTIVE', statusWords('POLICY_ACTIVE')],
  ['POLICY_ISSUING', statusWords('POLICY_ISSUING')],
  ['POLICY_CANCELLED', statusWords('POLICY_CANCELLED')],
];

export function TestEventPage() {
  const { data, error: loadError } = useApi(() => client.GET('/api/portal/v1/endpoints'), []);
  const [result, setResult] = useState<TestEvent | undefined>(undefined);
  const action = useAction();
  const endpoints = (data?.data.endpoints ?? []).filter((e) => e.url !== null);
  const [chosenEndpoint, setChosenEndpoint] = useState<string | undefined>(undefined);
  const [status, setStatus] = useState<Status>('POLICY_ACTIVE');
  const endpoint = endpoints.find((e) => e.endpoint_id === chosenEndpoint) ?? endpoints[0];
  const send = action.submit(async (form) => {
    setResult(undefined);
    setResult(await sendTestEvent(formText(form, 'endpoint'), formText(form, 'status') as Status));
  });
  return (
    <>
      <h1>Send a test event</h1>
      <p class="lead">
        A sample callback (policy number TEST-…, your body mapping, signed exactly as real ones) goes to the endpoint you choose; its answer
        shows here. It is in your deliveries as a test event, and never retried.
      </p>
      <Failure error={loadError} />
      {!data && !loadError && <p>Loading your endpoints…</p>}
      {data && (
        <Section title="Test event">
          <form class="inline-form" onSubmit={send}>
            <label>
              <span>Endpoint</span>
              <SelectField
                name="endpoint"
                initial={endpoints[0]?.endpoint_id ?? ''}
                options={endpoints.map((e) => [e.endpoint_id, `${e.endpoint_id} (${e.url})`])}
                onChange={setChosenEndpoint}
              />
            </label>
            <label>
              <span>Status</span>
              <SelectField name="status" initial="POLICY_ACTIVE" options={STATUSES} onChange={(value) => setStatus(value as Status)} />
            </label>
            <BusyButton busy={action.busy} busyLabel="Sending…" disabled={endpoints.length === 0}>
              Send test event
            </BusyButton>
          </form>
          {endpoints.length === 0 && <p class="empty">You have no callback endpoint to test.</p>}
          {endpoint && (
            <NeverReceived endpointId={endpoint.endpoint_id} statuses={endpoint.configuration?.statuses ?? []} status={status} />
          )}
          <Failure error={action.error} />
          {result && <TestAnswer result={result} />}
        </Section>
      )}
    </>
  );
}

/**
 * A test of a status the endpoint never receives (its statuses leave it out) is still sent, as asked,
 * but says so first: its answer tells nothing of what the endpoint really gets.
 */
function NeverReceived({ endpointId, statuses, status }: { endpointId: string; statuses: string[]; status: Status }) {
  if (statuses.length === 0 || statuses.includes(status)) return null;
  const named = (value: string) => STATUSES.find(([s]) => s === value)?.[1] ?? value;
  return (
    <p class="warning" role="status" data-testid="never-received">
      {endpointId} receives only {statuses.map(named).join(', ')}: real {named(status)} callbacks never go to it. The test is sent as you
      ask; to try what it really gets, choose one of its statuses, or change them on <a href={link('endpoints')}>Endpoints</a>.
    </p>
  );
}

function TestAnswer({ result }: { result: TestEvent }) {
  const delivery = <a href={link('deliveries', result.delivery_id)}>{result.policy_number}</a>;
  if (!result.answered)
    return (
      <p class="note" role="status">
        Sent; its answer is not in yet. Follow it in the log: {delivery}.
      </p>
    );
  return (
    <div role="status" data-testid="test-answer" class={result.outcome === 'DELIVERED' ? 'ok' : 'failure'}>
      <p>
        {/* "failed, will retry" would not be true: a test is sent once. */}
        <Badge
          kind="outcome"
          value={result.outcome ?? 'FAILED_ATTEMPT'}
          label={result.outcome === 'DELIVERED' ? 'delivered' : 'failed'}
        />{' '}
        {result.outcome === 'DELIVERED' ? 'Your endpoint took it' : 'Your endpoint did not take it'}: {delivery}
      </p>
      <Facts
        rows={[
          ['HTTP status', result.http_status ?? '–'],
          ['Latency', ms(result.latency_ms)],
          ['Error', <Code kind="error-class" code={result.error_class} />],
        ]}
      />
      {result.response_excerpt !== null && result.response_excerpt !== '' && (
        <details open>
          <summary>Answer (first 1,024 bytes)</summary>
          <pre>{pretty(result.response_excerpt)}</pre>
        </details>
      )}
    </div>
  );
}
