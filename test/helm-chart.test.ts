/*
 * The Helm chart (deploy/helm/hookstream) checked without a cluster: `helm lint`, `helm template`
 * with the least values a release needs and with a production-like file (ci/), every rendered
 * object of the Kubernetes API validated strictly against its schema (kubernetes-validate), the
 * CRDs' objects (KEDA, Prometheus Operator; no schema for them offline) checked here for what
 * their operators require, and the values schema's refusals. Helm and kubernetes-validate are
 * installed on first use (test/helpers/helm.ts).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { CHART_DIR, ensureHelm, ensureKubernetesValidate, helmTemplate, runCommand, type Manifest } from './helpers/helm';

const MINIMAL = 'ci/default-values.yaml';
const PRODUCTION = 'ci/production-values.yaml';
/** The Kubernetes versions validated against: the oldest the chart allows (Chart.yaml's kubeVersion) and the newest kubernetes-validate 1.37.0 ships. */
const KUBERNETES_VERSIONS = ['1.25.0', '1.37.0'];
const CRD_KINDS = new Set(['ScaledObject', 'TriggerAuthentication', 'ServiceMonitor', 'PrometheusRule']);
/** The CRDs KEDA (v2.20.2) and the Prometheus Operator (v0.93.0) publish, as released (test/fixtures/crds/README.md). */
const CRD_DIR = path.resolve(__dirname, 'fixtures', 'crds');
const CUSTOM_RESOURCE_CHECK = path.resolve(__dirname, 'support', 'validate_custom_resources.py');
const SERVICES = ['ingress', 'policy-status-consumer', 'callback-sender', 'document-fetcher', 'delivery-log'];

let helm: string;
let validator: string;

beforeAll(async () => {
  helm = await ensureHelm();
  validator = await ensureKubernetesValidate();
}, 40 * 60_000);

async function render(valuesFiles: string[], sets: string[] = []): Promise<Manifest[]> {
  const result = await helmTemplate(helm, valuesFiles, sets);
  if (result.code !== 0) throw new Error(`helm template failed (${result.code}):\n${result.stderr}`);
  return parseAllDocuments(result.stdout)
    .map((doc) => doc.toJS() as Manifest | null)
    .filter((m): m is Manifest => m !== null);
}

const ofKind = (manifests: Manifest[], kind: string) => manifests.filter((m) => m.kind === kind);
const named = (manifests: Manifest[], kind: string, name: string) => {
  const found = manifests.find((m) => m.kind === kind && m.metadata.name === name);
  if (!found) throw new Error(`no ${kind} ${name} rendered`);
  return found;
};

interface Container {
  command: string[];
  ports: Array<{ name: string; containerPort: number }>;
  env: Array<{ name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } }>;
  startupProbe: { httpGet: { path: string; port: string } };
  livenessProbe: { httpGet: { path: string; port: string } };
  readinessProbe: { httpGet: { path: string; port: string } };
  securityContext: Record<string, unknown>;
}
interface PodSpec {
  containers: Container[];
  automountServiceAccountToken: boolean;
  securityContext: Record<string, unknown>;
  terminationGracePeriodSeconds: number;
  topologySpreadConstraints: unknown[];
}
const podOf = (deployment: Manifest) => (deployment.spec as { template: { spec: PodSpec } }).template.spec;

describe('the Helm chart', () => {
  test('when linted with the minimal and the production values, then helm lint passes', async () => {
    for (const values of [MINIMAL, PRODUCTION]) {
      const result = await runCommand(helm, ['lint', '--strict', CHART_DIR, '--values', path.join(CHART_DIR, values)]);
      expect({ values, code: result.code, output: result.stdout + result.stderr }).toMatchObject({ values, code: 0 });
    }
  });

  test('when rendered with the defaults alone, then it fails naming the missing setting', async () => {
    const result = await helmTemplate(helm, []);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('kafka.brokers is required');
  });

  test('when a value is wrong, then install fails with a message naming it', async () => {
    const zero = await helmTemplate(helm, [MINIMAL], ['services.callback-sender.autoscaling.minReplicas=0']);
    expect(zero.stderr).toMatch(/callback-sender.*autoscaling.*minReplicas/s);
    const beyond = await helmTemplate(helm, [PRODUCTION], ['services.callback-sender.autoscaling.maxReplicas=13']);
    expect(beyond.stderr).toContain('services.callback-sender.autoscaling.maxReplicas (13) exceeds kafka.partitions (12)');
    const secretInUrl = await helmTemplate(helm, [MINIMAL], ['postgresql.url=postgres://hookstream:hunter2@db:5432/hookstream']);
    expect(secretInUrl.stderr).toMatch(/postgresql.*url/s);
    const grace = await helmTemplate(helm, [MINIMAL], ['shutdown.terminationGracePeriodSeconds=12']);
    expect(grace.stderr).toContain('must exceed preStopSleepSeconds + timeoutMs/1000 (15)');
    for (const result of [zero, beyond, secretInUrl, grace]) expect(result.code).not.toBe(0);
  });

  test.each([MINIMAL, PRODUCTION])('when rendered with %s, then every Kubernetes API object validates strictly', async (values) => {
    const manifests = await render([values]);
    const core = manifests.filter((m) => !CRD_KINDS.has(m.kind));
    expect(core.length).toBeGreaterThan(15);
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'hookstream-chart-')), 'manifests.yaml');
    writeFileSync(file, core.map((m) => `---\n${JSON.stringify(m)}\n`).join(''));
    const versions = KUBERNETES_VERSIONS.flatMap((v) => ['-k', v]);
    const result = await runCommand(validator, ['-m', 'kubernetes_validate', '--strict', ...versions, file]);
    rmSync(path.dirname(file), { recursive: true, force: true });
    expect({ code: result.code, output: result.stdout + result.stderr }).toEqual({ code: 0, output: expect.any(String) });
    expect(result.stdout + result.stderr).not.toMatch(/ERROR|WARN/);
  });

  test('when rendered with the production values, then every custom resource validates strictly against the schema its operator publishes', async () => {
    const manifests = await render([PRODUCTION]);
    const custom = manifests.filter((m) => CRD_KINDS.has(m.kind));
    expect(new Set(custom.map((m) => m.kind))).toEqual(CRD_KINDS);
    const dir = mkdtempSync(path.join(os.tmpdir(), 'hookstream-chart-'));
    const file = path.join(dir, 'custom.yaml');
    writeFileSync(file, custom.map((m) => `---\n${JSON.stringify(m)}\n`).join(''));
    const result = await runCommand(validator, [CUSTOM_RESOURCE_CHECK, CRD_DIR, file]);
    // A misspelt field is refused too, as the API server would drop it without a word.
    const misspelt = custom.map((m) => (m.kind === 'ScaledObject' ? { ...m, spec: { ...(m.spec as object), minReplicas: 1 } } : m));
    writeFileSync(file, misspelt.map((m) => `---\n${JSON.stringify(m)}\n`).join(''));
    const refused = await runCommand(validator, [CUSTOM_RESOURCE_CHECK, CRD_DIR, file]);
    rmSync(dir, { recursive: true, force: true });
    expect({ code: result.code, output: result.stdout + result.stderr }).toEqual({
      code: 0,
      output: expect.stringContaining('OK ScaledObject/'),
    });
    expect(result.stdout.trim().split('\n')).toHaveLength(custom.length);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toMatch(
      /ERROR ScaledObject\/hookstream-[a-z-]+: spec: Additional properties are not allowed \('minReplicas' was unexpected\)/,
    );
  });

  test('when tracing is given a collector, then every service exports to it at the chosen ratio and may reach it; without one, none traces', async () => {
    /** Each Deployment's tracing variables, by its name. */
    const envOf = (manifests: Manifest[]) =>
      Object.fromEntries(
        ofKind(manifests, 'Deployment').map((d) => {
          const container = (d.spec as { template: { spec: { containers: Array<{ env: Array<{ name: string; value?: string }> }> } } })
            .template.spec.containers[0]!;
          const traceEnv = container.env.filter((e) => /^(OTEL_|DELIVERY_LOG_TRACE_URL$)/.test(e.name)).map((e) => [e.name, e.value]);
          return [(d.metadata as { name: string }).name, Object.fromEntries(traceEnv)];
        }),
      );
    const traced = await render([PRODUCTION]);
    const exporting = {
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://otel-collector.monitoring:4318',
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.1',
    };
    // Each service exports; the delivery log also links its console to the trace store.
    expect(envOf(traced)).toEqual({
      'hookstream-ingress': exporting,
      'hookstream-policy-status-consumer': exporting,
      'hookstream-callback-sender': exporting,
      'hookstream-document-fetcher': exporting,
      'hookstream-delivery-log': { ...exporting, DELIVERY_LOG_TRACE_URL: 'https://jaeger.example.internal/trace/{trace_id}' },
    });
    for (const policy of ofKind(traced, 'NetworkPolicy')) {
      const egress = (policy.spec as { egress: Array<{ ports?: Array<{ port: number }> }> }).egress;
      expect(egress.some((rule) => rule.ports?.some((p) => p.port === 4318))).toBe(true);
    }
    expect(Object.values(envOf(await render([MINIMAL])))).toEqual(Array(5).fill({}));
  });

  test('when rendered, then each service probes /healthz and /readyz on the port that serves them', async () => {
    const manifests = await render([MINIMAL]);
    // Where each service serves its ops routes: services/*/src/config.ts (OPS_PORT, else HTTP_PORT).
    const opsPorts: Record<string, number> = {
      ingress: 9080,
      'policy-status-consumer': 8091,
      'callback-sender': 8092,
      'document-fetcher': 8093,
      'delivery-log': 9094,
    };
    for (const service of SERVICES) {
      const container = podOf(named(manifests, 'Deployment', `hookstream-${service}`)).containers[0]!;
      const env = Object.fromEntries(container.env.map((e) => [e.name, e.value]));
      const ops = container.ports.find((p) => p.name === 'ops');
      expect({ service, ops: ops?.containerPort, served: Number(env.OPS_PORT ?? env.HTTP_PORT) }).toEqual({
        service,
        ops: opsPorts[service],
        served: opsPorts[service],
      });
      expect(
        [container.startupProbe, container.livenessProbe, container.readinessProbe].map((p) => `${p.httpGet.path}@${p.httpGet.port}`),
      ).toEqual(['/healthz@ops', '/healthz@ops', '/readyz@ops']);
    }
  });

  test('when rendered with the production values, then pods are locked down and every secret comes from a named Secret', async () => {
    const manifests = await render([PRODUCTION]);
    const deployments = ofKind(manifests, 'Deployment');
    expect(deployments.map((d) => d.metadata.name).sort()).toEqual(SERVICES.map((s) => `hookstream-${s}`).sort());
    const secretVariables = /PASSWORD|KEYS|PEPPERS|SECRET_ACCESS_KEY|SASL_USERNAME/;
    for (const deployment of deployments) {
      const spec = deployment.spec as { replicas?: number; strategy: { rollingUpdate: { maxUnavailable: number } } };
      // Autoscaled: the replica count is the autoscaler's, not the Deployment's.
      expect(spec.replicas).toBeUndefined();
      expect(spec.strategy.rollingUpdate.maxUnavailable).toBe(0);
      const pod = podOf(deployment);
      expect(pod.automountServiceAccountToken).toBe(false);
      expect(pod.securityContext.runAsNonRoot).toBe(true);
      expect(pod.terminationGracePeriodSeconds).toBeGreaterThan(15);
      expect(pod.topologySpreadConstraints.length).toBeGreaterThan(0);
      const container = pod.containers[0]!;
      expect(container.securityContext).toMatchObject({ readOnlyRootFilesystem: true, allowPrivilegeEscalation: false });
      for (const variable of container.env.filter((e) => secretVariables.test(e.name))) {
        expect({ name: variable.name, value: variable.value, from: variable.valueFrom?.secretKeyRef?.name }).toEqual({
          name: variable.name,
          value: undefined,
          from: expect.stringMatching(/^[a-z0-9-]+$/),
        });
      }
      const env = Object.fromEntries(container.env.map((e) => [e.name, e.value]));
      expect(env).toMatchObject({
        KAFKA_SECURITY_PROTOCOL: 'SASL_SSL',
        KAFKA_SASL_MECHANISM: 'SCRAM-SHA-512',
        KAFKA_SSL_CA_FILE: '/etc/hookstream/kafka-ca/ca.crt',
      });
    }
    expect(ofKind(manifests, 'PodDisruptionBudget')).toHaveLength(5);
    expect(ofKind(manifests, 'NetworkPolicy')).toHaveLength(5);
    expect(ofKind(manifests, 'HorizontalPodAutoscaler').map((h) => h.metadata.name)).toEqual(['hookstream-ingress']);
  });

  test('when rendered with the production values, then the CRD objects carry what KEDA and the Prometheus Operator require', async () => {
    const manifests = await render([PRODUCTION]);
    const scaled = ofKind(manifests, 'ScaledObject');
    expect(scaled.map((s) => s.metadata.name).sort()).toEqual(
      ['callback-sender', 'delivery-log', 'document-fetcher', 'policy-status-consumer'].map((s) => `hookstream-${s}`),
    );
    for (const object of scaled) {
      expect(object.apiVersion).toBe('keda.sh/v1alpha1');
      const spec = object.spec as {
        scaleTargetRef: { name: string };
        minReplicaCount: number;
        maxReplicaCount: number;
        triggers: Array<{ type: string; metadata: Record<string, string>; authenticationRef?: { name: string } }>;
      };
      named(manifests, 'Deployment', spec.scaleTargetRef.name);
      expect(spec.minReplicaCount).toBeGreaterThanOrEqual(1);
      expect(spec.maxReplicaCount).toBeLessThanOrEqual(12);
      for (const trigger of spec.triggers) {
        expect(trigger.type).toBe('kafka');
        expect(Object.keys(trigger.metadata)).toEqual(
          expect.arrayContaining(['bootstrapServers', 'consumerGroup', 'topic', 'lagThreshold']),
        );
        expect(trigger.metadata).toMatchObject({ sasl: 'scram_sha512', tls: 'enable', lagThreshold: expect.stringMatching(/^\d+$/) });
        named(manifests, 'TriggerAuthentication', trigger.authenticationRef!.name);
      }
    }
    const monitor = named(manifests, 'ServiceMonitor', 'hookstream');
    expect(monitor.apiVersion).toBe('monitoring.coreos.com/v1');
    const selector = (monitor.spec as { selector: { matchLabels: Record<string, string> } }).selector.matchLabels;
    const opsServices = ofKind(manifests, 'Service').filter((s) =>
      Object.entries(selector).every(([k, v]) => s.metadata.labels?.[k] === v),
    );
    expect(opsServices).toHaveLength(5);
    // One source: the PrometheusRule holds ops/prometheus/rules/hookstream.rules.yml's groups as they are.
    const rules = parse(readFileSync(path.resolve(CHART_DIR, '../../../ops/prometheus/rules/hookstream.rules.yml'), 'utf8')) as {
      groups: unknown;
    };
    expect((named(manifests, 'PrometheusRule', 'hookstream').spec as { groups: unknown }).groups).toEqual(rules.groups);
    const dashboard = named(manifests, 'ConfigMap', 'hookstream-dashboard').data!['hookstream.json']!;
    expect(JSON.parse(dashboard)).toEqual(
      JSON.parse(readFileSync(path.resolve(CHART_DIR, '../../../ops/grafana/dashboards/hookstream.json'), 'utf8')),
    );
  });
});
