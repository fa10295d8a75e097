/**
 * docs/metrics.md against live /metrics: the three services run on the shared stack, traffic goes
 * through them (webhooks, callbacks delivered and dead-lettered), and each service's scrape must
 * export exactly the catalogue's rows for it, with the catalogue's types and label names.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { waitFor } from './helpers/infrastructure';
import { postWebhook, webhook } from './helpers/ingress';
import { policyEvent } from './helpers/outbound';
import { OutboundFixture, retryTierDelays, uniquePartnerId } from './helpers/outbound-fixture';
import { REPO_ROOT } from './helpers/processes';

const SERVICES = ['ingress', 'policy-status-consumer', 'callback-sender'] as const;
type Service = (typeof SERVICES)[number];

/** One row of the catalogue's first table. */
interface CatalogueRow {
  names: string[];
  type: string;
  labels: string[];
  services: string[];
}

/** The catalogue's metric table: cells split on "|", names and labels in backticks. */
function readCatalogue(): CatalogueRow[] {
  const lines = readFileSync(path.join(REPO_ROOT, 'docs', 'metrics.md'), 'utf8').split('\n');
  const header = lines.findIndex((line) => /^\|\s*metric\s*\|/.test(line));
  const rows: CatalogueRow[] = [];
  for (const line of lines.slice(header + 2)) {
    if (!line.startsWith('|')) break;
    const [name, type, labels, services] = line
      .split('|')
      .slice(1, 5)
      .map((cell) => cell.trim());
    const ticked = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
    rows.push({ names: ticked(name!), type: type!, labels: ticked(labels!).sort(), services: services!.split(',').map((s) => s.trim()) });
  }
  return rows;
}

/** One metric family of a scrape: its type and the label names its samples carry (besides `service`, and `le` of buckets). */
interface ExportedFamily {
  type: string;
  labels: string[] | undefined;
}

function parseScrape(text: string): Map<string, ExportedFamily> {
  const families = new Map<string, ExportedFamily>();
  const labels = new Map<string, Set<string>>();
  for (const line of text.split('\n')) {
    const typed = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (typed) families.set(typed[1]!, { type: typed[2]!, labels: undefined });
    const sample = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? \S+$/.exec(line);
    if (!sample) continue;
    const name = sample[1]!;
    const family = families.has(name) ? name : name.replace(/_(bucket|sum|count)$/, '');
    const names = [...(sample[2] ?? '').matchAll(/(\w+)="/g)].map((m) => m[1]!).filter((l) => l !== 'service' && l !== 'le');
    const seen = labels.get(family) ?? new Set<string>();
    names.forEach((l) => seen.add(l));
    labels.set(family, seen);
  }
  for (const [name, seen] of labels) {
    const family = families.get(name);
    if (family) family.labels = [...seen].sort();
  }
  return families;
}

/** A row whose name is a pattern (`process_*`) covers every family it matches. */
const matches = (pattern: string, name: string) => new RegExp(`^${pattern.replace(/\*/g, '.*')}$`).test(name);

/** What a scrape and the catalogue disagree on, for one service (empty when they agree). */
function disagreements(service: Service, exported: Map<string, ExportedFamily>, catalogue: CatalogueRow[]): string[] {
  const rows = catalogue.filter((row) => row.services.includes(service));
  const problems: string[] = [];
  for (const [name, family] of exported) {
    const row = rows.find((r) => r.names.some((n) => matches(n, name)));
    if (!row) problems.push(`${name} (${family.type}) is exported but not in the catalogue for ${service}`);
    else if (!row.names.some((n) => n.includes('*'))) {
      if (row.type !== family.type) problems.push(`${name} is a ${family.type}, the catalogue says ${row.type}`);
      if (family.labels && family.labels.join(',') !== row.labels.join(','))
        problems.push(`${name} has labels [${family.labels.join(', ')}], the catalogue says [${row.labels.join(', ')}]`);
    }
  }
  for (const row of rows) {
    if (!row.names.some((pattern) => [...exported.keys()].some((name) => matches(pattern, name))))
      problems.push(`${row.names.join(', ')} is in the catalogue for ${service} but not exported`);
  }
  return problems;
}

async function scrape(url: string): Promise<string> {
  return (await fetch(`${url}/metrics`)).text();
}

/** The value of the first sample of `name` whose labels include all of `labels`. */
function sampleValue(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`))) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return undefined;
}

let outbound: OutboundFixture;
let urls: Record<Service, string>;

beforeAll(async () => {
  outbound = await OutboundFixture.open('metrics-catalogue', {
    // Short tiers and a short open circuit, so a failing partner's callback reaches the DLQ in seconds.
    retryDelaysMs: retryTierDelays(200),
    breaker: { failures: 5, openMs: 500 },
    env: { CONSUMER_LAG_INTERVAL_MS: '1000' },
  });
  const [ingress, consumer, sender] = await Promise.all([outbound.startIngress(), outbound.startConsumer(), outbound.startSender()]);
  urls = { ingress: ingress.opsUrl, 'policy-status-consumer': consumer.opsUrl, 'callback-sender': sender.opsUrl };

  // Inbound: accepted, replayed, conflicting and unauthenticated webhooks.
  const inbound = uniquePartnerId('inbound');
  const apiKey = await outbound.partners.create(inbound);
  const body = webhook();
  await waitFor(async () => (await postWebhook(ingress.webhookUrl, apiKey, body)).status === 200, 'a webhook to be accepted', 30_000);
  await postWebhook(ingress.webhookUrl, apiKey, body);
  await postWebhook(ingress.webhookUrl, apiKey, { ...body, status: 'POLICY_CANCELLED' });
  await postWebhook(ingress.webhookUrl, undefined, body);

  // Outbound: one partner answers 200, one 500 until its callback is dead-lettered.
  const [ok, failing] = [uniquePartnerId('ok'), uniquePartnerId('failing')];
  await outbound.onboard(ok, { url: (await outbound.receiver(() => 200)).url });
  await outbound.onboard(failing, { url: (await outbound.receiver(() => 500)).url });
  await outbound.events.publish([policyEvent(ok), policyEvent(failing)]);
}, 180_000);

afterAll(() => outbound?.close());

test('when traffic went through, then the new gauges say what happened: a dead letter unreplayed, caught-up groups at 0, every service ready', async () => {
  const dlq = `${outbound.prefix}callback-dlq`;
  const text = await waitFor(
    async () => {
      const scraped = await scrape(urls['callback-sender']);
      return sampleValue(scraped, 'hookstream_dlq_records', { topic: dlq }) === 1 ? scraped : undefined;
    },
    'the failing callback to be counted in callback-dlq',
    60_000,
  );
  expect(sampleValue(text, 'hookstream_dlq_unreplayed_records', { topic: dlq })).toBe(1);
  // callback-requests is written in transactions: once everything is consumed, its lag is 0, markers or not.
  const requests = `${outbound.prefix}callback-requests`;
  await waitFor(async () => {
    const scraped = await scrape(urls['callback-sender']);
    const lags = scraped.split('\n').filter((l) => l.startsWith('hookstream_consumer_lag_records{') && l.includes(`topic="${requests}"`));
    return lags.length === 3 && lags.every((l) => l.endsWith(' 0'));
  }, 'the requests group to show no lag on each of its 3 partitions');
  const consumer = await scrape(urls['policy-status-consumer']);
  expect(sampleValue(consumer, 'hookstream_dlq_records', { topic: `${outbound.prefix}policy-status-dlq` })).toBe(0);
  expect(sampleValue(consumer, 'hookstream_consumer_lag_seconds', { topic: `${outbound.prefix}policy-status` })).toBe(0);
  for (const service of SERVICES) expect(sampleValue(await scrape(urls[service]), 'hookstream_service_ready')).toBe(1);
}, 90_000);

test.each(SERVICES)(
  'when %s is scraped, then it exports exactly its rows of docs/metrics.md, with their types and labels',
  async (service) => {
    const catalogue = readCatalogue();
    expect(catalogue.length).toBeGreaterThan(20); // the table was found and read
    const exported = parseScrape(await scrape(urls[service]));
    expect(disagreements(service, exported, catalogue)).toEqual([]);
    // The new gauges carry samples by now, so their label names were really compared.
    const sampled = [
      'hookstream_service_ready',
      ...(service === 'ingress' ? [] : ['hookstream_consumer_lag_records', 'hookstream_dlq_records']),
    ];
    for (const name of sampled) expect(exported.get(name)?.labels).toBeDefined();
  },
);
