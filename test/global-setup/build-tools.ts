/*
 * What the `unit` and `integration` projects' global setups share: the Go-built tools some tests run
 * (helm and kubernetes-validate for the chart's tests, Jaeger for the tracing test) built once into
 * ~/.cache/hookstream before any test starts. Built inside a test instead, a first build (Jaeger:
 * about 3.5 min on two idle cores, helm 1.5 min) would run beside other test files, slow them and
 * outlast its own test's timeout. A tool already built costs a file check. Should a build fail (no
 * Go, no network), the setup says why and the run goes on: those tests then fail, naming what is missing.
 */
import { defaultCacheDir, ensureJaeger } from '@hookstream/cli/stack';
import { ensureHelm, ensureKubernetesValidate } from '../helpers/helm';

export type Tool = 'helm' | 'kubernetes-validate' | 'jaeger';

const BUILDS: Record<Tool, () => Promise<unknown>> = {
  helm: () => ensureHelm(),
  'kubernetes-validate': () => ensureKubernetesValidate(),
  jaeger: () => ensureJaeger(defaultCacheDir()),
};

export async function buildTools(tools: Tool[]): Promise<void> {
  for (const tool of tools) {
    const startedAt = Date.now();
    try {
      await BUILDS[tool]();
      const seconds = (Date.now() - startedAt) / 1000;
      if (seconds > 5) process.stderr.write(`test tools: ${tool} built in ${seconds.toFixed(0)} s (cached for the next runs)\n`);
    } catch (error) {
      process.stderr.write(`test tools: ${tool} not available: ${(error as Error).message}\n`);
    }
  }
}
