/*
 * Onboarding or changing a partner: the spec `hookstream partners create --file` reads, as a form.
 * The console does not validate it: the operator API does, with the CLI's own spec, and each
 * problem it names (`callback_endpoints[0].url`, `body.rules[1].target`) is shown beside the input
 * that owns it (components/field-problems.tsx). Secrets are write-only: a change keeps the current
 * outbound auth unless it is replaced in full. A change is sent with the revision it was made to;
 * each save answers the partner as it now is, whose revision the next save is made to.
 */
import { useRef, useState } from 'preact/hooks';
import { client, write, type Schema } from '../api';
import { Failure, Section } from '../components/basics';
import { BusyButton } from '../components/busy-button';
import { useFocusProblem } from '../components/focus-problem';
import { CopyField } from '../components/copy-field';
import { fieldNotes, fieldProblemsOf, RefusalBanner } from '../components/field-problems';
import { SelectField } from '../components/select-field';
import { AUTH_FIELDS, AUTH_METHODS, AuthInput, authFrom, parseJson } from './auth-inputs';
import { EndpointInputs, endpointFields, endpointRows, endpointsSpec, type EndpointRow } from './endpoint-inputs';
import type { PartnerView } from './partners';
import { formText } from '../form-text';
import { link } from '../router';
import { useApi } from '../use-api';

export function PartnerFormPage({ partnerId }: { partnerId: string | null }) {
  const existing = useApi(partnerId ? () => client.GET('/api/admin/v1/partners/{partnerId}', { params: { path: { partnerId } } }) : null, [
    partnerId,
  ]);
  if (partnerId && !existing.data) return existing.error ? <Failure error={existing.error} /> : <p>Loading…</p>;
  return <PartnerForm current={existing.data?.data} />;
}

function PartnerForm({ current: loaded }: { current: PartnerView | undefined }) {
  /** The partner as the last save answered it (as loaded before any). */
  const [current, setCurrent] = useState(loaded);
  const [endpoints, setEndpoints] = useState<EndpointRow[]>(() => endpointRows(loaded));
  const [method, setMethod] = useState(loaded?.outbound_auth?.method ?? 'HMAC_SHA256');
  const [replaceAuth, setReplaceAuth] = useState(!loaded);
  const [failure, setFailure] = useState<Error | undefined>(undefined);
  const [created, setCreated] = useState<{ partner_id: string; api_key: string } | undefined>(undefined);
  const [saved, setSaved] = useState(false);

  // The paths of the inputs as rendered now, for each problem to find the one that owns it.
  const fields = [
    'name',
    ...(current ? [] : ['partner_id']),
    'status',
    ...endpointFields(endpoints),
    'outbound_auth',
    ...(replaceAuth ? ['outbound_auth.method', ...(AUTH_FIELDS[method] ?? []).map((f) => `outbound_auth.${f.name}`)] : []),
    'body',
    'body.shape',
    'body.absent_fields',
    'body.rules',
    'reason',
  ];
  const placement = fieldProblemsOf(failure, fields);
  const form = useRef<HTMLFormElement>(null);
  useFocusProblem(failure, form);
  const [busy, setBusy] = useState(false);
  const { problem, described } = fieldNotes(placement);

  const submit = async (event: Event) => {
    event.preventDefault();
    if (busy) return;
    const target = event.currentTarget;
    const text = (name: string) => formText(target, name);
    const spec: Record<string, unknown> = {
      name: text('name'),
      status: text('status') || 'ACTIVE',
      callback_endpoints: endpointsSpec(endpoints),
      body: { shape: text('body.shape'), absent_fields: text('body.absent_fields'), rules: parseJson(text('body.rules') || '[]') },
    };
    if (!current && text('partner_id')) spec['partner_id'] = text('partner_id');
    if (replaceAuth) spec['outbound_auth'] = authFrom(method, text);
    const reason = text('reason');
    setFailure(undefined);
    setSaved(false);
    setBusy(true);
    try {
      if (current) {
        // The form's spec, as the CLI's file: the API checks it and names each field at fault.
        const changes = spec as Schema<'PartnerUpdateRequest'>['changes'];
        const { data } = await write(
          client.PATCH('/api/admin/v1/partners/{partnerId}', {
            params: { path: { partnerId: current.partner_id } },
            body: { reason, changes, revision: current.revision },
          }),
        );
        setCurrent(data);
        // The ids given to endpoints added in this change, for the next save to keep.
        setEndpoints(endpointRows(data));
        setSaved(true);
      } else {
        const partner = spec as Schema<'PartnerCreateRequest'>['partner'];
        const { data } = await write(client.POST('/api/admin/v1/partners', { body: { reason, partner } }));
        setCreated(data);
      }
    } catch (error) {
      setFailure(error as Error);
    } finally {
      setBusy(false);
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
      <form class="partner-form" onSubmit={submit} noValidate ref={form}>
        <RefusalBanner failure={failure} placement={placement} />
        {saved && (
          <p class="ok" role="status">
            Saved (revision {current!.revision}). <a href={link('partners', current!.partner_id)}>Back to the partner</a>
          </p>
        )}
        <fieldset>
          <legend>Partner</legend>
          <label>
            <span>Name</span>
            <input name="name" defaultValue={loaded?.name ?? ''} {...described('name')} />
          </label>
          {problem('name')}
          {!current && (
            <>
              <label>
                <span>
                  Partner id (optional: else the name in lower case with a random 4-character suffix, e.g. acme-insurance-3f9a; the core
                  systems use it in policy events, so choose it here if they expect one)
                </span>
                <input name="partner_id" {...described('partner_id')} />
              </label>
              {problem('partner_id')}
            </>
          )}
          <label>
            <span>Status</span>
            <SelectField
              name="status"
              initial={loaded?.status ?? 'ACTIVE'}
              options={[
                ['ACTIVE', 'active'],
                ['DISABLED', 'disabled'],
              ]}
              attributes={described('status')}
            />
          </label>
          {problem('status')}
        </fieldset>
        <EndpointInputs rows={endpoints} onChange={setEndpoints} problem={problem} described={described} />
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
                <select
                  name="outbound_auth.method"
                  value={method}
                  onChange={(e) => setMethod(e.currentTarget.value)}
                  {...described('outbound_auth.method')}
                >
                  {AUTH_METHODS.map((m) => (
                    <option key={m} value={m}>
                      {m}
                    </option>
                  ))}
                </select>
              </label>
              {problem('outbound_auth.method')}
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
        <BodyInputs partner={loaded} problem={problem} described={described} />
        <label>
          <span>Reason (for the audit trail)</span>
          <input name="reason" required {...described('reason')} />
        </label>
        {problem('reason')}
        <BusyButton busy={busy} busyLabel={current ? 'Saving…' : 'Onboarding…'}>
          {current ? 'Save changes' : 'Onboard'}
        </BusyButton>
      </form>
    </>
  );
}

function BodyInputs({ partner, problem, described }: { partner: PartnerView | undefined } & ReturnType<typeof fieldNotes>) {
  return (
    <fieldset>
      <legend>Body</legend>
      {problem('body')}
      <label>
        <span>Shape</span>
        <SelectField
          name="body.shape"
          initial={partner?.body.shape ?? 'FULL'}
          options={[
            ['FULL', "full (the contract's body)"],
            ['SIMPLIFIED_POLICIES', 'simplified policies'],
            ['MAPPED', 'mapped (rules below)'],
          ]}
          attributes={described('body.shape')}
        />
      </label>
      {problem('body.shape')}
      <label>
        <span>Fields without a value</span>
        <SelectField
          name="body.absent_fields"
          initial={partner?.body.absent_fields ?? 'OMIT'}
          options={[
            ['OMIT', 'left out'],
            ['NULL', 'sent as null'],
          ]}
          attributes={described('body.absent_fields')}
        />
      </label>
      {problem('body.absent_fields')}
      <label>
        <span>Mapping rules (JSON array of source, target, format, time_zone)</span>
        <textarea
          name="body.rules"
          rows={4}
          defaultValue={JSON.stringify(partner?.body.rules ?? [], null, 2)}
          {...described('body.rules')}
        />
      </label>
      {problem('body.rules')}
    </fieldset>
  );
}
