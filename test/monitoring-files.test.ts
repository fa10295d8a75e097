/**
 * The monitoring files keep their promises to whoever is on call: every alert says how urgent it
 * is, what it means and where its runbook is; every runbook exists, points at panels the dashboard
 * really has and at the `hookstream dlq` command to run; every alert has promtool unit tests that
 * make it fire and stay quiet; Prometheus scrapes each service on its ops port, which compose never
 * publishes. (promtool and a real Prometheus run them in the .int tests.)
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { REPO_ROOT } from './helpers/processes';
import {
  DASHBOARD_FILE,
  PROMETHEUS_CONFIG_FILE,
  RULES_TEST_FILE,
  alertRules,
  alertSignal,
  dashboardVariables,
} from './helpers/promql-sources';

const operations = readFileSync(path.join(REPO_ROOT, 'docs', 'operations.md'), 'utf8');
const runbooks = operations.slice(operations.indexOf('\n## Alerts and runbooks\n'));
const rules = alertRules();

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
const anchorOf = (heading: string) =>
  heading
    .toLowerCase()
    .replace(/[^\w\- ]/g, '')
    .replace(/ /g, '-');

/** The text of the runbook section `### <alert>` (up to the next heading of the same or a higher level). */
function runbookOf(alert: string): string | undefined {
  const start = runbooks.indexOf(`\n### ${alert}\n`);
  if (start < 0) return undefined;
  const end = runbooks.slice(start + 1).search(/\n#{2,3} /);
  return end < 0 ? runbooks.slice(start) : runbooks.slice(start, start + 1 + end);
}

type Panel = {
  type: string;
  id: number;
  title: string;
  targets?: Array<{ expr?: string; datasource?: { uid?: string } }>;
  panels?: Panel[];
};
const dashboard = JSON.parse(readFileSync(DASHBOARD_FILE, 'utf8')) as { panels: Panel[] };
const panels = dashboard.panels.flatMap((p) => [p, ...(p.panels ?? [])]);
const panelTitles = new Set(panels.filter((p) => p.type !== 'row').map((p) => p.title));

test('the rules file has the alerts the issue asks for', () => {
  expect(rules.map((r) => r.alert).sort()).toEqual(
    [
      'HookstreamConsumerLagHigh',
      'HookstreamConsumerLagSeconds',
      'HookstreamDLQGrowing',
      'HookstreamDeliveryLogBehind',
      'HookstreamIngressServerErrors',
      'HookstreamIngressUnavailable',
      'HookstreamPartnerCircuitOpen',
      'HookstreamRetryTierOverdue',
      'HookstreamServiceNotReady',
      'HookstreamTargetDown',
    ].sort(),
  );
});

describe.each(rules.map((r) => [r.alert, r] as const))('the alert %s', (alert, rule) => {
  test('has a for, a severity of warning or critical, a summary, a description and a runbook_url to its own section of docs/operations.md', () => {
    expect(rule.for).toMatch(/^\d+[smh]$/);
    expect(['warning', 'critical']).toContain(rule.labels?.severity);
    expect(rule.annotations?.summary).toBeTruthy();
    expect(rule.annotations?.description).toBeTruthy();
    expect(rule.annotations?.runbook_url).toBe(`docs/operations.md#${anchorOf(alert)}`);
    expect(runbookOf(alert)).toBeDefined();
  });

  test('is written "<signal> <comparison> <number>", so the live test can check its signal', () => {
    expect(() => alertSignal(rule)).not.toThrow();
  });

  test('has a runbook that says what it means, how to look (a dashboard panel that exists), how to fix, and which hookstream dlq command to run', () => {
    const runbook = runbookOf(alert) ?? '';
    for (const part of [/\*\*What it means/, /\*\*How to look/, /\*\*How to fix/, /\*\*What to replay/]) expect(runbook).toMatch(part);
    // The replay command, or why none applies (then still naming the command).
    expect(runbook).toMatch(/`hookstream dlq (list|replay|show)[^`]*`/);
    const bold = [...runbook.matchAll(/\*\*([^*]+)\*\*/g)].map((m) => m[1]!.replace(/\s+/g, ' ').trim());
    const named = bold.filter((text) => !/^(What it means|How to look|How to fix|What to replay)/.test(text));
    expect(named.length).toBeGreaterThan(0);
    // Panels are named in bold: each must be a panel of the dashboard (a renamed panel breaks this).
    expect(named.filter((title) => !panelTitles.has(title))).toEqual([]);
  });

  test('has promtool unit tests in which it fires and in which it stays quiet', () => {
    const unitTests = parse(readFileSync(RULES_TEST_FILE, 'utf8')) as {
      tests: Array<{ alert_rule_test?: Array<{ alertname: string; exp_alerts: unknown[] }> }>;
    };
    const cases = unitTests.tests.flatMap((t) => t.alert_rule_test ?? []).filter((c) => c.alertname === alert);
    expect(cases.some((c) => c.exp_alerts.length > 0)).toBe(true);
    expect(cases.some((c) => c.exp_alerts.length === 0)).toBe(true);
  });
});

test("every dashboard panel has a PromQL target on the dashboard's Prometheus variable, and panel ids are unique", () => {
  const graphs = panels.filter((p) => p.type !== 'row');
  expect(graphs.length).toBeGreaterThan(10);
  for (const panel of graphs) {
    expect({ panel: panel.title, hasTargets: (panel.targets?.length ?? 0) > 0 }).toEqual({ panel: panel.title, hasTargets: true });
    for (const target of panel.targets ?? []) {
      expect(target.expr).toBeTruthy();
      expect(target.datasource?.uid).toBe('${datasource}');
    }
  }
  expect(new Set(panels.map((p) => p.id)).size).toBe(panels.length);
  expect(dashboardVariables().map((v) => v.name)).toEqual(['partner']);
});

test('Prometheus scrapes every service of the compose stack on its ops port, and compose publishes no ops port', () => {
  type ComposeService = { command?: string[]; environment?: Record<string, unknown>; ports?: string[] };
  const compose = parse(readFileSync(path.join(REPO_ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
    services: Record<string, ComposeService>;
  };
  const prometheus = parse(readFileSync(PROMETHEUS_CONFIG_FILE, 'utf8')) as {
    scrape_configs: Array<{ static_configs: Array<{ targets: string[] }> }>;
  };
  const targets = prometheus.scrape_configs.flatMap((job) => job.static_configs.flatMap((c) => c.targets)).sort();
  const services = Object.entries(compose.services).filter(([, s]) => s.command?.some((arg) => arg.startsWith('services/')));
  expect(services.length).toBe(5);
  // OPS_PORT where the service has a public API (its HTTP_PORT then serves only that API), else its one port.
  const opsPort = (s: ComposeService) => String(s.environment?.['OPS_PORT'] ?? s.environment?.['HTTP_PORT']);
  expect(targets).toEqual(services.map(([name, s]) => `${name}:${opsPort(s)}`).sort());
  for (const [name, s] of services) {
    const published = (s.ports ?? []).map((mapping) => mapping.split(':').at(-1));
    expect({ name, published: published.includes(opsPort(s)) }).toEqual({ name, published: false });
  }
});
