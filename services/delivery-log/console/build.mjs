// Builds the console into ../dist/web: one bundle of the Preact app (esbuild: TypeScript and JSX
// in, minified ES2022 out, no CDN at run time; the verification snippets read from
// examples/verify), its stylesheet, and the page (its icon inline). Run by `npm run build`.
import { build } from 'esbuild';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { verifySnippetsPlugin } from './verify-snippets.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const out = path.join(here, '..', 'dist', 'web');
mkdirSync(out, { recursive: true });
const started = Date.now();
await build({
  entryPoints: { app: path.join(here, 'src', 'main.tsx'), styles: path.join(here, 'src', 'styles.css') },
  outdir: out,
  bundle: true,
  minify: true,
  sourcemap: true,
  format: 'esm',
  target: 'es2022',
  jsx: 'automatic',
  jsxImportSource: 'preact',
  legalComments: 'linked',
  logLevel: 'warning',
  plugins: [verifySnippetsPlugin(path.join(here, '..', '..', '..', 'examples', 'verify'))],
});
copyFileSync(path.join(here, 'index.html'), path.join(out, 'index.html'));
// Gzipped once here, served to browsers that take gzip (console-routes.ts): no compression per request.
for (const asset of ['app.js', 'styles.css']) {
  writeFileSync(path.join(out, `${asset}.gz`), gzipSync(readFileSync(path.join(out, asset)), { level: 9 }));
}
console.log(`console built into ${path.relative(process.cwd(), out)} in ${Date.now() - started} ms`);
