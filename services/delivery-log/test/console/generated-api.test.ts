import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { deliveryLogOpenApi } from '../../src/entry/http/openapi/openapi';

const consoleDir = path.join(__dirname, '..', '..', 'console');

test('the console’s committed API types are what the served OpenAPI document generates (else `npm run build:console` regenerates them)', () => {
  const committed = readFileSync(path.join(consoleDir, 'src', 'generated', 'openapi.ts'), 'utf8');
  // openapi-typescript is an ES module Jest cannot load: the generator runs as a child, given the document built from the sources.
  const generated = spawnSync(process.execPath, [path.join(consoleDir, 'generate-api.mjs'), '--stdin'], {
    input: JSON.stringify(deliveryLogOpenApi()),
    encoding: 'utf8',
  });
  expect(generated.stderr).toBe('');
  expect(committed).toBe(generated.stdout);
});
