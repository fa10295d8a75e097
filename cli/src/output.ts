/** Output of CLI commands: plain lines for people, one JSON document with --json for scripts. */
export function printLine(line = ''): void {
  write(`${line}\n`);
}

export function printJson(value: unknown): void {
  write(`${JSON.stringify(value, null, 2)}\n`);
}

let stdoutClosed = false;

function write(text: string): void {
  if (!stdoutClosed) process.stdout.write(text);
}

/**
 * Makes a reader that stopped reading (`hookstream stack status | head -1`) end our output
 * quietly instead of crashing on EPIPE with a stack trace. The command itself goes on: one
 * that started processes must still stop them before it exits.
 */
export function toleratePipeClosedByReader(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE' && error.code !== 'ERR_STREAM_DESTROYED') throw error;
      if (stream === process.stdout) stdoutClosed = true;
    });
  }
}

/** Left-aligned columns for a small table. */
export function formatTable(rows: string[][]): string {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  return rows.map((row) => row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0))).join('  ')).join('\n');
}
