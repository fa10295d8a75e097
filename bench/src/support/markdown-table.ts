/**
 * A small table as Markdown, its columns padded as prettier would lay them out, so that a bench's
 * summary reads well in a terminal and pastes into docs/benchmarks.md unchanged.
 */

/** `header` and `rows` as a Markdown table (one line each, the separator after the header). */
export function markdownTable(header: string[], rows: string[][]): string {
  const widths = header.map((cell, i) => Math.max(3, cell.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: string[]) => `| ${widths.map((width, i) => (cells[i] ?? '').padEnd(width)).join(' | ')} |`;
  return [line(header), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line)].join('\n');
}
