/*
 * Partners for operators: the list, one partner's page (its keys, a portal link for its people and
 * those issued (portal-links.tsx), disable or enable) and the onboarding form (partner-form.tsx).
 */
import { useState } from 'preact/hooks';
import { client, write, type Schema, type Session } from '../api';
import { Badge, Facts, Failure, Section } from '../components/basics';
import { BusyButton, useAction } from '../components/busy-button';
import { useConfirm } from '../components/confirm';
import { CopyField } from '../components/copy-field';
import { ListState } from '../components/list-state';
import { formText } from '../form-text';
import { when } from '../format';
import { link } from '../router';
import { useApi } from '../use-api';
import { ApiKeys } from './api-keys';
import { PortalLinks } from './portal-links';
import { SelfServiceSwitch } from './self-service-switch';
import { NotificationSwitch } from './notification-switch';

export type PartnerView = Schema<'Partner'>;

export function PartnersPage({ session }: { session: Session }) {
  // Part of an id or a name, in any case (the API's `search`); every partner while it is empty.
  const [search, setSearch] = useState('');
  const query = search.trim();
  const { data, error } = useApi(
    () => client.GET('/api/admin/v1/partners', { params: { query: query ? { search: query } : {} } }),
    [query],
  );
  const writer = session.kind === 'operator' && session.role === 'operator';
  return (
    <>
      <h1>Partners</h1>
      {writer && (
        <p>
          <a class="button" href={link('partners', 'new')}>
            Onboard a partner
          </a>
        </p>
      )}
      <p>
        <label>
          Find a partner{' '}
          <input
            type="search"
            value={search}
            maxLength={100}
            placeholder="part of its id or name"
            onInput={(e) => setSearch(e.currentTarget.value)}
          />
        </label>
      </p>
      <Failure error={error} />
      <ListState
        loading={data === undefined}
        failed={error !== undefined}
        count={data?.data.length ?? 0}
        what="partners"
        empty={query ? `No partner's id or name contains “${query}”.` : 'No partners yet.'}
      >
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Partner</th>
                <th scope="col">Name</th>
                <th scope="col">Status</th>
                <th scope="col">Endpoints</th>
                <th scope="col">Auth</th>
                <th scope="col">Updated</th>
              </tr>
            </thead>
            <tbody>
              {data?.data.map((p) => (
                <tr key={p.partner_id}>
                  <td>
                    <a href={link('partners', p.partner_id)}>{p.partner_id}</a>
                  </td>
                  <td>{p.name}</td>
                  <td>
                    <Badge kind="partner-status" value={p.status} />
                  </td>
                  <td class="num">{p.callback_endpoints.length}</td>
                  <td>{p.outbound_auth?.method ?? '–'}</td>
                  <td>{when(p.updated_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </ListState>
    </>
  );
}

export function PartnerPage({ session, partnerId }: { session: Session; partnerId: string }) {
  const path = { params: { path: { partnerId } } };
  const { data, error, reload } = useApi(() => client.GET('/api/admin/v1/partners/{partnerId}', path), [partnerId]);
  const links = useApi(() => client.GET('/api/admin/v1/partners/{partnerId}/portal-tokens', path), [partnerId]);
  const writer = session.kind === 'operator' && session.role === 'operator';
  // A link issued, a partner disabled: both lists change.
  const reloadBoth = () => {
    void reload();
    void links.reload();
  };
  if (error) return <Failure error={error} />;
  if (!data) return <p role="status">Loading the partner…</p>;
  const p = data.data;
  return (
    <>
      <h1>
        {p.name} <span class="muted">{p.partner_id}</span>
      </h1>
      <p>
        {writer && (
          <a class="button" href={link('partners', p.partner_id, 'edit')}>
            Change
          </a>
        )}{' '}
        <a href={`${link('deliveries')}?partner_id=${encodeURIComponent(p.partner_id)}`}>Its deliveries</a> ·{' '}
        <a href={`${link('health')}?partner_id=${encodeURIComponent(p.partner_id)}`}>Its endpoints’ health</a> ·{' '}
        <a href={link('partners', p.partner_id, 'event-types')}>Its event types and example callbacks</a>
      </p>
      <Section title="Configuration">
        <Facts
          rows={[
            ['Status', <Badge kind="partner-status" value={p.status} />],
            ['Revision', p.revision],
            ['Updated', when(p.updated_at)],
            ['Outbound auth', p.outbound_auth?.method ?? 'none'],
            ['Self-service', p.self_service === false ? 'off' : 'on'],
            ['Body', `${p.body.shape.toLowerCase()}, absent fields ${p.body.absent_fields.toLowerCase()}`],
          ]}
        />
        <ul>
          {p.callback_endpoints.map((e) => (
            <li key={e.endpoint_id}>
              <code>{e.endpoint_id}</code> {e.url}{' '}
              <span class="muted">
                ({e.ordering.toLowerCase()}, {e.timeout_ms} ms{e.disabled ? ', disabled' : ''})
              </span>
            </li>
          ))}
        </ul>
      </Section>
      <ApiKeys partner={p} writer={writer} onDone={reloadBoth} />
      {writer && <PartnerActions partner={p} onDone={reloadBoth} />}
      {writer && <SelfServiceSwitch partnerId={p.partner_id} enabled={p.self_service !== false} onDone={reloadBoth} />}
      <NotificationSwitch partnerId={p.partner_id} writer={writer} />
      <PortalLinks partnerId={p.partner_id} links={links.data?.data ?? []} writer={writer} onDone={reloadBoth} />
    </>
  );
}

function PartnerActions({ partner, onDone }: { partner: PartnerView; onDone: () => void }) {
  const [link_, setLink] = useState<string | undefined>(undefined);
  const [newKey, setNewKey] = useState<{ key_id: string; api_key: string } | undefined>(undefined);
  const confirm = useConfirm();
  const issuing = useAction();
  const rotating = useAction();
  const switching = useAction();
  const path = { partnerId: partner.partner_id };
  const active = partner.status === 'ACTIVE';
  // No overlap: the partner's webhooks are refused until it has the new key.
  const askNoOverlap = (form: HTMLFormElement) =>
    Number(formText(form, 'overlap_hours')) !== 0
      ? Promise.resolve(true)
      : confirm.ask({
          title: `Rotate ${partner.name}’s API key with no overlap?`,
          body: (
            <p>
              Its current keys stop working <strong>now</strong>: every webhook it sends is refused (401) until it uses the new key, which
              is shown once. Use this for a leaked key.
            </p>
          ),
          action: 'Rotate now, no overlap',
        });
  const askDisable = () =>
    !active
      ? Promise.resolve(true)
      : confirm.ask({
          title: `Disable ${partner.name}?`,
          body: (
            <>
              <p>All its API keys are refused at once (its webhooks answered 401), and its portal links and console sessions end.</p>
              {/* What the sender and the consumer do (deliver-callback.ts, plan-callbacks.ts): PARTNER_DISABLED is undeliverable. */}
              <p>
                No callback is sent to it: each callback already waiting for a retry is <strong>dead-lettered</strong> at its next attempt,
                and each new policy status is dead-lettered too (PARTNER_DISABLED). Enabling it again sends none of them: replay them from
                Dead letters (topics callback and policy-status); the partner can recover only the first.
              </p>
            </>
          ),
          action: 'Disable partner',
        });
  return (
    <Section title="Actions">
      {confirm.dialog}
      <form
        class="inline-form"
        onSubmit={issuing.submit(async (form) => {
          const reason = formText(form, 'reason');
          const { data } = await write(
            client.POST('/api/admin/v1/partners/{partnerId}/portal-tokens', { params: { path }, body: { reason, ttl_minutes: 24 * 60 } }),
          );
          setLink(`${location.origin}/console/#/portal?token=${encodeURIComponent(data.token)}`);
          onDone();
        })}
      >
        <label>
          <span>Why the partner gets access (audited)</span>
          <input name="reason" required placeholder="onboarding call with their engineer" />
        </label>
        <BusyButton busy={issuing.busy} busyLabel="Issuing…">
          Issue a portal link (24 h)
        </BusyButton>
        <Failure error={issuing.error} />
      </form>
      {link_ && <CopyField label="Portal link, shown once" value={link_} />}
      <form
        class="inline-form"
        onSubmit={rotating.submit(async (form) => {
          const reason = formText(form, 'reason');
          const overlapHours = Number(formText(form, 'overlap_hours'));
          const { data } = await write(
            client.POST('/api/admin/v1/partners/{partnerId}/api-keys/rotate', {
              params: { path },
              body: { reason, overlap_hours: overlapHours },
            }),
          );
          setNewKey(data);
          onDone();
        }, askNoOverlap)}
      >
        <label>
          <span>Why its inbound API key is rotated (audited)</span>
          <input name="reason" required placeholder="yearly rotation" />
        </label>
        <label>
          <span>Its other keys keep working for (hours; 0 for a leaked key)</span>
          <input name="overlap_hours" type="number" min={0} max={720} step={1} required defaultValue="24" />
        </label>
        <BusyButton busy={rotating.busy} busyLabel="Rotating…">
          Rotate its API key
        </BusyButton>
        <Failure error={rotating.error} />
      </form>
      {newKey && <CopyField label={`New API key ${newKey.key_id}, shown once: give it to the partner`} value={newKey.api_key} />}
      <form
        class="inline-form"
        onSubmit={switching.submit(async (form) => {
          const reason = formText(form, 'reason');
          const init = { params: { path }, body: { reason } };
          await write(
            active
              ? client.POST('/api/admin/v1/partners/{partnerId}/disable', init)
              : client.POST('/api/admin/v1/partners/{partnerId}/enable', init),
          );
          onDone();
        }, askDisable)}
      >
        <label>
          <span>Reason</span>
          <input name="reason" required />
        </label>
        <BusyButton busy={switching.busy} busyLabel={active ? 'Disabling…' : 'Enabling…'} class={active ? 'danger' : ''}>
          {active ? 'Disable partner' : 'Enable partner'}
        </BusyButton>
        <Failure error={switching.error} />
      </form>
    </Section>
  );
}
