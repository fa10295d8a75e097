import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { defaultSchemasDir } from '@hookstream/kafka';
import { parsePartnerSpec } from '../src/partner-spec';
import { policyBodyFieldPaths } from '../src/policy-fields';

const dir = path.resolve(__dirname, '..', '..', '..', 'examples', 'partners');

describe('the example partner specs in examples/partners', () => {
  test.each(readdirSync(dir).filter((f) => f.endsWith('.yaml')))('%s is a valid partner spec', (file) => {
    const spec = parsePartnerSpec(parse(readFileSync(path.join(dir, file), 'utf8')), policyBodyFieldPaths(defaultSchemasDir()));
    expect(spec.name.length).toBeGreaterThan(0);
  });
});
