import { readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * docs/verifying.md shows the code of examples/verify (the files the snippet test runs against
 * real deliveries, and the console builds in) word for word: each block of each file, for every
 * method that has one, in a fenced block of its language.
 */
const ROOT = path.resolve(__dirname, '../../..');
const DOC = readFileSync(path.join(ROOT, 'docs/verifying.md'), 'utf8');
const FILES: Array<[string, string]> = [
  ['examples/verify/node/verify.mjs', 'js'],
  ['examples/verify/python/verify.py', 'python'],
  ['examples/verify/java/Verify.java', 'java'],
];
const METHODS = ['COMMON', 'HMAC_SHA256', 'MD5', 'STANDARD_WEBHOOKS', 'API_KEY', 'BEARER_STATIC', 'BASIC', 'BEARER_JWT'];

/** The blocks of a file between "--- METHOD ---" and "--- end ---" comment lines, dedented (as console/verify-snippets.mjs reads them). */
function blocksOf(text: string): Map<string, string> {
  const blocks = new Map<string, string>();
  let name: string | undefined;
  let lines: string[] = [];
  for (const line of text.split('\n')) {
    if (name === undefined) {
      name = /^\s*(?:\/\/|#)\s*--- ([A-Z0-9_]+) ---\s*$/.exec(line)?.[1];
      lines = [];
    } else if (/^\s*(?:\/\/|#)\s*--- end ---\s*$/.test(line)) {
      const indent = Math.min(...lines.filter((l) => l.trim()).map((l) => l.length - l.trimStart().length));
      blocks.set(name, lines.map((l) => l.slice(indent)).join('\n'));
      name = undefined;
    } else lines.push(line);
  }
  return blocks;
}

test.each(FILES)('%s: every method has its block, and docs/verifying.md shows each as it is', (file, fence) => {
  const blocks = blocksOf(readFileSync(path.join(ROOT, file), 'utf8'));
  expect([...blocks.keys()]).toEqual(METHODS);
  for (const [method, code] of blocks) expect([method, DOC.includes(`\`\`\`${fence}\n${code}\n\`\`\``)]).toEqual([method, true]);
});

test('docs/partners.md and docs/portal-api.md link to docs/verifying.md', () => {
  for (const doc of ['partners.md', 'portal-api.md'])
    expect(readFileSync(path.join(ROOT, 'docs', doc), 'utf8')).toContain('](verifying.md');
});
