/*
 * What the Helm chart renders, run against the real local stack: the topics Job's container and each
 * Deployment's container started as local processes with exactly the command, arguments and
 * environment the manifests give them, each Secret reference resolved from a test Secret (the local
 * stack's settings), each volume a local directory. Every service must become ready, and every probe
 * path must answer on the port its manifest names: a chart that put a probe on the wrong port, left
 * out a setting a service requires or named the wrong entry would fail here, not in a cluster. Then
 * a webhook and a policy event flow through them: the webhook accepted on the port the ingress's
 * Service names, its document fetched, the event called back to the partner.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { freePort } from '@hookstream/runtime';
import { ensureHelm, helmTemplate, type Manifest } from './helpers/helm';
import { postWebhook, TestPartners, webhook } from './helpers/ingress';
import { testKafka, testInfrastructure, uniqueName, waitFor } from './helpers/infrastructure';
import { PolicyEvents, policyEvent, startReceiver, type Receiver } from './helpers/outbound';
import { uniquePartnerId } from './helpers/outbound-fixture';
import { runNode, startNode } from './helpers/processes';
import { freshStateDatabase, type StateDatabase } from './helpers/state-database';

interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef: { name: string; key: string } };
}
interface Probe {
  httpGet: { path: string; port: string };
}
interface Container {
  command: string[];
  args?: string[];
  env: EnvVar[];
  ports?: Array<{ name: string; containerPort: number }>;
  volumeMounts: Array<{ name: string; mountPath: string }>;
  startupProbe?: Probe;
  livenessProbe?: Probe;
  readinessProbe?: Probe;
}
const containerOf = (m: Manifest) => (m.spec as { template: { spec: { containers: Container[] } } }).template.spec.containers[0]!;

const PUBLIC_API = ['ingress', 'delivery-log'];
const CONSUMERS = ['policy-status-consumer', 'callback-sender', 'document-fetcher'];

let helm: string;
let database: StateDatabase;
const volumes = mkdtempSync(path.join(os.tmpdir(), 'hookstream-chart-volumes-'));
const started: Array<ReturnType<typeof startNode>> = [];
let receiver: Receiver | undefined;
let partners: TestPartners | undefined;
let events: PolicyEvents | undefined;

beforeAll(async () => {
  helm = await ensureHelm();
  database = await freshStateDatabase();
}, 40 * 60_000);

afterAll(async () => {
  await Promise.all([partners?.close(), events?.close(), receiver?.close()]);
  for (const service of started) service.child.kill('SIGTERM');
  await Promise.all(started.map((s) => s.exited));
  await database?.drop();
  rmSync(volumes, { recursive: true, force: true });
});

/** The local environment a container's manifest describes: its env with Secrets resolved, its mount paths as local folders. */
function localEnv(container: Container, secrets: Record<string, Record<string, string>>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH };
  for (const variable of container.env) {
    const ref = variable.valueFrom?.secretKeyRef;
    const value = ref ? secrets[ref.name]?.[ref.key] : variable.value;
    if (value === undefined) throw new Error(`${variable.name} refers to ${ref?.name}/${ref?.key}, which the test Secret lacks`);
    env[variable.name] = value;
  }
  for (const mount of container.volumeMounts) {
    const local = path.join(volumes, mount.name);
    for (const [name, value] of Object.entries(env)) {
      if (value?.startsWith(mount.mountPath)) env[name] = local + value.slice(mount.mountPath.length);
    }
  }
  return env;
}

/** Its command as a local process: `node` is the test's own Node; paths are relative to the image's WORKDIR, the repository's root. */
const argsOf = (container: Container) => {
  expect(container.command[0]).toBe('node');
  return [...container.command.slice(1), ...(container.args ?? [])];
};

async function answers(url: string): Promise<number> {
  const response = await fetch(url, { signal: AbortSignal.timeout(5000) });
  await response.arrayBuffer();
  return response.status;
}

test('when each rendered Deployment is started as its manifest says, then it becomes ready, every probe answers on the port the manifest names, and a webhook and a policy event flow through', async () => {
  const stateUrl = new URL(database.url);
  const password = decodeURIComponent(stateUrl.password);
  stateUrl.password = '';
  const ports: Record<string, number> = {};
  const prefix = `${uniqueName('chart')}.`;
  const sets = [
    // helm --set splits values on commas.
    `kafka.brokers=${(process.env.KAFKA_BROKERS ?? '').replaceAll(',', '\\,')}`,
    `schemaRegistry.url=${process.env.SCHEMA_REGISTRY_URL}`,
    `kafka.topicPrefix=${prefix}`,
    `postgresql.url=${stateUrl.toString()}`,
    'documents.storage=local',
    // The partner's endpoint and document host below are on loopback, which the SSRF guard refuses by default.
    'ssrfAllow=127.0.0.0/8',
  ];
  // Free ports, so the test runs beside other services on this machine; the manifests then name them.
  for (const service of [...PUBLIC_API, ...CONSUMERS]) {
    ports[service] = await freePort();
    sets.push(`services.${service}.port=${ports[service]}`);
    if (PUBLIC_API.includes(service)) sets.push(`services.${service}.opsPort=${await freePort()}`);
  }
  const rendered = await helmTemplate(helm, ['ci/default-values.yaml'], sets);
  expect({ code: rendered.code, stderr: rendered.stderr }).toEqual({ code: 0, stderr: expect.any(String) });
  const manifests = parseAllDocuments(rendered.stdout)
    .map((d) => d.toJS() as Manifest | null)
    .filter((m): m is Manifest => m !== null);
  const key = () => `test-1:${randomBytes(32).toString('base64')}`;
  const secrets = {
    'hookstream-keyrings': { 'secrets-keys': key(), 'api-key-peppers': key(), 'portal-token-keys': key() },
    'hookstream-postgresql': { password },
  };

  // The topics Job first, as its pre-install hook runs before the Deployments.
  const job = manifests.find((m) => m.kind === 'Job')!;
  expect(job.metadata.annotations?.['helm.sh/hook']).toBe('pre-install,pre-upgrade');
  const topics = await runNode(argsOf(containerOf(job)), { env: localEnv(containerOf(job), secrets), timeoutMs: 120_000 });
  expect({ code: topics.code, output: topics.stdout + topics.stderr }).toEqual({ code: 0, output: expect.any(String) });

  const deployments = manifests.filter((m) => m.kind === 'Deployment');
  expect(deployments).toHaveLength(5);
  for (const deployment of deployments) {
    const container = containerOf(deployment);
    started.push(startNode(argsOf(container), localEnv(container, secrets)));
  }
  for (const [i, deployment] of deployments.entries()) {
    const container = containerOf(deployment);
    const portOf = (name: string) => container.ports!.find((p) => p.name === name)!.containerPort;
    const probes = [container.startupProbe!, container.livenessProbe!, container.readinessProbe!];
    const urls = probes.map((p) => `http://127.0.0.1:${portOf(p.httpGet.port)}${p.httpGet.path}`);
    try {
      for (const url of urls)
        await waitFor(async () => (await answers(url)) === 200, `${deployment.metadata.name}: ${url} answering 200`, 90_000);
    } catch (error) {
      throw new Error(`${String(error)}\n${started[i]!.output().slice(-3000)}`, { cause: error });
    }
    expect(urls.map((u) => new URL(u).pathname)).toEqual(['/healthz', '/healthz', '/readyz']);
  }
  // The public APIs answer on their own port, which serves none of the ops routes.
  for (const service of PUBLIC_API) expect(await answers(`http://127.0.0.1:${ports[service]}/readyz`)).toBe(404);

  // A partner onboarded with the keyrings of the test Secret: the services decrypt and verify with them.
  receiver = await startReceiver();
  const keyrings = secrets['hookstream-keyrings'];
  const env = { HOOKSTREAM_SECRETS_KEYS: keyrings['secrets-keys'], HOOKSTREAM_API_KEY_PEPPERS: keyrings['api-key-peppers'] };
  partners = new TestPartners(testKafka(), prefix, testInfrastructure().registryUrl, env);
  const partnerId = uniquePartnerId('chart');
  const apiKey = await partners.create(partnerId, {
    callback_endpoints: [{ endpoint_id: 'primary', url: `${receiver.url}/cb` }],
    outbound_auth: { method: 'API_KEY', api_key: 'k' },
  });
  const body = webhook({ documents: [{ type: 'POLICY_CERTIFICATE', url: `${receiver.url}/cert.pdf`, filename: 'cert.pdf' }] });
  const webhookUrl = `http://127.0.0.1:${ports.ingress}/api/integration/partner/webhook`;
  // Until the ingress has read the partner from partner-config, the key is unknown (401).
  await waitFor(async () => (await postWebhook(webhookUrl, apiKey, body)).status === 200, 'the webhook accepted', 60_000);
  events = new PolicyEvents(testKafka(), prefix);
  const event = policyEvent(partnerId);
  await events.publish([event]);
  const called = (url: string) => receiver!.requests.some((r) => r.url === url);
  await waitFor(() => called('/cert.pdf'), "the webhook's document fetched", 60_000);
  await waitFor(
    () => receiver!.requests.some((r) => r.url === '/cb' && JSON.stringify(r.body).includes(event.policy.policy_number)),
    'the callback',
    60_000,
  );
}, 300_000);
