/*
 * A partner's own callback endpoints: each with its configuration and its health, added, edited,
 * disabled (enabled again) and deleted here; disabling and deleting are confirmed first. Changes
 * need the API key sign-in (a portal link reads only) and self-service on (the insurer may turn it
 * off); the page says so rather than offering what would be refused. Retrying an endpoint's failing
 * deliveries (retry-failing.tsx) is no change of the endpoint: offered on every sign-in, as retry now is.
 */
import { useState } from 'preact/hooks';
import type { Session } from '../api';
import { deleteEndpoint, editEndpoint, endpointsCall, type OwnEndpointView } from '../api/self-service';
import { Failure, Section } from '../components/basics';
import { BusyButton, useAction } from '../components/busy-button';
import { useConfirm } from '../components/confirm';
import { ListState } from '../components/list-state';
import { endpointLabel, ms, percent, statusWords } from '../format';
import { link } from '../router';
import { useApi } from '../use-api';
import { EndpointForm } from './endpoint-form';
import { RetryFailing } from './retry-failing';

export function EndpointsPage({ session }: { session: Session }) {
  const { data, error, loading, reload } = useApi(endpointsCall, []);
  const [done, setDone] = useState<string | undefined>(undefined);
  const [editing, setEditing] = useState<string | undefined>(undefined);
  const [acting, setActing] = useState<string | undefined>(undefined);
  const action = useAction();
  const confirm = useConfirm();

  const changed = (message: string) => {
    setDone(message);
    setEditing(undefined);
    void reload();
  };
  /** A change of one endpoint from its row: asked first when `question` is given, its button busy meanwhile. */
  const act = async (key: string, work: () => Promise<unknown>, message: string, question?: Parameters<typeof confirm.ask>[0]) => {
    if (question && !(await confirm.ask(question))) return;
    setActing(key);
    if (await action.run(async () => void (await work()))) changed(message);
  };

  const health = data?.data;
  const configured = (health?.endpoints ?? []).filter((e) => e.configuration);
  const byLink = session.holds === 'portal_link';
  const writable = health !== undefined && health.self_service !== false && !byLink;
  return (
    <>
      {confirm.dialog}
      <h1>Endpoints</h1>
      {/* Said plainly, and not beside a line offering the changes it refuses. */}
      {health?.self_service === false ? (
        <p class="warning" role="note">
          The insurer turned self-service off for you: you cannot add, edit, disable or delete endpoints here. Ask your contact at the
          insurer to change them.
        </p>
      ) : (
        byLink && (
          <p class="note" role="note">
            Opened with a portal link, the console shows your endpoints but changes none: sign in with your API key to change them.
          </p>
        )
      )}
      <p>
        Where your callbacks go.{writable && ' Each change you make here is recorded in the insurer’s audit trail.'}{' '}
        <a href={link('health')}>Hour by hour health</a> ·{' '}
        {/* Not in the menu, which holds one line no longer: the page belongs with the endpoints it watches. */}
        <a href={link('notifications')}>Notify me when an endpoint fails</a>
      </p>
      {done && (
        <p class="ok" role="status">
          {done}
        </p>
      )}
      <Failure error={error ?? action.error} />
      <Section title="Your callback endpoints">
        <ListState loading={loading} failed={error !== undefined} count={configured.length} what="your endpoints" empty="No endpoint yet.">
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
                {configured.map((e) => (
                  <EndpointRow
                    key={e.endpoint_id}
                    endpoint={e}
                    writable={writable}
                    busy={action.busy ? acting : undefined}
                    act={act}
                    onEdit={setEditing}
                  />
                ))}
              </tbody>
            </table>
          </div>
        </ListState>
        {editing && (
          <EndpointForm
            key={editing}
            editing={configured.find((e) => e.endpoint_id === editing)}
            onSaved={changed}
            onCancel={() => setEditing(undefined)}
          />
        )}
      </Section>
      {configured.length > 0 && <RetryFailing endpoints={configured} />}
      {writable && (
        <Section title="Add an endpoint">
          <EndpointForm onSaved={changed} />
        </Section>
      )}
    </>
  );
}

function EndpointRow({
  endpoint: e,
  writable,
  busy,
  act,
  onEdit,
}: {
  endpoint: OwnEndpointView;
  writable: boolean;
  /** The key of the row action whose request is in flight, if any. */
  busy: string | undefined;
  act: (
    key: string,
    work: () => Promise<unknown>,
    message: string,
    question?: { title: string; body: string; action: string },
  ) => Promise<void>;
  onEdit: (endpointId: string) => void;
}) {
  const c = e.configuration!;
  const id = e.endpoint_id;
  const label = endpointLabel(e);
  return (
    <tr>
      <td>
        {e.name ? (
          <>
            <strong>{e.name}</strong> <code>{id}</code>
          </>
        ) : (
          <code>{id}</code>
        )}
        {e.description && <div class="muted">{e.description}</div>}
      </td>
      <td class="wrap">{e.url}</td>
      <td>{c.statuses.length === 0 ? 'all' : c.statuses.map(statusWords).join(', ')}</td>
      <td class="num">{ms(c.timeout_ms)}</td>
      <td>{c.disabled ? 'disabled: receives nothing new' : 'enabled'}</td>
      <td>
        {e.last_hour.sends} sent, {percent(e.last_hour.success_rate)} delivered
      </td>
      {writable && (
        <td class="actions">
          <button type="button" class="secondary" disabled={busy !== undefined} onClick={() => onEdit(id)}>
            Edit
          </button>{' '}
          {c.disabled ? (
            <BusyButton
              type="button"
              class="secondary"
              busy={busy === `enable-${id}`}
              disabled={busy !== undefined}
              busyLabel="Enabling…"
              onClick={() => void act(`enable-${id}`, () => editEndpoint(id, { disabled: false }), `Endpoint ${label} enabled.`)}
            >
              Enable
            </BusyButton>
          ) : (
            <BusyButton
              type="button"
              class="secondary"
              busy={busy === `disable-${id}`}
              disabled={busy !== undefined}
              busyLabel="Disabling…"
              onClick={() =>
                void act(`disable-${id}`, () => editEndpoint(id, { disabled: true }), `Endpoint ${label} disabled.`, {
                  title: `Disable endpoint ${label}?`,
                  body: `${e.url} receives no new callback until you enable it again; callbacks already queued for it are still sent.`,
                  action: 'Disable endpoint',
                })
              }
            >
              Disable
            </BusyButton>
          )}{' '}
          <BusyButton
            type="button"
            class="danger"
            busy={busy === `delete-${id}`}
            disabled={busy !== undefined}
            busyLabel="Deleting…"
            onClick={() =>
              void act(`delete-${id}`, () => deleteEndpoint(id), `Endpoint ${label} deleted.`, {
                title: `Delete endpoint ${label}?`,
                body: `${e.url} stops receiving callbacks. Callbacks already queued for it will not be delivered (they end as dead letters). To pause it instead, disable it.`,
                action: 'Delete endpoint',
              })
            }
          >
            Delete
          </BusyButton>
        </td>
      )}
    </tr>
  );
}
