import { readFileSync, statSync } from 'node:fs';

/** The last lines of a log, for an error message. */
export function tail(file: string, lines = 25): string {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

/** Size of a file now (0 when absent): where this start's lines begin in an appended log. */
export function logOffset(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

/** What a log gained since `offset`. */
export function logSince(file: string, offset: number): string {
  try {
    return readFileSync(file).subarray(offset).toString('utf8');
  } catch {
    return '';
  }
}
