/*
 * Partners for operators: the list, one partner's page (its keys, a portal link for its people and
 * those issued (portal-links.tsx), disable or enable) and the onboarding form (partner-form.tsx).
 */
import { useState } from 'preact/hooks';
import { api, type Session } from '../api';
import { Badge, Facts, Failure, Section } from '../components/basics';
import { CopyField } from '../components/copy-field';
import { formText } from '../form-text';
import { when } from '../format';
import { link } from '../router';
import { useApi } from '../use-api';
import { PortalLinks, type PortalLinkView } from './portal-links';
import { SelfServiceSwitch } from './self-service-switch';

export interface PartnerView {
  partner_id: string;
  name: string;
  status: 'ACTIVE' | 'DISABLED';
  self_service?: boolean;
  revision: number;
  updated_at: string;
  callback_endpoints: Array<{
    endpoint_id: string;
    url: string;
    timeout_ms: number;
    statuses: string[];
    product_codes: string[];
    ordering: string;
    disabled?: boolean;
  }>;
  outbound_auth?: { method: string } & Record<string, unknown>;
  body: { shape: string; rules: unknown[]; absent_fields: string };
  api_keys: Array<{ key_id: string; prefix: string; created_at: string; expires_at: string | null; revoked_at: string | null }>;
}

export function PartnersPage({ session }: { session: Session }) {
  const { data, error } = useApi<{ data: PartnerView[] }>('/api/admin/v1/partners');
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
      <Failure error={error} />
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
                  <Badge value={p.status === 'ACTIVE' ? 'delivered' : 'superseded'} /> {p.status.toLowerCase()}
                </td>
                <td class="num">{p.callback_endpoints.length}</td>
                <td>{p.outbound_auth?.method ?? '–'}</td>
                <td>{when(p.updated_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}

export function PartnerPage({ session, partnerId }: { session: Session; partnerId: string }) {
  const { data, error, reload } = useApi<{ data: PartnerView }>(`/api/admin/v1/partners/${encodeURIComponent(partnerId)}`);
  const links = useApi<{ data: PortalLinkView[] }>(`/api/admin/v1/partners/${encodeURIComponent(partnerId)}/portal-tokens`);
  const writer = session.kind === 'operator' && session.role === 'operator';
  // A link issued, a partner disabled: both lists change.
  const reloadBoth = () => {
    void reload();
    void links.reload();
  };
  if (error) return <Failure error={error} />;
  if (!data) return <p>Loading…</p>;
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
        <a href={`${link('health')}?partner_id=${encodeURIComponent(p.partner_id)}`}>Its endpoints’ health</a>
      </p>
      <Section title="Configuration">
        <Facts
          rows={[
            ['Status', p.status],
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
      <Section title="Inbound API keys">
        <ul>
          {p.api_keys.map((k) => (
            <li key={k.key_id}>
              <code>{k.key_id}</code> {k.prefix} created {when(k.created_at)}
              {k.revoked_at ? ` — revoked ${when(k.revoked_at)}` : k.expires_at ? ` — expires ${when(k.expires_at)}` : ''}
            </li>
          ))}
        </ul>
      </Section>
      {writer && <PartnerActions partner={p} onDone={reloadBoth} />}
      {writer && <SelfServiceSwitch partnerId={p.partner_id} enabled={p.self_service !== false} onDone={reloadBoth} />}
      <PortalLinks partnerId={p.partner_id} links={links.data?.data ?? []} writer={writer} onDone={reloadBoth} />
    </>
  );
}

function PartnerActions({ partner, onDone }: { partner: PartnerView; onDone: () => void }) {
  const [link_, setLink] = useState<string | undefined>(undefined);
  const [newKey, setNewKey] = useState<{ key_id: string; api_key: string } | undefined>(undefined);
  const [error, setError] = useState<Error | undefined>(undefined);
  const act = (work: (reason: string, form: EventTarget | null) => Promise<void>) => async (event: Event) => {
    event.preventDefault();
    const reason = formText(event.currentTarget, 'reason');
    try {
      await work(reason, event.currentTarget);
      setError(undefined);
      onDone();
    } catch (failure) {
      setError(failure as Error);
    }
  };
  const base = `/api/admin/v1/partners/${encodeURIComponent(partner.partner_id)}`;
  return (
    <Section title="Actions">
      <Failure error={error} />
      <form
        class="inline-form"
        onSubmit={act(async (reason) => {
          const { data } = await api.post<{ data: { token: string } }>(`${base}/portal-tokens`, { reason, ttl_minutes: 24 * 60 });
          setLink(`${location.origin}/console/#/portal?token=${encodeURIComponent(data.token)}`);
        })}
      >
        <label>
          <span>Why the partner gets access (audited)</span>
          <input name="reason" required placeholder="onboarding call with their engineer" />
        </label>
        <button type="submit">Issue a portal link (24 h)</button>
      </form>
      {link_ && <CopyField label="Portal link, shown once" value={link_} />}
      <form
        class="inline-form"
        onSubmit={act(async (reason, form) => {
          const overlapHours = Number(formText(form, 'overlap_hours'));
          const { data } = await api.post<{ data: { key_id: string; api_key: string } }>(`${base}/api-keys/rotate`, {
            reason,
            overlap_hours: overlapHours,
          });
          setNewKey(data);
        })}
      >
        <label>
          <span>Why its inbound API key is rotated (audited)</span>
          <input name="reason" required placeholder="yearly rotation" />
        </label>
        <label>
          <span>Its other keys keep working for (hours; 0 for a leaked key)</span>
          <input name="overlap_hours" type="number" min={0} max={720} step={1} required defaultValue="24" />
        </label>
        <button type="submit">Rotate its API key</button>
      </form>
      {newKey && <CopyField label={`New API key ${newKey.key_id}, shown once: give it to the partner`} value={newKey.api_key} />}
      <form
        class="inline-form"
        onSubmit={act(async (reason) => {
          await api.post(`${base}/${partner.status === 'ACTIVE' ? 'disable' : 'enable'}`, { reason });
        })}
      >
        <label>
          <span>Reason</span>
          <input name="reason" required />
        </label>
        <button type="submit" class={partner.status === 'ACTIVE' ? 'danger' : ''}>
          {partner.status === 'ACTIVE' ? 'Disable partner' : 'Enable partner'}
        </button>
      </form>
    </Section>
  );
}
