/*
 * The form a partner adds or edits one of its callback endpoints with: URL, timeout and the
 * statuses it receives. A refusal's problems are shown beside their fields (url, timeout_ms,
 * statuses[0] beside the statuses), the first one focused and scrolled into view.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { addEndpoint, editEndpoint, type OwnEndpointView } from '../api/self-service';
import { fieldNotes, fieldProblemsOf, RefusalBanner } from '../components/field-problems';
import { formText } from '../form-text';

export const STATUSES = ['POLICY_ISSUING', 'POLICY_ACTIVE', 'POLICY_CANCELLED'] as const;
const FIELDS = ['url', 'timeout_ms', 'statuses'];

export function EndpointForm({
  editing,
  onSaved,
  onCancel,
}: {
  /** The endpoint edited; none: a new one. */
  editing?: OwnEndpointView;
  onSaved: (message: string) => void;
  onCancel?: () => void;
}) {
  const [failure, setFailure] = useState<Error | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const form = useRef<HTMLFormElement>(null);
  const placement = fieldProblemsOf(failure, FIELDS);
  const { problem, described } = fieldNotes(placement);
  const config = editing?.configuration;

  useEffect(() => {
    const first = form.current?.querySelector<HTMLElement>('[aria-invalid="true"]');
    if (!first) return;
    // A fieldset (the statuses) takes no focus: its first box does.
    const target = first.matches('fieldset') ? (first.querySelector<HTMLElement>('input') ?? first) : first;
    target.scrollIntoView({ block: 'center' });
    target.focus();
  }, [failure]);

  const submit = async (event: Event) => {
    event.preventDefault();
    const data = new FormData(event.currentTarget as HTMLFormElement);
    const timeout = formText(event.currentTarget, 'timeout_ms');
    const body = {
      url: formText(event.currentTarget, 'url'),
      ...(timeout ? { timeout_ms: Number(timeout) } : {}),
      statuses: data.getAll('statuses').map((value) => (typeof value === 'string' ? value : '')),
    };
    setBusy(true);
    try {
      const saved = editing ? await editEndpoint(editing.endpoint_id, body) : await addEndpoint(body);
      setFailure(undefined);
      onSaved(`Endpoint ${saved.data.endpoint_id} ${editing ? 'saved' : 'added'}.`);
      if (!editing) form.current?.reset();
    } catch (error) {
      setFailure(error as Error);
    } finally {
      setBusy(false);
    }
  };

  const prefix = editing ? `edit-${editing.endpoint_id}` : 'new';
  return (
    <form
      ref={form}
      class="stacked-form"
      onSubmit={submit}
      aria-label={editing ? `Edit endpoint ${editing.endpoint_id}` : 'Add an endpoint'}
    >
      <RefusalBanner failure={failure} placement={placement} />
      <label>
        <span>URL</span>
        <input
          name="url"
          type="url"
          required
          defaultValue={editing?.url ?? ''}
          placeholder="https://partner.example/callbacks"
          {...described('url')}
        />
        {problem('url')}
      </label>
      <label>
        <span>Timeout of one attempt (ms, 100–120000; default 10000)</span>
        <input name="timeout_ms" type="number" defaultValue={config ? String(config.timeout_ms) : ''} {...described('timeout_ms')} />
        {problem('timeout_ms')}
      </label>
      <fieldset {...described('statuses')}>
        <legend>Statuses it receives (none ticked: every status)</legend>
        {STATUSES.map((status) => (
          <label key={status} class="check">
            <input
              type="checkbox"
              name="statuses"
              value={status}
              id={`${prefix}-${status}`}
              defaultChecked={config?.statuses.includes(status) ?? false}
            />
            {status.replace('POLICY_', '').toLowerCase()}
          </label>
        ))}
        {problem('statuses')}
      </fieldset>
      <p>
        <button type="submit" disabled={busy} aria-busy={busy}>
          {busy ? (editing ? 'Saving…' : 'Adding…') : editing ? 'Save endpoint' : 'Add endpoint'}
        </button>{' '}
        {onCancel && (
          <button type="button" class="secondary" disabled={busy} onClick={onCancel}>
            Cancel
          </button>
        )}
      </p>
    </form>
  );
}
