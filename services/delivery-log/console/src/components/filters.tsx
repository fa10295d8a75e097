/** A view's filters as a form; applying it puts them in the URL (the view reads them from there). */
import { formText } from '../form-text';
import { setParams } from '../router';

export interface FilterField {
  name: string;
  label: string;
  options?: string[];
  type?: 'text' | 'datetime-local';
}

export function Filters({
  segments,
  fields,
  values,
}: {
  segments: string[];
  fields: FilterField[];
  values: Record<string, string | undefined>;
}) {
  const apply = (event: Event) => {
    event.preventDefault();
    setParams(segments, Object.fromEntries(fields.map((f) => [f.name, formText(event.currentTarget, f.name) || undefined])));
  };
  return (
    <form class="filters" onSubmit={apply} aria-label="Filters">
      {fields.map((f) => (
        <label key={f.name}>
          <span>{f.label}</span>
          {f.options ? (
            <select name={f.name} value={values[f.name] ?? ''}>
              <option value="">any</option>
              {f.options.map((o) => (
                <option key={o} value={o}>
                  {o.replace(/_/g, ' ')}
                </option>
              ))}
            </select>
          ) : f.type === 'datetime-local' ? (
            <input name={f.name} type="datetime-local" value={values[f.name] ?? ''} />
          ) : (
            <input name={f.name} type="text" value={values[f.name] ?? ''} />
          )}
        </label>
      ))}
      <button type="submit">Apply</button>
      <button type="button" class="secondary" onClick={() => setParams(segments, {})}>
        Clear
      </button>
    </form>
  );
}
