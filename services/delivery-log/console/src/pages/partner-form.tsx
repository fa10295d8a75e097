/*
 * Onboarding or changing a partner: the spec `hookstream partners create --file` reads, as a form.
 * The console does not validate it: the operator API does, with the CLI's own spec, and each
 * problem it names (`callback_endpoints[0].url`, `outbound_auth.secret`) is shown beside its field.
 * Secrets are write-only: a change keeps the current outbound auth unless it is replaced in full.
 */
import { useState } from 'preact/hooks';
import { api, ApiFailure } from '../api';
import { Failure, Section } from '../components/basics';
import { CopyField } from '../components/copy-field';
import { AUTH_FIELDS, AUTH_METHODS, AuthInput, authFrom, parseJson } from './auth-inputs';
import type { PartnerView } from './partners';
import { formText } from '../form-text';
import { link } from '../router';
import { useApi } from '../use-api';

interface EndpointRow {
  url: string;
  timeout_ms: string;
  statuses: string;
  product_codes: string;
  ordering: string;
}

const emptyEndpoint = (): EndpointRow => ({ url: '', timeout_ms: '10000', statuses: '', product_codes: '', ordering: 'LATEST_WINS' });
const list = (text: string) =>
  text
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean);

export function PartnerFormPage({ partnerId }: { partnerId: string | null }) {
  const existing = useApi<{ data: PartnerView }>(partnerId ? `/api/admin/v1/partners/${encodeURIComponent(partnerId)}` : null);
  if (partnerId && !existing.data) return existing.error ? <Failure error={existing.error} /> : <p>Loading…</p>;
  return <PartnerForm current={existing.data?.data} key={existing.data?.data.revision ?? 'new'} />;
}

function PartnerForm({ current }: { current: PartnerView | undefined }) {
  const [endpoints, setEndpoints] = useState<EndpointRow[]>(
    current?.callback_endpoints.map((e) => ({
      url: e.url,
      timeout_ms: String(e.timeout_ms),
      statuses: e.statuses.join(', '),
      product_codes: e.product_codes.join(', '),
      ordering: e.ordering,
    })) ?? [emptyEndpoint()],
  );
  const currentMethod = current?.outbound_auth?.method ?? 'HMAC_SHA256';
  const [method, setMethod] = useState(currentMethod);
  const [replaceAuth, setReplaceAuth] = useState(!current);
  const [problems, setProblems] = useState<Record<string, string>>({});
  const [failure, setFailure] = useState<Error | undefined>(undefined);
  const [created, setCreated] = useState<{ partner_id: string; api_key: string } | undefined>(undefined);
  const [saved, setSaved] = useState(false);

  const problem = (field: string) =>
    problems[field] ? (
      <span class="field-error" id={`error-${field}`} role="alert">
        {problems[field]}
      </span>
    ) : null;
  const described = (field: string) => (problems[field] ? { 'aria-invalid': true, 'aria-describedby': `error-${field}` } : {});

  const submit = async (event: Event) => {
    event.preventDefault();
    const target = event.currentTarget;
    const text = (name: string) => formText(target, name);
    const spec: Record<string, unknown> = {
      name: text('name'),
      status: text('status') || 'ACTIVE',
      callback_endpoints: endpoints.map((e) => ({
        url: e.url.trim(),
        ...(e.timeout_ms ? { timeout_ms: Number(e.timeout_ms) } : {}),
        statuses: list(e.statuses),
        product_codes: list(e.product_codes),
        ordering: e.ordering,
      })),
      body: { shape: text('body.shape'), absent_fields: text('body.absent_fields'), rules: parseJson(text('body.rules') || '[]') },
    };
    if (!current && text('partner_id')) spec['partner_id'] = text('partner_id');
    if (replaceAuth) spec['outbound_auth'] = authFrom(method, text);
    const reason = text('reason');
    setFailure(undefined);
    setProblems({});
    try {
      if (current) {
        await api.patch(`/api/admin/v1/partners/${encodeURIComponent(current.partner_id)}`, {
          reason,
          changes: spec,
          revision: current.revision,
        });
        setSaved(true);
      } else {
        const { data } = await api.post<{ data: { partner_id: string; api_key: string } }>('/api/admin/v1/partners', {
          reason,
          partner: spec,
        });
        setCreated(data);
      }
    } catch (error) {
      if (error instanceof ApiFailure && error.status === 400) setProblems(error.fieldProblems);
      setFailure(error as Error);
    }
  };

  if (created) {
    return (
      <Section title="Partner onboarded">
        <p>
          <a href={link('partners', created.partner_id)}>{created.partner_id}</a> is active. Its first API key, shown only now:
        </p>
        <CopyField label="API key" value={created.api_key} />
      </Section>
    );
  }
  return (
    <>
      <h1>{current ? `Change ${current.name}` : 'Onboard a partner'}</h1>
      <form class="partner-form" onSubmit={submit} noValidate>
        <Failure error={failure} />
        {saved && (
          <p class="ok" role="status">
            Saved. <a href={link('partners', current!.partner_id)}>Back to the partner</a>
          </p>
        )}
        <fieldset>
          <legend>Partner</legend>
          <label>
            <span>Name</span>
            <input name="name" defaultValue={current?.name ?? ''} {...described('name')} />
          </label>
          {problem('name')}
          {!current && (
            <>
              <label>
                <span>Partner id (optional: from the name)</span>
                <input name="partner_id" {...described('partner_id')} />
              </label>
              {problem('partner_id')}
            </>
          )}
          <label>
            <span>Status</span>
            <select name="status" defaultValue={current?.status ?? 'ACTIVE'}>
              <option value="ACTIVE">active</option>
              <option value="DISABLED">disabled</option>
            </select>
          </label>
        </fieldset>
        <fieldset>
          <legend>Callback endpoints</legend>
          {problem('callback_endpoints')}
          {endpoints.map((e, i) => {
            const set = (field: keyof EndpointRow) => (event: Event) =>
              setEndpoints(
                endpoints.map((row, j) => (j === i ? { ...row, [field]: (event.currentTarget as HTMLInputElement).value } : row)),
              );
            const path = (field: string) => `callback_endpoints[${i}].${field}`;
            return (
              <div class="endpoint" key={i}>
                <label>
                  <span>URL</span>
                  <input name={path('url')} value={e.url} onInput={set('url')} {...described(path('url'))} />
                </label>
                {problem(path('url'))}
                <label>
                  <span>Timeout (ms)</span>
                  <input
                    name={path('timeout_ms')}
                    inputMode="numeric"
                    value={e.timeout_ms}
                    onInput={set('timeout_ms')}
                    {...described(path('timeout_ms'))}
                  />
                </label>
                {problem(path('timeout_ms'))}
                <label>
                  <span>Statuses (comma-separated; empty: all)</span>
                  <input value={e.statuses} onInput={set('statuses')} {...described(path('statuses'))} />
                </label>
                {problem(path('statuses'))}
                <label>
                  <span>Product codes (empty: all)</span>
                  <input value={e.product_codes} onInput={set('product_codes')} />
                </label>
                <label>
                  <span>Ordering</span>
                  <select value={e.ordering} onChange={set('ordering')}>
                    <option value="LATEST_WINS">latest wins</option>
                    <option value="NONE">none</option>
                  </select>
                </label>
                <button type="button" class="secondary" onClick={() => setEndpoints(endpoints.filter((_, j) => j !== i))}>
                  Remove endpoint
                </button>
              </div>
            );
          })}
          <button type="button" class="secondary" onClick={() => setEndpoints([...endpoints, emptyEndpoint()])}>
            Add endpoint
          </button>
        </fieldset>
        <fieldset>
          <legend>Outbound auth</legend>
          {current && (
            <label class="check">
              <input type="checkbox" checked={replaceAuth} onChange={(e) => setReplaceAuth(e.currentTarget.checked)} />
              <span>Replace it (secrets are write-only: the current ones are kept unless you give new ones in full)</span>
            </label>
          )}
          {problem('outbound_auth')}
          {replaceAuth && (
            <>
              <label>
                <span>Method</span>
                <select name="outbound_auth.method" value={method} onChange={(e) => setMethod(e.currentTarget.value)}>
                  {AUTH_METHODS.map((m) => (
                    <option key={m} value={m}>
                      {m}
                    </option>
                  ))}
                </select>
              </label>
              {(AUTH_FIELDS[method] ?? []).map((f) => (
                <AuthInput
                  key={`${method}.${f.name}`}
                  field={f}
                  problem={problem(`outbound_auth.${f.name}`)}
                  described={described(`outbound_auth.${f.name}`)}
                />
              ))}
            </>
          )}
        </fieldset>
        <fieldset>
          <legend>Body</legend>
          <label>
            <span>Shape</span>
            <select name="body.shape" defaultValue={current?.body.shape ?? 'FULL'}>
              <option value="FULL">full (the contract's body)</option>
              <option value="SIMPLIFIED_POLICIES">simplified policies</option>
              <option value="MAPPED">mapped (rules below)</option>
            </select>
          </label>
          <label>
            <span>Fields without a value</span>
            <select name="body.absent_fields" defaultValue={current?.body.absent_fields ?? 'OMIT'}>
              <option value="OMIT">left out</option>
              <option value="NULL">sent as null</option>
            </select>
          </label>
          <label>
            <span>Mapping rules (JSON array of source, target, format, time_zone)</span>
            <textarea
              name="body.rules"
              rows={4}
              defaultValue={JSON.stringify(current?.body.rules ?? [], null, 2)}
              {...described('body.rules')}
            />
          </label>
          {problem('body.rules')}
        </fieldset>
        <label>
          <span>Reason (for the audit trail)</span>
          <input name="reason" required {...described('reason')} />
        </label>
        {problem('reason')}
        <button type="submit">{current ? 'Save changes' : 'Onboard'}</button>
      </form>
    </>
  );
}
