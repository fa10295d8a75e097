import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { REPO_ROOT } from './processes';

/**
 * The PromQL of the repository's monitoring files, read from the files themselves so that a new
 * panel, target or alert is checked without touching the tests.
 */
export const DASHBOARD_FILE = path.join(REPO_ROOT, 'ops', 'grafana', 'dashboards', 'hookstream.json');
export const RULES_FILE = path.join(REPO_ROOT, 'ops', 'prometheus', 'rules', 'hookstream.rules.yml');
export const RULES_TEST_FILE = path.join(REPO_ROOT, 'ops', 'prometheus', 'rules', 'hookstream.rules.test.yml');
export const PROMETHEUS_CONFIG_FILE = path.join(REPO_ROOT, 'ops', 'prometheus', 'prometheus.yml');

/** One expression and where it is written (for messages). */
export interface PromqlSource {
  where: string;
  expr: string;
}

/** Every `expr` of the dashboard, wherever it stands (panels, panels inside rows, any target). */
export function dashboardExpressions(file = DASHBOARD_FILE): PromqlSource[] {
  const found: PromqlSource[] = [];
  const walk = (node: unknown, title: string): void => {
    if (Array.isArray(node)) return node.forEach((item) => walk(item, title));
    if (typeof node !== 'object' || node === null) return;
    const record = node as Record<string, unknown>;
    const here = typeof record.title === 'string' ? record.title : title;
    if (typeof record.expr === 'string') found.push({ where: `panel "${here}" target ${String(record.refId)}`, expr: record.expr });
    // Variables are Grafana queries, not PromQL: dashboardVariables reads them.
    for (const [key, value] of Object.entries(record)) if (key !== 'templating') walk(value, here);
  };
  walk(JSON.parse(readFileSync(file, 'utf8')), 'dashboard');
  return found;
}

/** A dashboard variable filled from `label_values(<selector>, <label>)`. */
export interface LabelValuesVariable {
  name: string;
  selector: string;
  label: string;
}

/** The dashboard's query variables; any query other than label_values(selector, label) is refused (the test would not know how to run it). */
export function dashboardVariables(file = DASHBOARD_FILE): LabelValuesVariable[] {
  const dashboard = JSON.parse(readFileSync(file, 'utf8')) as { templating?: { list?: Array<Record<string, unknown>> } };
  return (dashboard.templating?.list ?? [])
    .filter((v) => v.type === 'query')
    .map((v) => {
      const query = typeof v.query === 'string' ? v.query : String((v.query as { query?: unknown } | undefined)?.query);
      const match = /^label_values\((.+),\s*([a-zA-Z_]\w*)\s*\)$/s.exec(query.trim());
      if (!match)
        throw new Error(`dashboard variable ${String(v.name)}: only label_values(selector, label) queries are checked, not ${query}`);
      return { name: String(v.name), selector: match[1]!.trim(), label: match[2]! };
    });
}

export interface AlertRule {
  alert: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

/** Every alerting rule of the rules file. */
export function alertRules(file = RULES_FILE): AlertRule[] {
  const rules = parse(readFileSync(file, 'utf8')) as { groups: Array<{ rules: Array<AlertRule & { record?: string }> }> };
  return rules.groups.flatMap((group) => group.rules).filter((rule) => rule.alert !== undefined);
}

/**
 * The signal of an alert written "<signal> <comparison> <number>" (the rules file's convention):
 * the query that has data whenever the services run, firing or not. Throws for any other form.
 */
export function alertSignal(rule: AlertRule): string {
  const match = /^([\s\S]+?)\s*(?:>=|<=|==|!=|>|<)\s*-?[\d.]+\s*$/.exec(rule.expr.trim());
  if (!match) throw new Error(`alert ${rule.alert}: expr must end in "<comparison> <number>", got: ${rule.expr}`);
  return match[1]!;
}

/**
 * Replaces Grafana's variables ($name, ${name}, [[name]]) with `values`; throws on a variable it
 * has no value for, so a new variable gets a deliberate value in the test.
 */
export function substituteVariables(expr: string, values: Record<string, string>): string {
  return expr.replace(/\$\{(\w+)(?::\w+)?\}|\[\[(\w+)\]\]|\$(\w+)/g, (whole, braced?: string, bracketed?: string, bare?: string) => {
    const name = braced ?? bracketed ?? bare!;
    const value = values[name];
    if (value === undefined) throw new Error(`no test value for the dashboard variable ${whole} in: ${expr}`);
    return value;
  });
}
