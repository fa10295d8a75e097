// The verification snippets the console shows, read at build time from the repository's runnable
// examples (examples/verify: the files a test runs against real deliveries), so what a partner
// copies is what was tested. A block runs from a "--- METHOD ---" comment line to "--- end ---".
import { readFileSync } from 'node:fs';
import path from 'node:path';

const FILES = { node: 'node/verify.mjs', python: 'python/verify.py', java: 'java/Verify.java' };
const START = /^\s*(?:\/\/|#)\s*--- ([A-Z0-9_]+) ---\s*$/;
const END = /^\s*(?:\/\/|#)\s*--- end ---\s*$/;

/** The blocks of one file, by method, each dedented. */
export function snippetBlocks(text) {
  const blocks = {};
  let name;
  let lines = [];
  for (const line of text.split('\n')) {
    if (name === undefined) {
      name = START.exec(line)?.[1];
      lines = [];
    } else if (END.test(line)) {
      const indent = Math.min(...lines.filter((l) => l.trim()).map((l) => l.length - l.trimStart().length));
      blocks[name] = lines.map((l) => l.slice(indent)).join('\n');
      name = undefined;
    } else lines.push(line);
  }
  return blocks;
}

/** Every method's snippet in each language: { HMAC_SHA256: { node, python, java }, … }. */
export function verifySnippets(examplesDir) {
  const snippets = {};
  for (const [language, file] of Object.entries(FILES)) {
    for (const [method, code] of Object.entries(snippetBlocks(readFileSync(path.join(examplesDir, file), 'utf8')))) {
      (snippets[method] ??= {})[language] = code;
    }
  }
  return snippets;
}

/** An esbuild plugin answering `import { snippets } from 'virtual:verify-snippets'`. */
export function verifySnippetsPlugin(examplesDir) {
  return {
    name: 'verify-snippets',
    setup(build) {
      build.onResolve({ filter: /^virtual:verify-snippets$/ }, () => ({ path: 'verify-snippets', namespace: 'verify-snippets' }));
      build.onLoad({ filter: /.*/, namespace: 'verify-snippets' }, () => ({
        contents: `export const snippets = ${JSON.stringify(verifySnippets(examplesDir))};`,
        loader: 'js',
        watchFiles: Object.values(FILES).map((f) => path.join(examplesDir, f)),
      }));
    },
  };
}
