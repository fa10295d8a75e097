import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { ERROR_CATALOGUE } from '@hookstream/errors';
import { OutboundFailures } from '@hookstream/runtime';
import { GLOSSARY, termOf, type Kind } from '../../console/src/glossary';
import { deliveryLogOpenApi } from '../../src/entry/http/openapi/openapi';
import { NOTIFICATION_TYPES } from '../../src/domain/notification-events';

const ROOT = path.resolve(__dirname, '..', '..', '..', '..');

interface SchemaNode {
  enum?: string[];
  properties?: Record<string, SchemaNode>;
  items?: SchemaNode;
}
const schemas = (deliveryLogOpenApi() as { components: { schemas: Record<string, SchemaNode> } }).components.schemas;
/** The values of an enum of the served OpenAPI document, by schema and property path. */
function enumOf(schema: string, ...properties: string[]): string[] {
  let node: SchemaNode | undefined = schemas[schema];
  for (const name of properties) node = node?.properties?.[name] ?? node?.items?.properties?.[name];
  const values = node?.enum ?? node?.items?.enum;
  if (!values) throw new Error(`no enum at ${schema}.${properties.join('.')}`);
  return values;
}

/** TypeScript sources under `dir`, tests and builds aside. */
function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (['node_modules', 'dist', 'test'].includes(name)) return [];
    if (statSync(full).isDirectory()) return sources(full);
    return name.endsWith('.ts') ? [full] : [];
  });
}

/** Every failure class a send or a dead letter can record: as the sources name them, so a new one cannot go unexplained. */
function errorClasses(): string[] {
  const text = [
    'services/callback-sender/src',
    'services/policy-status-consumer/src',
    'services/document-fetcher/src',
    'packages/dead-letters/src',
  ]
    .flatMap((dir) => sources(path.join(ROOT, dir)))
    .map((file) => readFileSync(file, 'utf8'))
    .join('\n');
  const named = [
    ...[...text.matchAll(/errorClass: '([A-Z_]+)'/g)].map((m) => m[1]!),
    ...[...text.matchAll(/again\('([A-Z_]+)'/g)].map((m) => m[1]!),
    ...[...text.matchAll(/type DeadLetterClass = ([^;]+);/g)].flatMap((m) => [...m[1]!.matchAll(/'([A-Z_]+)'/g)].map((q) => q[1]!)),
  ];
  // A document's failure_reason (document-fetcher's FailureReasons; the rest are OutboundFailures).
  const reasons = readFileSync(path.join(ROOT, 'services/document-fetcher/src/domain/fetch-failure.ts'), 'utf8');
  named.push(...[...reasons.matchAll(/^ {2}\w+: '([A-Z_]+)',$/gm)].map((m) => m[1]!));
  // A callback that cannot be signed records its code without HOOKSTREAM_ (callback-sender's signing-failures.ts).
  const signing = readFileSync(path.join(ROOT, 'services/callback-sender/src/domain/signing-failures.ts'), 'utf8');
  const signingCodes = [...signing.matchAll(/ErrorCodes\.([A-Z_]+)/g)].map((m) =>
    (ERROR_CATALOGUE as Record<string, { code: string }>)[m[1]!]!.code.replace(/^HOOKSTREAM_/, ''),
  );
  return [...new Set([...named, ...Object.values(OutboundFailures), ...signingCodes])].sort();
}

const missing = (kind: Kind, codes: string[]) => codes.filter((code) => termOf(kind, code) === undefined);

describe('every code the console can show has plain words in the glossary', () => {
  test('every error_code the APIs can answer (the error catalogue’s refusals)', () => {
    const refusals = Object.values(ERROR_CATALOGUE)
      .filter((facts) => 'httpStatus' in facts)
      .map((facts) => facts.code);
    expect(refusals.length).toBeGreaterThan(10);
    expect(missing('error-code', refusals)).toEqual([]);
  });

  test('every state and outcome the OpenAPI document enumerates', () => {
    expect(missing('state', enumOf('DeliveryState'))).toEqual([]);
    expect(missing('outcome', enumOf('DeliveryAttempt', 'outcome'))).toEqual([]);
    expect(missing('circuit', enumOf('EndpointsHealth', 'circuit_state'))).toEqual([]);
    expect(missing('document', enumOf('WebhookDocument', 'outcome'))).toEqual([]);
    expect(missing('replay', enumOf('ReplayDecision', 'outcome'))).toEqual([]);
    expect(missing('partner-status', enumOf('Partner', 'status'))).toEqual([]);
    expect(missing('step', enumOf('TimelineStep', 'name'))).toEqual([]);
  });

  test('every failure class a send, a dead letter or a document records', () => {
    const classes = errorClasses();
    expect(classes).toEqual(expect.arrayContaining(['HTTP_STATUS', 'TIMEOUT', 'CONNECTION_REFUSED', 'CIRCUIT_OPEN', 'PARTNER_DISABLED']));
    expect(missing('error-class', classes)).toEqual([]);
  });

  test('every audit trail action the sources record (the audit trail shows it in words, not as dead-letters.replay)', () => {
    const text = ['packages', 'services', 'cli']
      .flatMap((dir) => readdirSync(path.join(ROOT, dir)).map((name) => path.join(ROOT, dir, name, 'src')))
      .filter((dir) => statSync(dir, { throwIfNoEntry: false })?.isDirectory())
      .flatMap((dir) => sources(dir))
      .map((file) => readFileSync(file, 'utf8'))
      .join('\n');
    const actions = [
      ...new Set([...text.matchAll(/'((?:partner|portal-token|operator|dead-letters|delivery|endpoint)\.[a-z-]+)'/g)].map((m) => m[1]!)),
    ]
      .filter((action) => !action.endsWith('.avsc'))
      // Operational notifications' types (endpoint.failing …) are no audit action: the console names them itself.
      .filter((action) => !(NOTIFICATION_TYPES as readonly string[]).includes(action))
      .sort();
    expect(actions).toEqual(
      expect.arrayContaining(['dead-letters.replay', 'partner.create', 'partner.self-service-off', 'portal-token.issue']),
    );
    expect(missing('audit-action', actions)).toEqual([]);
  });

  test('each entry has words and a meaning; a closed circuit is normal, not an alert', () => {
    for (const entries of Object.values(GLOSSARY))
      for (const term of Object.values(entries)) {
        expect(term.words.length).toBeGreaterThan(2);
        expect(term.meaning.length).toBeGreaterThan(20);
      }
    expect(termOf('circuit', 'closed')?.tone).not.toMatch(/bad|warn|good/);
  });
});
