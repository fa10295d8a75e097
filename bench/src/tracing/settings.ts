/**
 * The three tracing settings the tracing benches compare, defined once for both paths (the outbound
 * path's bench:tracing and the ingress's bench:tracing-ingress), and the Jaeger they export to.
 *
 * - off: no OTEL_* variable (the default: OpenTelemetry's no-op API);
 * - 10 %: exporting to a real Jaeger, parentbased_traceidratio 0.1 (the chart's default);
 * - 100 %: exporting every trace.
 */
import os from 'node:os';
import path from 'node:path';
import { mkdtempSync, rmSync } from 'node:fs';
import { defaultCacheDir, ensureJaeger, startJaeger, type RunningJaeger } from '@hookstream/cli/stack';

export interface TracingSetting {
  name: 'off' | '10 %' | '100 %';
  /** The sampled share of traces (0 when off). */
  ratio: number;
}

export const TRACING_SETTINGS: readonly TracingSetting[] = [
  { name: 'off', ratio: 0 },
  { name: '10 %', ratio: 0.1 },
  { name: '100 %', ratio: 1 },
];

/**
 * A service's environment under `setting`: `base` without any OTEL_* variable of the bench's own
 * environment (which would otherwise turn "off" on), then the setting's, exporting to `otlpUrl`.
 */
export function tracingEnv(base: NodeJS.ProcessEnv, setting: TracingSetting, otlpUrl: string): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(base).filter(([name]) => !name.startsWith('OTEL_')));
  if (setting.ratio === 0) return env;
  return {
    ...env,
    OTEL_EXPORTER_OTLP_ENDPOINT: otlpUrl,
    OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
    OTEL_TRACES_SAMPLER_ARG: String(setting.ratio),
  };
}

/** A Jaeger of its own for the bench's run (built from its Go module once, cached), and how to stop it. */
export async function startBenchJaeger(): Promise<{ jaeger: RunningJaeger; stop: () => Promise<void> }> {
  const built = await ensureJaeger(defaultCacheDir());
  if (!built) throw new Error('Go is not on PATH: this bench needs Jaeger, built from its Go module (docs/tracing.md)');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'hookstream-bench-tracing-'));
  const jaeger = await startJaeger({ binary: built.binary, dir });
  return {
    jaeger,
    stop: async () => {
      await jaeger.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
