import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { ERROR_CATALOGUE, ErrorCodes, factsOf } from '../src/codes';
import { Refusal } from '../src/errors';

const ROOT = path.resolve(__dirname, '..', '..', '..');

/** Every TypeScript source under `dir`, tests and builds aside. */
function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (['node_modules', 'dist', 'test'].includes(name)) return [];
    if (statSync(full).isDirectory()) return sources(full);
    return /\.tsx?$/.test(name) ? [full] : [];
  });
}

describe('the one list of error codes', () => {
  test('every code is unique, and says when it is raised', () => {
    const codes = Object.values(ERROR_CATALOGUE).map((facts) => facts.code);
    expect(new Set(codes).size).toBe(codes.length);
    for (const facts of Object.values(ERROR_CATALOGUE)) expect(facts.when.length).toBeGreaterThan(20);
  });

  test('a refusal code has an HTTP status and ends in _ERR; every other code is HOOKSTREAM_*', () => {
    for (const facts of Object.values(ERROR_CATALOGUE)) {
      if ('httpStatus' in facts) expect(facts.code).toMatch(/^[A-Z_]+_ERR$/);
      else expect(facts.code).toMatch(/^HOOKSTREAM_[A-Z_]+$/);
    }
  });

  test('no code is declared that no source raises or answers (a dead entry would be documented as if it happened)', () => {
    const text = ['packages', 'services', 'cli']
      .flatMap((top) => sources(path.join(ROOT, top)))
      .filter((file) => !file.endsWith(path.join('errors', 'src', 'codes.ts')))
      .map((file) => readFileSync(file, 'utf8'))
      .join('\n');
    const unused = Object.keys(ErrorCodes).filter((name) => !new RegExp(`ErrorCodes\\.${name}\\b`).test(text));
    expect(unused).toEqual([]);
  });

  test('a refusal takes its status and retryability from its code unless told otherwise', () => {
    const unavailable = new Refusal(ErrorCodes.SERVICE_UNAVAILABLE, 'starting', { retryAfterSeconds: 5 });
    expect([unavailable.httpStatus, unavailable.retryable, unavailable.retryAfterSeconds]).toEqual([503, true, 5]);
    const tooLarge = new Refusal(ErrorCodes.INVALID_PAYLOAD, 'the body is too large', { httpStatus: 413 });
    expect([tooLarge.httpStatus, tooLarge.retryable, tooLarge.code]).toEqual([413, false, 'INVALID_PAYLOAD_VALIDATION_ERR']);
    expect(new Refusal(ErrorCodes.INTERNAL, 'unexpected').retryable).toBe(true);
    expect(factsOf('INVALID_API_KEY_ERR')?.httpStatus).toBe(401);
    expect(factsOf('nothing of ours')).toBeUndefined();
  });
});

describe('docs/errors.md', () => {
  const doc = readFileSync(path.join(ROOT, 'docs', 'errors.md'), 'utf8');

  test('lists every code with whether it is retryable, and refusals with their HTTP status', () => {
    for (const facts of Object.values(ERROR_CATALOGUE)) {
      const row = doc.split('\n').find((line) => line.startsWith(`| \`${facts.code}\``));
      expect(row).toBeDefined();
      const cells = row!.split('|').map((cell) => cell.trim());
      if ('httpStatus' in facts) expect(cells.slice(2, 4)).toEqual([String(facts.httpStatus), facts.retryable ? 'yes' : 'no']);
      else expect(cells[2]).toBe(facts.retryable ? 'yes' : 'no');
    }
  });

  test('lists no code that is not in the list', () => {
    const listed = [...doc.matchAll(/^\| `([A-Z_]+)`/gm)].map((m) => m[1]);
    expect(listed.filter((code) => !factsOf(code!))).toEqual([]);
  });
});
