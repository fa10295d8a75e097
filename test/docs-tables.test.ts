/**
 * Markdown tables in the docs keep their code whole: a `|` inside a code span must be written `\|`,
 * or GitHub (and the formatter, which then pads it) takes it for a cell border, and a PromQL query
 * like `{topic!~"(callback|document)-retry"}` is cut in two and no longer works when copied. And a
 * PromQL regex anywhere in the docs has no space beside its `|`: `(callback | document)` copies
 * (an escaped pipe renders as a plain one), but matches " document", not "document".
 */
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from './helpers/processes';

const files = [
  'README.md',
  path.join('ops', 'README.md'),
  path.join('schemas', 'README.md'),
  ...readdirSync(path.join(REPO_ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => path.join('docs', f)),
];

/** The cells of a table row, split on the borders (a `|` not escaped). */
const cellsOf = (row: string) =>
  row
    .trim()
    .slice(1, -1)
    .split(/(?<!\\)\|/);

/** Rows of tables whose code spans a cell border cuts: `file:line: cell`. */
function cutCodeSpans(file: string): string[] {
  const cut: string[] = [];
  readFileSync(path.join(REPO_ROOT, file), 'utf8')
    .split('\n')
    .forEach((line, index) => {
      if (!/^\s*\|.*\|\s*$/.test(line)) return;
      for (const cell of cellsOf(line)) {
        if ((cell.match(/`/g) ?? []).length % 2 === 1) cut.push(`${file}:${index + 1}: ${cell.trim()}`);
      }
    });
  return cut;
}

/** PromQL label matchers (`=~"…"`, `!~"…"`) whose regex has a space beside an alternation: `file:line: matcher`. */
function paddedRegexes(file: string): string[] {
  const padded: string[] = [];
  readFileSync(path.join(REPO_ROOT, file), 'utf8')
    .split('\n')
    .forEach((line, index) => {
      for (const [matcher, regex] of line.matchAll(REGEX_MATCHERS)) {
        if (PADDED_PIPE.test(regex!)) padded.push(`${file}:${index + 1}: ${matcher}`);
      }
    });
  return padded;
}
const REGEX_MATCHERS = /[=!]~\s*"((?:[^"\\]|\\.)*)"/g;
const PADDED_PIPE = /\s\\?\||\\?\|\s/;

test('no table cell of the docs holds half a code span', () => {
  expect(files.length).toBeGreaterThan(10);
  expect(files.flatMap(cutCodeSpans)).toEqual([]);
});

test('the check finds a code span cut by an unescaped pipe', () => {
  const row = '| backlog | `sum(lag{topic!~".*(callback | document)-retry"})` |';
  expect(cellsOf(row).filter((cell) => (cell.match(/`/g) ?? []).length % 2 === 1)).toHaveLength(2);
  expect(
    cellsOf(row.replace('callback | document', 'callback\\|document')).every((cell) => (cell.match(/`/g) ?? []).length % 2 === 0),
  ).toBe(true);
});

test('no PromQL regex of the docs has a space beside its alternation', () => {
  expect(files.flatMap(paddedRegexes)).toEqual([]);
});

test('the check finds a regex padded by the formatter, escaped or not, and passes a tight one', () => {
  const check = (text: string) => [...text.matchAll(REGEX_MATCHERS)].some(([, regex]) => PADDED_PIPE.test(regex!));
  expect(check('`sum(lag{topic!~".*(callback \\| document)-retry"})`')).toBe(true);
  expect(check('`sum(lag{topic=~"(callback | document)"})`')).toBe(true);
  expect(check('`sum(lag{topic!~".*(callback\\|document)-retry"})`')).toBe(false);
  expect(check('`sum(lag{topic=~"(callback|document)"})`')).toBe(false);
});
