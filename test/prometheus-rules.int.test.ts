/**
 * The alert rules and the Prometheus configuration as Prometheus's own tool judges them:
 * promtool (from Debian's prometheus package, fetched into the project's cache) checks the
 * config and the rules, and runs the rules' unit tests (ops/prometheus/rules/*.rules.test.yml).
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { defaultCacheDir, ensurePrometheus } from '@hookstream/cli/stack';
import { PROMETHEUS_CONFIG_FILE, RULES_FILE, RULES_TEST_FILE, alertRules } from './helpers/promql-sources';
import { REPO_ROOT } from './helpers/processes';

let promtool: string;

beforeAll(async () => {
  promtool = (await ensurePrometheus(defaultCacheDir())).promtool;
}, 180_000);

function runPromtool(...args: string[]) {
  const result = spawnSync(promtool, args, { cwd: REPO_ROOT, encoding: 'utf8', timeout: 60_000 });
  return { code: result.status, output: `${result.stdout}${result.stderr}` };
}

test('when promtool checks ops/prometheus/prometheus.yml, then it and the rule files it loads are valid', () => {
  const { code, output } = runPromtool('check', 'config', PROMETHEUS_CONFIG_FILE);
  expect({ code, output }).toMatchObject({ code: 0 });
  // The rules are found through rule_files (rules/*.rules.yml), and the unit tests beside them are not taken for rules.
  expect(output).toContain('SUCCESS: 1 rule files found');
  expect(output).toContain(`SUCCESS: ${alertRules().length} rules found`);
});

test('when promtool checks the rules, then every rule is valid', () => {
  const { code, output } = runPromtool('check', 'rules', RULES_FILE);
  expect({ code, output }).toMatchObject({ code: 0 });
  expect(output).not.toMatch(/FAILED|error/i);
});

test("when promtool runs the rules' unit tests, then every test passes", () => {
  const { code, output } = runPromtool('test', 'rules', RULES_TEST_FILE);
  expect({ code, output }).toMatchObject({ code: 0 });
  expect(output).toContain('SUCCESS');
});

test('when an alert threshold is changed, then the unit tests fail (they pin each alert down)', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'hookstream-rules-'));
  try {
    copyFileSync(RULES_TEST_FILE, path.join(dir, path.basename(RULES_TEST_FILE)));
    const rules = readFileSync(RULES_FILE, 'utf8');
    const retryMargin = 'max by (tier) (hookstream_callback_retry_overdue_seconds) > 120';
    expect(rules).toContain(retryMargin);
    writeFileSync(path.join(dir, path.basename(RULES_FILE)), rules.replace(retryMargin, retryMargin.replace('120', '200')));
    const { code, output } = runPromtool('test', 'rules', path.join(dir, path.basename(RULES_TEST_FILE)));
    expect(code).not.toBe(0);
    expect(output).toContain('alertname: HookstreamRetryTierOverdue');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
