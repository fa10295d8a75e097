/*
 * The sample policy test events are built from: the contract's example event
 * (schemas/examples/policy-status-event.json), read and checked once at start, as any policy event
 * is (@hookstream/contract's parsePolicyEventJson), so a test's body has every field a real one can.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parsePolicyEventJson, type PolicyStatusEventValue } from '@hookstream/contract';

export function readSamplePolicy(schemasDir: string): PolicyStatusEventValue['policy'] {
  const text = readFileSync(path.join(schemasDir, 'examples', 'policy-status-event.json'), 'utf8');
  return parsePolicyEventJson(JSON.parse(text) as unknown, { schemasDir }).policy;
}
