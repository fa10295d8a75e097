/*
 * A select that starts at a value and is then the person's. Core Preact has no `defaultValue` for
 * <select> (it would become an unknown attribute, and the first option would show whatever the
 * value), so it is kept by its own state; a form reads it by its name like any other input.
 */
import { useState } from 'preact/hooks';

export function SelectField({
  name,
  initial,
  options,
  attributes = {},
  onChange,
}: {
  name: string;
  initial: string;
  /** [value, label] each. */
  options: Array<[string, string]>;
  /** Anything more for the <select> (aria-describedby of its problem). */
  attributes?: Record<string, unknown>;
  /** Told each value the person chooses (a page that says something about the choice). */
  onChange?: (value: string) => void;
}) {
  const [value, setValue] = useState(initial);
  return (
    <select
      name={name}
      value={value}
      onChange={(event) => {
        setValue(event.currentTarget.value);
        onChange?.(event.currentTarget.value);
      }}
      {...attributes}
    >
      {options.map(([option, label]) => (
        <option key={option} value={option}>
          {label}
        </option>
      ))}
    </select>
  );
}
