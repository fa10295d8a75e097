/*
 * A view's filters as a form; applying it puts them in the URL (the view reads them from there).
 * The inputs hold what is typed until it is applied: a view that polls re-renders every few
 * seconds, and an input given only the applied value would be reset to it each time. They follow
 * the URL again whenever the applied filters change (applied, cleared, another link).
 */
import { useEffect, useState } from 'preact/hooks';
import { TYPED_TIME } from '../format';
import { setParams } from '../router';
import { PartnerPicker } from './partner-picker';

export interface FilterField {
  name: string;
  label: string;
  options?: string[];
  /** partner: a partner picker (partner-picker.tsx), for an operator choosing a partner. */
  /** time: a time typed as the console writes them (format.ts TYPED_TIME), in the viewer's time. */
  type?: 'text' | 'time' | 'partner';
}

type Values = Record<string, string | undefined>;

export function Filters({ segments, fields, values }: { segments: string[]; fields: FilterField[]; values: Values }) {
  const applied = JSON.stringify(fields.map((f) => values[f.name] ?? ''));
  const [draft, setDraft] = useState<Values>(values);
  // Keyed on the applied values' text: `values` itself is a new object on every render.
  useEffect(() => setDraft(values), [applied]);

  const apply = (event: Event) => {
    event.preventDefault();
    setParams(segments, Object.fromEntries(fields.map((f) => [f.name, draft[f.name]?.trim() || undefined])));
  };
  const input = (name: string) => ({
    name,
    value: draft[name] ?? '',
    onInput: (event: Event) => {
      const value = (event.currentTarget as HTMLInputElement | HTMLSelectElement).value;
      setDraft((now) => ({ ...now, [name]: value }));
    },
  });
  return (
    <form class="filters" onSubmit={apply} aria-label="Filters">
      {fields.map((f) => (
        <label key={f.name}>
          <span>{f.label}</span>
          {f.options ? (
            <select {...input(f.name)}>
              <option value="">any</option>
              {f.options.map((o) => (
                <option key={o} value={o}>
                  {o.replace(/_/g, ' ')}
                </option>
              ))}
            </select>
          ) : f.type === 'partner' ? (
            <PartnerPicker
              name={f.name}
              label={f.label}
              value={draft[f.name] ?? ''}
              onChange={(value) => setDraft((now) => ({ ...now, [f.name]: value }))}
            />
          ) : f.type === 'time' ? (
            <input type="text" inputMode="numeric" placeholder={TYPED_TIME.placeholder} pattern={TYPED_TIME.pattern} {...input(f.name)} />
          ) : (
            <input type="text" {...input(f.name)} />
          )}
        </label>
      ))}
      <button type="submit">Apply</button>
      <button
        type="button"
        class="secondary"
        onClick={() => {
          setDraft({});
          setParams(segments, {});
        }}
      >
        Clear
      </button>
    </form>
  );
}
