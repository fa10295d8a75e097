import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '@hookstream/runtime';
import { stringify } from 'yaml';
import { waitFor } from './infrastructure';
import { startBackgroundServer } from './processes';

/** A service for Prometheus to scrape: its `service` label and the base URL of its /metrics (its ops URL). */
export interface ScrapeTarget {
  service: string;
  url: string;
}

/** What /api/v1/query answers. */
export interface QueryAnswer {
  status: 'success' | 'error';
  error?: string;
  errorType?: string;
  warnings?: string[];
  data?: { resultType: string; result: unknown[] };
}

export interface RunningPrometheus {
  url: string;
  /** Runs an instant query (POST, so long expressions fit). */
  query: (expr: string) => Promise<QueryAnswer>;
  /** GETs an API path (e.g. /api/v1/rules) and returns its `data`. */
  api: <T>(pathAndQuery: string) => Promise<T>;
  output: () => string;
  stop: () => Promise<void>;
}

/**
 * Starts a real Prometheus server (the `prometheus` executable given) on a free loopback port with
 * a throwaway data folder. It scrapes `targets` every `intervalSeconds` in one job named
 * "hookstream" with a `service` label per target, as ops/prometheus/prometheus.yml does, and
 * evaluates `ruleFiles` as often.
 */
export async function startPrometheus(options: {
  executable: string;
  targets: ScrapeTarget[];
  ruleFiles: string[];
  intervalSeconds?: number;
}): Promise<RunningPrometheus> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'hookstream-prometheus-'));
  const interval = `${options.intervalSeconds ?? 1}s`;
  const config = {
    global: { scrape_interval: interval, scrape_timeout: interval, evaluation_interval: interval },
    rule_files: options.ruleFiles,
    scrape_configs: [
      {
        job_name: 'hookstream',
        static_configs: options.targets.map((t) => ({ targets: [new URL(t.url).host], labels: { service: t.service } })),
      },
    ],
  };
  writeFileSync(path.join(dir, 'prometheus.yml'), stringify(config));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const { child, output, stop } = startBackgroundServer(
    options.executable,
    [
      `--config.file=${path.join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${path.join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ],
    dir,
  );
  const api = async <T>(pathAndQuery: string): Promise<T> => {
    const response = await fetch(`${url}${pathAndQuery}`);
    const body = (await response.json()) as { status: string; data: T; error?: string };
    if (body.status !== 'success') throw new Error(`GET ${pathAndQuery}: ${body.error ?? response.status}`);
    return body.data;
  };
  try {
    await waitFor(
      async () => {
        if (child.exitCode !== null) throw new Error(`prometheus exited ${child.exitCode}`);
        return (await fetch(`${url}/-/ready`)).ok;
      },
      'Prometheus to be ready',
      30_000,
    );
  } catch (error) {
    await stop();
    throw new Error(`${String(error)}\n${output()}`, { cause: error });
  }
  return {
    url,
    api,
    output,
    stop,
    query: async (expr) => {
      const response = await fetch(`${url}/api/v1/query`, { method: 'POST', body: new URLSearchParams({ query: expr }) });
      return (await response.json()) as QueryAnswer;
    },
  };
}
