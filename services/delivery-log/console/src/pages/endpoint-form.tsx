/*
 * The form a partner adds or edits one of its callback endpoints with: its name and description,
 * URL, timeout and the statuses it receives. A refusal's problems are shown beside their fields (url, timeout_ms,
 * statuses[0] beside the statuses), the first one focused and scrolled into view.
 */
import { endpointLabel, statusWords } from '../format';
import { useRef } from 'preact/hooks';
import { addEndpoint, editEndpoint, type OwnEndpointView } from '../api/self-service';
import { BusyButton, useAction } from '../components/busy-button';
import { fieldNotes, fieldProblemsOf, RefusalBanner } from '../components/field-problems';
import { useFocusProblem } from '../components/focus-problem';
import { formText } from '../form-text';

export const STATUSES = ['POLICY_ISSUING', 'POLICY_ACTIVE', 'POLICY_CANCELLED'] as const;
const FIELDS = ['name', 'description', 'url', 'timeout_ms', 'statuses'];

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
  const action = useAction();
  const form = useRef<HTMLFormElement>(null);
  const placement = fieldProblemsOf(action.error, FIELDS);
  const { problem, described } = fieldNotes(placement);
  const config = editing?.configuration;
  useFocusProblem(action.error, form);

  const submit = action.submit(async (element) => {
    const timeout = formText(element, 'timeout_ms');
    const body = {
      // Emptied: none (null), so an edit can clear them.
      name: formText(element, 'name') || null,
      description: formText(element, 'description') || null,
      url: formText(element, 'url'),
      ...(timeout ? { timeout_ms: Number(timeout) } : {}),
      statuses: new FormData(element).getAll('statuses').map((value) => (typeof value === 'string' ? value : '')),
    };
    const saved = editing ? await editEndpoint(editing.endpoint_id, body) : await addEndpoint(body);
    if (!editing) element.reset();
    onSaved(`Endpoint ${endpointLabel(saved.data)} ${editing ? 'saved' : 'added'}.`);
  });

  const prefix = editing ? `edit-${editing.endpoint_id}` : 'new';
  return (
    <form
      ref={form}
      class="stacked-form"
      onSubmit={submit}
      aria-label={editing ? `Edit endpoint ${endpointLabel(editing)}` : 'Add an endpoint'}
    >
      {editing && <h3>Editing endpoint {endpointLabel(editing)}</h3>}
      <RefusalBanner failure={action.error} placement={placement} />
      <label>
        <span>Name (optional, at most 80 characters)</span>
        <input name="name" maxLength={80} defaultValue={editing?.name ?? ''} placeholder="Claims system" {...described('name')} />
        {problem('name')}
      </label>
      <label>
        <span>Description (optional, at most 300 characters)</span>
        <textarea name="description" maxLength={300} rows={2} defaultValue={editing?.description ?? ''} {...described('description')} />
        {problem('description')}
      </label>
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
            {statusWords(status)}
          </label>
        ))}
        {problem('statuses')}
      </fieldset>
      <p>
        <BusyButton busy={action.busy} busyLabel={editing ? 'Saving…' : 'Adding…'}>
          {editing ? 'Save endpoint' : 'Add endpoint'}
        </BusyButton>{' '}
        {onCancel && (
          <button type="button" class="secondary" disabled={action.busy} onClick={onCancel}>
            Cancel
          </button>
        )}
      </p>
    </form>
  );
}
