/*
 * A partner's own callback endpoints: each with its configuration and its health, added, edited,
 * disabled (enabled again) and deleted here; disabling and deleting are confirmed first. Changes
 * need the API key sign-in (a portal link reads only) and self-service on (the insurer may turn it
 * off); the page says so rather than offering what would be refused.
 */
import { useState } from 'preact/hooks';
import type { Session } from '../api';
import { deleteEndpoint, editEndpoint, ENDPOINTS_URL, type OwnEndpoints, type OwnEndpointView } from '../api/self-service';
import { Failure, Section } from '../components/basics';
import { ConfirmStep } from '../components/confirm-step';
import { ms, percent } from '../format';
import { link } from '../router';
import { useApi } from '../use-api';
import { EndpointForm } from './endpoint-form';

type Pending = { kind: 'delete' | 'disable'; endpoint: OwnEndpointView };

export function EndpointsPage({ session }: { session: Session }) {
  const { data, error, reload } = useApi<{ data: OwnEndpoints }>(ENDPOINTS_URL);
  const [done, setDone] = useState<string | undefined>(undefined);
  const [editing, setEditing] = useState<string | undefined>(undefined);
  const [pending, setPending] = useState<Pending | undefined>(undefined);
  const [busy, setBusy] = useState<string | undefined>(undefined);
  const [actionError, setActionError] = useState<Error | undefined>(undefined);

  const changed = (message: string) => {
    setDone(message);
    setEditing(undefined);
    setPending(undefined);
    setActionError(undefined);
    void reload();
  };
  const run = async (key: string, work: () => Promise<unknown>, message: string) => {
    setBusy(key);
    try {
      await work();
      changed(message);
    } catch (failure) {
      setActionError(failure as Error);
    } finally {
      setBusy(undefined);
    }
  };

  if (error && !data) return <Failure error={error} />;
  if (!data) return <p role="status">Loading your endpoints…</p>;
  const { endpoints, self_service } = data.data;
  const configured = endpoints.filter((e) => e.configuration);
  const byLink = session.holds === 'portal_link';
  const writable = self_service !== false && !byLink;
  return (
    <>
      <h1>Endpoints</h1>
      {self_service === false ? (
        <p class="note" role="note">
          The insurer turned self-service off for you: your endpoints are shown, but changes go through your contact at the insurer.
        </p>
      ) : (
        byLink && (
          <p class="note" role="note">
            Opened with a portal link, the console shows your endpoints but changes none: sign in with your API key to change them.
          </p>
        )
      )}
      <p>
        Where your callbacks go. Changes need you signed in with your API key; each is recorded in the insurer’s audit trail.{' '}
        <a href={link('health')}>Hour by hour health</a>
      </p>
      {done && (
        <p class="ok" role="status">
          {done}
        </p>
      )}
      <Failure error={actionError} />
      <Section title="Your callback endpoints">
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Endpoint</th>
                <th scope="col">URL</th>
                <th scope="col">Statuses</th>
                <th scope="col">Timeout</th>
                <th scope="col">State</th>
                <th scope="col">Last hour</th>
                {writable && <th scope="col">Actions</th>}
              </tr>
            </thead>
            <tbody>
              {configured.map((e) => {
                const c = e.configuration!;
                return (
                  <tr key={e.endpoint_id}>
                    <td>
                      <code>{e.endpoint_id}</code>
                    </td>
                    <td class="wrap">{e.url}</td>
                    <td>{c.statuses.length === 0 ? 'all' : c.statuses.map((s) => s.replace('POLICY_', '').toLowerCase()).join(', ')}</td>
                    <td class="num">{ms(c.timeout_ms)}</td>
                    <td>{c.disabled ? 'disabled: receives nothing new' : 'enabled'}</td>
                    <td>
                      {e.last_hour.sends} sent, {percent(e.last_hour.success_rate)} delivered
                    </td>
                    {writable && (
                      <td class="actions">
                        <button type="button" class="secondary" onClick={() => setEditing(e.endpoint_id)}>
                          Edit
                        </button>{' '}
                        {c.disabled ? (
                          <button
                            type="button"
                            class="secondary"
                            disabled={busy !== undefined}
                            aria-busy={busy === `enable-${e.endpoint_id}`}
                            onClick={() =>
                              void run(
                                `enable-${e.endpoint_id}`,
                                () => editEndpoint(e.endpoint_id, { disabled: false }),
                                `Endpoint ${e.endpoint_id} enabled.`,
                              )
                            }
                          >
                            {busy === `enable-${e.endpoint_id}` ? 'Enabling…' : 'Enable'}
                          </button>
                        ) : (
                          <button type="button" class="secondary" onClick={() => setPending({ kind: 'disable', endpoint: e })}>
                            Disable
                          </button>
                        )}{' '}
                        <button type="button" class="danger" onClick={() => setPending({ kind: 'delete', endpoint: e })}>
                          Delete
                        </button>
                      </td>
                    )}
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
        {pending && (
          <ConfirmStep
            key={`${pending.kind}-${pending.endpoint.endpoint_id}`}
            title={`${pending.kind === 'delete' ? 'Delete' : 'Disable'} endpoint ${pending.endpoint.endpoint_id}?`}
            confirm={pending.kind === 'delete' ? 'Delete endpoint' : 'Disable endpoint'}
            busyLabel={pending.kind === 'delete' ? 'Deleting…' : 'Disabling…'}
            busy={busy === 'confirm'}
            onCancel={() => setPending(undefined)}
            onConfirm={() =>
              void run(
                'confirm',
                () =>
                  pending.kind === 'delete'
                    ? deleteEndpoint(pending.endpoint.endpoint_id)
                    : editEndpoint(pending.endpoint.endpoint_id, { disabled: true }),
                `Endpoint ${pending.endpoint.endpoint_id} ${pending.kind === 'delete' ? 'deleted' : 'disabled'}.`,
              )
            }
          >
            <p>
              {pending.kind === 'delete'
                ? 'It stops receiving callbacks. Callbacks already queued for it will not be delivered (they end as dead letters). To pause it instead, disable it.'
                : 'It receives no new callback until you enable it again; callbacks already queued for it are still sent.'}
            </p>
            <p>
              <code>{pending.endpoint.url}</code>
            </p>
          </ConfirmStep>
        )}
        {editing && (
          <EndpointForm
            key={editing}
            editing={configured.find((e) => e.endpoint_id === editing)}
            onSaved={changed}
            onCancel={() => setEditing(undefined)}
          />
        )}
      </Section>
      {writable && (
        <Section title="Add an endpoint">
          <EndpointForm onSaved={changed} />
        </Section>
      )}
    </>
  );
}
