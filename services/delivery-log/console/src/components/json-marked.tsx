/*
 * A JSON body pretty-printed with the fields at fault marked: each value whose path (as a refusal
 * names it: documents[0].url, request_id) is at fault is wrapped, with its key, in a <mark> that
 * names the field and says what is wrong with it, so the eye finds it in a long body.
 */
import { Fragment, type ComponentChildren } from 'preact';

/** Paths at fault, each with its message. */
export type FaultMarks = ReadonlyMap<string, string>;

const pad = (depth: number) => '  '.repeat(depth);

const childPath = (parent: string, key: string | number) =>
  typeof key === 'number' ? `${parent}[${key}]` : parent === '' ? key : `${parent}.${key}`;

/** The paths of a value: every object member and array item, as a refusal writes them. */
export function pathsOf(value: unknown, parent = ''): string[] {
  if (Array.isArray(value)) return value.flatMap((item, i) => [childPath(parent, i), ...pathsOf(item, childPath(parent, i))]);
  if (typeof value === 'object' && value !== null)
    return Object.entries(value).flatMap(([key, item]) => [childPath(parent, key), ...pathsOf(item, childPath(parent, key))]);
  return [];
}

function Value({ value, path, depth, marks }: { value: unknown; path: string; depth: number; marks: FaultMarks }): ComponentChildren {
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    return (
      <>
        {'[\n'}
        {(value as unknown[]).map((item: unknown, i) => (
          <Fragment key={i}>
            {pad(depth + 1)}
            <Member label={null} value={item} path={childPath(path, i)} depth={depth + 1} marks={marks} />
            {i < value.length - 1 ? ',\n' : '\n'}
          </Fragment>
        ))}
        {`${pad(depth)}]`}
      </>
    );
  }
  if (typeof value === 'object' && value !== null) {
    const entries: Array<[string, unknown]> = Object.entries(value as Record<string, unknown>);
    if (entries.length === 0) return '{}';
    return (
      <>
        {'{\n'}
        {entries.map(([key, item], i) => (
          <Fragment key={key}>
            {pad(depth + 1)}
            <Member label={key} value={item} path={childPath(path, key)} depth={depth + 1} marks={marks} />
            {i < entries.length - 1 ? ',\n' : '\n'}
          </Fragment>
        ))}
        {`${pad(depth)}}`}
      </>
    );
  }
  return JSON.stringify(value);
}

function Member({
  label,
  value,
  path,
  depth,
  marks,
}: {
  label: string | null;
  value: unknown;
  path: string;
  depth: number;
  marks: FaultMarks;
}) {
  const inner = (
    <>
      {label !== null && `${JSON.stringify(label)}: `}
      <Value value={value} path={path} depth={depth} marks={marks} />
    </>
  );
  const message = marks.get(path);
  return message === undefined ? (
    inner
  ) : (
    <mark class="at-fault" data-field={path} title={message}>
      {inner}
    </mark>
  );
}

/** The body pretty-printed, each field at fault marked (`marks`: path → message). */
export function MarkedJson({ value, marks }: { value: unknown; marks: FaultMarks }) {
  return (
    <pre class="body marked-body">
      <Value value={value} path="" depth={0} marks={marks} />
    </pre>
  );
}
