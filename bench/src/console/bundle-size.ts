/**
 * The console's built files (services/delivery-log/dist/web, made by `npm run build`) as the browser
 * downloads them: bytes as served (the service does not compress them) and gzipped, what a proxy
 * in front of it that compresses would send.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { REPO_ROOT } from '../support/bench-run';

const WEB = path.join(REPO_ROOT, 'services', 'delivery-log', 'dist', 'web');

/** The files the console's first view loads besides its page. */
const ASSETS = ['app.js', 'styles.css'];

/** e.g. "app.js 54,012 B (gzip 19,034 B), styles.css 5,375 B (gzip 1,702 B)". */
export function describeBundle(): string {
  const bytes = (n: number) => `${n.toLocaleString('en')} B`;
  return ASSETS.map((name) => {
    const content = readFileSync(path.join(WEB, name));
    return `${name} ${bytes(content.length)} (gzip ${bytes(gzipSync(content).length)})`;
  }).join(', ');
}
