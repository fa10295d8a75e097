/*
 * The callback endpoints part of the partner form: a row of inputs per endpoint, the spec's
 * `callback_endpoints` they make, and the field paths of its inputs (where the API's problems are
 * shown). An endpoint keeps its id through a change: its deliveries and its health are by that id,
 * and an endpoint sent without one would be renumbered (`ep-1`, …).
 */
import type { ComponentChildren } from 'preact';
import type { PartnerView } from './partners';

export interface EndpointRow {
  endpoint_id?: string;
  name: string;
  description: string;
  url: string;
  timeout_ms: string;
  statuses: string;
  product_codes: string;
  ordering: string;
  /** Kept through a change (the partner may have disabled it itself), and set here. */
  disabled: boolean;
}

/** The inputs of a row, by their field in the spec. */
const INPUTS = ['url', 'name', 'description', 'timeout_ms', 'statuses', 'product_codes', 'ordering', 'disabled'] as const;

export const endpointPath = (i: number, field?: string) => `callback_endpoints[${i}]${field ? `.${field}` : ''}`;

const emptyEndpoint = (): EndpointRow => ({
  name: '',
  description: '',
  url: '',
  timeout_ms: '10000',
  statuses: '',
  product_codes: '',
  ordering: 'LATEST_WINS',
  disabled: false,
});
const list = (text: string) =>
  text
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean);

/** The rows a partner's endpoints fill in (one empty row for a new partner). */
export function endpointRows(partner: PartnerView | undefined): EndpointRow[] {
  return (
    partner?.callback_endpoints.map((e) => ({
      endpoint_id: e.endpoint_id,
      name: e.name ?? '',
      description: e.description ?? '',
      url: e.url,
      timeout_ms: String(e.timeout_ms),
      statuses: e.statuses.join(', '),
      product_codes: e.product_codes.join(', '),
      ordering: e.ordering,
      disabled: e.disabled === true,
    })) ?? [emptyEndpoint()]
  );
}

/** The spec's callback_endpoints of the rows. */
export function endpointsSpec(rows: EndpointRow[]): Array<Record<string, unknown>> {
  return rows.map((e) => ({
    ...(e.endpoint_id ? { endpoint_id: e.endpoint_id } : {}),
    // Empty: none (null).
    name: e.name.trim() || null,
    description: e.description.trim() || null,
    url: e.url.trim(),
    ...(e.timeout_ms ? { timeout_ms: Number(e.timeout_ms) } : {}),
    statuses: list(e.statuses),
    product_codes: list(e.product_codes),
    ordering: e.ordering,
    disabled: e.disabled,
  }));
}

/** The paths problems can be shown at: the list, each row (its endpoint_id, say), each input. */
export function endpointFields(rows: EndpointRow[]): string[] {
  return ['callback_endpoints', ...rows.flatMap((_, i) => [endpointPath(i), ...INPUTS.map((f) => endpointPath(i, f))])];
}

export function EndpointInputs({
  rows,
  onChange,
  problem,
  described,
}: {
  rows: EndpointRow[];
  onChange: (rows: EndpointRow[]) => void;
  problem: (field: string) => ComponentChildren;
  described: (field: string) => Record<string, unknown>;
}) {
  return (
    <fieldset>
      <legend>Callback endpoints</legend>
      {problem('callback_endpoints')}
      {rows.map((e, i) => {
        const set = (field: keyof EndpointRow) => (event: Event) =>
          onChange(rows.map((row, j) => (j === i ? { ...row, [field]: (event.currentTarget as HTMLInputElement).value } : row)));
        const path = (field: string) => endpointPath(i, field);
        return (
          <div class="endpoint" key={i}>
            {problem(endpointPath(i))}
            <label>
              <span>URL</span>
              <input name={path('url')} value={e.url} onInput={set('url')} {...described(path('url'))} />
            </label>
            {problem(path('url'))}
            <label>
              <span>Name (optional)</span>
              <input name={path('name')} maxLength={80} value={e.name} onInput={set('name')} {...described(path('name'))} />
            </label>
            {problem(path('name'))}
            <label>
              <span>Description (optional)</span>
              <input
                name={path('description')}
                maxLength={300}
                value={e.description}
                onInput={set('description')}
                {...described(path('description'))}
              />
            </label>
            {problem(path('description'))}
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
              <input value={e.product_codes} onInput={set('product_codes')} {...described(path('product_codes'))} />
            </label>
            {problem(path('product_codes'))}
            <label>
              <span>Ordering</span>
              <select value={e.ordering} onChange={set('ordering')} {...described(path('ordering'))}>
                <option value="LATEST_WINS">latest wins</option>
                <option value="NONE">none</option>
              </select>
            </label>
            {problem(path('ordering'))}
            <label class="check">
              <input
                type="checkbox"
                name={path('disabled')}
                checked={e.disabled}
                onChange={(event) => onChange(rows.map((row, j) => (j === i ? { ...row, disabled: event.currentTarget.checked } : row)))}
                {...described(path('disabled'))}
              />
              Disabled (no new callbacks)
            </label>
            {problem(path('disabled'))}
            <button type="button" class="secondary" onClick={() => onChange(rows.filter((_, j) => j !== i))}>
              Remove endpoint
            </button>
          </div>
        );
      })}
      <button type="button" class="secondary" onClick={() => onChange([...rows, emptyEndpoint()])}>
        Add endpoint
      </button>
    </fieldset>
  );
}
