/**
 * Two replicas of every service (ingress, policy-status-consumer, callback-sender,
 * document-fetcher) on a 3-broker cluster of the test's own (three replicas of every partition,
 * two in sync for a write), under inbound and outbound load at once. One replica of each service
 * is killed with SIGKILL in turn, and started again (as a supervisor would) before the next kill;
 * then the broker leading the most partitions is SIGKILLed and started again. Afterwards nothing
 * acknowledged is lost and nothing is done twice: every webhook answered 200 is on partner-events
 * once (also a request_id sent to both ingress replicas at the same moment), every policy event
 * reaches the partner or was superseded by a newer version, repeats carry the delivery id of the
 * first, each policy's last callback is its newest version, and each document of an accepted
 * webhook is recorded once. The figures are printed.
 *
 * The services' state shared by replicas goes to PostgreSQL (DATABASE_URL): a database of the
 * test's own, on the stack's server when DATABASE_URL is set, else on one started for this file.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { topicCatalogue } from '@hookstream/kafka';
import { activeController, killClusterNode, leadersPerBroker, startTestStack, type TestStack } from './helpers/cluster';
import { startDocumentHost, type DocumentHost } from './helpers/document-host';
import { waitFor } from './helpers/infrastructure';
import { webhook } from './helpers/ingress';
import { versionedPolicyLoad } from './helpers/load';
import { readTopicUntil, startReceiver, type Receiver } from './helpers/outbound';
import { OutboundFixture, uniquePartnerId } from './helpers/outbound-fixture';
import { PartnerClient } from './helpers/partner-client';
import type { RunningService } from './helpers/processes';
import { readWholeTopic } from './helpers/restarts';
import { freshStateDatabase, stopStateServer, type StateDatabase } from './helpers/state-database';

const SERVICES = ['ingress', 'policy-status-consumer', 'callback-sender', 'document-fetcher'] as const;
type Service = (typeof SERVICES)[number];
type Replica = RunningService & { webhookUrl?: string };
// Short retry tiers and open periods: on two cores shared with three brokers, a callback or a
// document retrieval can time out, and would then wait its production tier (30 s, 10 s): this test
// is about losing and repeating nothing, not about those waits.
const SETTINGS = {
  CALLBACK_RETRY_DELAYS_MS: '1000,2000,5000,10000,20000,30000,60000,60000',
  BREAKER_OPEN_MS: '5000',
  DOCUMENT_RETRY_DELAYS_MS: '1000,5000,10000,30000',
};
/** Traffic each step waits for (webhooks accepted, callbacks received, documents served), so that every kill falls under load. */
const STEP_TRAFFIC = 10;

let stack: TestStack | undefined;
let state: StateDatabase | undefined;
let fixture: OutboundFixture | undefined;
let receiver: Receiver | undefined;
let host: DocumentHost | undefined;
let documentsDir: string | undefined;
const loads: Array<() => Promise<unknown>> = [];
/** Every replica started, killed ones included: their output is kept when the test fails. */
const everyReplica: Array<{ name: string; replica: Replica }> = [];
let passed = false;

beforeAll(async () => {
  stack = await startTestStack(3);
  // The helpers and services reach Kafka through the environment: this file's own cluster.
  Object.assign(process.env, stack.env);
  state = await freshStateDatabase();
  receiver = await startReceiver();
  host = await startDocumentHost();
  documentsDir = mkdtempSync(path.join(os.tmpdir(), 'hookstream-replicas-documents-'));
}, 300_000);

afterEach(() => {
  // What each replica wrote, to read after a failure (a run on a loaded machine cannot be repeated at will).
  if (passed || everyReplica.length === 0) return;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'hookstream-replicas-logs-'));
  everyReplica.forEach(({ name, replica }, i) => writeFileSync(path.join(dir, `${i}-${name}.log`), replica.output()));
  console.log(`the replicas' output: ${dir}`);
});

afterAll(async () => {
  for (const stop of loads) await stop().catch(() => undefined);
  await fixture?.close('SIGKILL');
  await Promise.all([receiver?.close(), host?.close(), state?.drop().catch(() => undefined)]);
  await stopStateServer();
  await stack?.down();
  if (documentsDir) rmSync(documentsDir, { recursive: true, force: true });
}, 180_000);

test('when one replica of each service and then the busiest broker are SIGKILLed under load, then nothing acknowledged is lost or done twice', async () => {
  const startedAt = Date.now();
  const env = { ...SETTINGS, DATABASE_URL: state!.url, DOCUMENT_STORAGE_DIR: documentsDir! };
  const outbound = (fixture = await OutboundFixture.open('replicas', { env }));
  const topics = topicCatalogue({ prefix: outbound.prefix }).map((t) => t.topic);
  const admin = outbound.kafka.admin();
  await admin.connect();
  loads.push(() => admin.disconnect());
  // `topics ensure` chose the cluster's settings: three replicas of every partition, two in sync for a write.
  const metadata = await admin.fetchTopicMetadata({ topics });
  expect(metadata.filter((t) => t.partitions.some((p) => p.replicas.length !== 3)).map((t) => t.name)).toEqual([]);
  const configs = await admin.describeTopicConfigs([`${outbound.prefix}partner-events`]);
  expect([...configs.values()].map((config) => config.get('min.insync.replicas'))).toEqual(['2']);

  const partnerId = uniquePartnerId('replicas');
  const apiKey = await outbound.partners.create(partnerId, {
    callback_endpoints: [{ endpoint_id: 'primary', url: `${receiver!.url}/cb` }],
    outbound_auth: { method: 'API_KEY', api_key: 'k' },
  });
  const kept = (name: Service) => (replica: Replica) => (everyReplica.push({ name, replica }), replica);
  const start: Record<Service, () => Promise<Replica>> = {
    ingress: () => outbound.startIngress(outbound.env).then(kept('ingress')),
    'policy-status-consumer': () => outbound.startConsumer().then(kept('policy-status-consumer')),
    'callback-sender': () => outbound.startSender().then(kept('callback-sender')),
    'document-fetcher': () => outbound.startFetcher().then(kept('document-fetcher')),
  };
  const started = await Promise.all(SERVICES.map((service) => Promise.all([start[service](), start[service]()])));
  const [ingress, consumers, senders, fetchers] = started;
  const replicas: Record<Service, Replica[]> = {
    ingress: ingress!,
    'policy-status-consumer': consumers!,
    'callback-sender': senders!,
    'document-fetcher': fetchers!,
  };

  // Inbound: two partners posting to both ingress replicas in turn; every 4th webhook goes to both at once.
  const documentsOf = new Map<string, number>();
  const partners = new PartnerClient(() => replicas.ingress.map((r) => r.webhookUrl!), apiKey, {
    clients: 2,
    pauseMs: 100,
    twiceEvery: 4,
    body: () => {
      const body = webhook({ documents: host!.documents() });
      documentsOf.set(body.request_id as string, (body.documents as unknown[]).length);
      return body;
    },
  });
  // Outbound: a new policy every 100 ms, each given versions 2 and 3 half a second apart.
  const events = versionedPolicyLoad(outbound.events, partnerId);
  loads.unshift(() => Promise.all([partners.stop(), events.stop()]));
  const sides = { webhooks: () => partners.accepted, callbacks: () => receiver!.requests.length, documents: () => host!.served() };
  /** Waits until each side has moved on by STEP_TRAFFIC; says when each did, in ms after `since`. */
  const progressed = async (what: string, since = Date.now()) => {
    const from = Object.entries(sides).map(([side, now]) => ({ side, now, from: now(), at: undefined as number | undefined }));
    const enough = () => {
      for (const s of from) if (s.at === undefined && s.now() >= s.from + STEP_TRAFFIC) s.at = Date.now() - since;
      return from.every((s) => s.at !== undefined);
    };
    // Named in the failure: which sides stalled, and where each stood.
    await waitFor(enough, `webhooks, callbacks and documents ${what}`, 120_000).catch((error: Error) => {
      const stalled = from.filter((s) => s.at === undefined).map((s) => `${s.side} ${s.from} → ${s.now()}`);
      throw new Error(`${error.message}; stalled (of ${STEP_TRAFFIC} more wanted): ${stalled.join(', ')}`);
    });
    return from.map((s) => `${s.side} ${s.at} ms`).join(', ');
  };
  await progressed('before the first kill');

  const steps: string[] = [];
  for (const service of SERVICES) {
    const killedAt = Date.now();
    await replicas[service][0]!.stop('SIGKILL');
    replicas[service][0] = await start[service]();
    const readyMs = Date.now() - killedAt;
    const flowing = await progressed(`after a ${service} was killed`, killedAt);
    steps.push(`${service} #1: SIGKILL, started again, ready after ${readyMs} ms; moving on after the kill: ${flowing}`);
  }
  const leaders = await leadersPerBroker(admin, topics);
  const [victim, led] = [...leaders].sort((a, b) => b[1] - a[1])[0]!;
  const controller = activeController(stack!.stateDir);
  const killedAt = Date.now();
  const node = killClusterNode(stack!, victim);
  const flowing = await progressed(`with node ${victim} down`, killedAt);
  await node.restart();
  const restartedMs = Date.now() - killedAt;
  // Asked often and cheaply here (a `stack status` takes seconds); then `stack status` has to agree.
  await waitFor(async () => (await admin.describeCluster()).brokers.length === 3, `node ${victim} to be a live broker again`, 180_000);
  const backMs = Date.now() - killedAt;
  // Each node learns the cluster's membership from the controller's log at its own pace, and a
  // loaded machine may answer one probe late: `stack status` has to agree soon, not on its first ask.
  let status: Awaited<ReturnType<TestStack['status']>> | undefined;
  await waitFor(async () => (status = await stack!.status()).code === 0, '`stack status` to report a healthy cluster', 60_000).catch(
    (error: Error) => {
      throw new Error(`${error.message}; last: exit ${status?.code}, ${JSON.stringify(status?.json.health)}`);
    },
  );
  await progressed(`after node ${victim} was started again`);
  steps.push(
    `broker ${victim} (led ${led} of ${[...leaders.values()].reduce((a, b) => a + b, 0)} partitions; ${victim === controller ? 'also' : 'not'} the active controller): SIGKILL; moving on after the kill: ${flowing}; ` +
      `started again ${restartedMs} ms after, a live broker again ${backMs} ms after`,
  );
  await Promise.all([partners.stop(), events.stop()]);
  const loadStoppedAt = Date.now();

  // Inbound: every webhook ended 200 (the partners retried 503s and refused connections), each on partner-events once.
  const recorded = await readWholeTopic<{ partner_id: string; request_id: string | null }>(`${outbound.prefix}partner-events`);
  const onTopic = count(recorded.map(({ value }) => `${value.partner_id}/${value.request_id}`));
  const accepted = new Set(partners.webhooks.filter((w) => w.status === 200).map((w) => w.requestId));
  const sentTwice = [...count(partners.webhooks.map((w) => w.requestId))].filter(([, n]) => n > 1).map(([id]) => id);

  // Outbound: the newest version of every policy delivered; every older one delivered or recorded SUPERSEDED.
  const published = events.published;
  const newest = new Map<string, number>();
  for (const e of published.values()) newest.set(e.policy, Math.max(newest.get(e.policy) ?? 0, e.version));
  const received = () => receiver!.requests.map((r) => ({ ...published.get(String(r.headers['x-hookstream-event-id'])), r }));
  const newestReceived = () => new Set(received().flatMap((c) => (c.version === newest.get(c.policy!) ? [c.policy] : [])));
  await waitFor(() => newestReceived().size === newest.size, 'the newest version of every policy called back', 120_000).catch(
    () => undefined,
  );
  const deliveredEvents = () => new Set(receiver!.requests.map((r) => String(r.headers['x-hookstream-event-id'])));
  const outcomes = await readUntil<{ event_id: string; outcome: string }>(`${outbound.prefix}callback-outcomes`, (records) => {
    const superseded = new Set(records.filter((r) => r.outcome === 'SUPERSEDED').map((r) => r.event_id));
    const delivered = deliveredEvents();
    return [...published.keys()].every((id) => delivered.has(id) || superseded.has(id));
  });
  const superseded = new Set(outcomes.filter((r) => r.outcome === 'SUPERSEDED').map((r) => r.event_id));

  // Documents: each document of an accepted webhook recorded once.
  const expectedDocuments = [...accepted].flatMap((id) => Array.from({ length: documentsOf.get(id)! }, (_, i) => `${id}#${i}`));
  type DocumentRecord = { document_id: string; request_id: string; document_index: number; replay: number; outcome: string };
  const documents = await readUntil<DocumentRecord>(`${outbound.prefix}partner-documents`, (records) => {
    const seen = new Set(records.map((r) => `${r.request_id}#${r.document_index}`));
    return expectedDocuments.every((d) => seen.has(d));
  });
  const documentRecords = count(documents.map((d) => `${d.request_id}#${d.document_index}`));

  const callbacks = received();
  const eventIds = deliveredEvents();
  const deliveryIds = new Map<string, Set<string>>();
  for (const { r } of callbacks) {
    const eventId = String(r.headers['x-hookstream-event-id']);
    deliveryIds.set(eventId, (deliveryIds.get(eventId) ?? new Set()).add(String(r.headers['x-hookstream-delivery-id'])));
  }
  const distinctDeliveries = new Set(callbacks.map(({ r }) => String(r.headers['x-hookstream-delivery-id']))).size;
  const lastVersion = new Map(callbacks.map((c) => [c.policy, c.version]));
  const lines = [
    ...steps,
    `webhooks: ${partners.webhooks.length} answers, ${accepted.size} request_ids accepted, ${sentTwice.length} sent to both replicas at once ` +
      `(${partners.webhooks.length - accepted.size} duplicate answers, none written twice); retried: ${JSON.stringify(Object.fromEntries(partners.retries))}`,
    `partner-events: ${recorded.length} records, ${onTopic.size} request_ids, ${[...onTopic.values()].filter((n) => n > 1).length} more than once, ` +
      `${[...accepted].filter((id) => !onTopic.has(`${partnerId}/${id}`)).length} accepted missing`,
    `policy events: ${published.size} acknowledged for ${newest.size} policies (${events.resends()} sends repeated); callbacks ${callbacks.length}, ` +
      `${eventIds.size} events delivered, distinct delivery ids ${distinctDeliveries} ` +
      `(${callbacks.length - distinctDeliveries} repeats), ${[...published.keys()].filter((id) => !eventIds.has(id) && superseded.has(id)).length} superseded undelivered, ` +
      `${newestReceived().size} of ${newest.size} newest versions received`,
    `documents: ${expectedDocuments.length} of accepted webhooks, ${documents.length} records, ${host!.served()} retrievals`,
    `settled ${((Date.now() - loadStoppedAt) / 1000).toFixed(1)} s after the load stopped; the test ${((Date.now() - startedAt) / 1000).toFixed(1)} s`,
  ];
  process.stdout.write(`replicas under SIGKILL:\n  ${lines.join('\n  ')}\n`);

  // Inbound: no acknowledged webhook missing, no request_id accepted twice.
  expect(partners.webhooks.filter((w) => w.status !== 200)).toEqual([]);
  // Each id with how often it is there (0: lost, 2: written twice).
  expect(
    [...accepted].flatMap((id) => (onTopic.get(`${partnerId}/${id}`) === 1 ? [] : [`${id} ×${onTopic.get(`${partnerId}/${id}`) ?? 0}`])),
  ).toEqual([]);
  expect(recorded).toHaveLength(accepted.size);
  // Outbound: every event delivered or superseded, one delivery id per event, latest-wins.
  expect(callbacks.filter((c) => c.policy === undefined).map(({ r }) => r.headers)).toEqual([]);
  expect([...published.keys()].filter((id) => !eventIds.has(id) && !superseded.has(id))).toEqual([]);
  expect([...deliveryIds].filter(([, ids]) => ids.size > 1)).toEqual([]);
  expect([...newest].filter(([policy, version]) => lastVersion.get(policy) !== version)).toEqual([]);
  // Documents: every one of an accepted webhook recorded once, stored; no identity twice.
  expect(expectedDocuments.filter((d) => documentRecords.get(d) !== 1)).toEqual([]);
  expect(documents).toHaveLength(expectedDocuments.length);
  expect([...count(documents.map((d) => `${d.document_id}/${d.replay}`)).values()].filter((n) => n > 1)).toEqual([]);
  expect(documents.filter((d) => d.outcome !== 'STORED')).toEqual([]);
  passed = true;
}, 600_000);

/**
 * The values on `topic` once `enough` holds of them, or, after a minute, all there are: the
 * assertions then say what is missing (and the figures are printed first).
 */
async function readUntil<T>(topic: string, enough: (values: T[]) => boolean): Promise<T[]> {
  return readTopicUntil<T>(topic, (records) => enough(records.map((r) => r.value)), 60_000).then(
    (records) => records.map((r) => r.value),
    async () => (await readWholeTopic<T>(topic)).map((r) => r.value),
  );
}

/** How many times each value occurs. */
function count(values: string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  return counts;
}
