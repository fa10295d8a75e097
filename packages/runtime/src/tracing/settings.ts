import { ConfigError } from '@hookstream/errors';

/** The spec's sampler names (OTEL_TRACES_SAMPLER); the ratio ones read OTEL_TRACES_SAMPLER_ARG. */
const SAMPLERS = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
] as const;

/** How a new trace is sampled: `ratio` of the root traces (0–1); `parentBased`: a span with a parent follows the parent's decision. */
export interface SamplingSettings {
  parentBased: boolean;
  ratio: number;
}

/** What the standard OTEL_* variables ask of this process's tracing. */
export type TracingSettings =
  | { enabled: false }
  | {
      enabled: true;
      /** `otlp` (OTLP over HTTP, to OTEL_EXPORTER_OTLP_[TRACES_]ENDPOINT, read by the exporter) or `console` (spans on stdout, to debug). */
      exporter: 'otlp' | 'console';
      sampling: SamplingSettings;
    };

/**
 * Reads tracing's settings from the standard variables (docs/tracing.md). Off unless an exporter is
 * asked for: OTEL_TRACES_EXPORTER=otlp|console, or an OTLP endpoint is set (OTEL_EXPORTER_OTLP_ENDPOINT
 * or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT). OTEL_SDK_DISABLED=true and OTEL_TRACES_EXPORTER=none turn it
 * off whatever else is set. Sampling defaults to parentbased_traceidratio at 1.0 (every root trace).
 * Throws a ConfigError for a value it does not know, rather than tracing in a way nobody asked for.
 */
export function tracingSettingsFrom(env: NodeJS.ProcessEnv): TracingSettings {
  const problems: { variable: string; message: string }[] = [];
  const exporterName = env.OTEL_TRACES_EXPORTER?.trim().toLowerCase();
  const endpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  if (exporterName && !['otlp', 'console', 'none'].includes(exporterName)) {
    problems.push({ variable: 'OTEL_TRACES_EXPORTER', message: `"${exporterName}" is not one of otlp, console, none` });
  }
  const samplerName = env.OTEL_TRACES_SAMPLER?.trim().toLowerCase() || 'parentbased_traceidratio';
  if (!(SAMPLERS as readonly string[]).includes(samplerName)) {
    problems.push({ variable: 'OTEL_TRACES_SAMPLER', message: `"${samplerName}" is not one of ${SAMPLERS.join(', ')}` });
  }
  const argText = env.OTEL_TRACES_SAMPLER_ARG?.trim();
  const arg = argText ? Number(argText) : 1;
  if (samplerName.endsWith('traceidratio') && !(arg >= 0 && arg <= 1)) {
    problems.push({ variable: 'OTEL_TRACES_SAMPLER_ARG', message: `"${argText}" is not a ratio between 0 and 1` });
  }
  if (problems.length > 0) throw new ConfigError(problems);

  const off = env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true' || exporterName === 'none' || (!exporterName && !endpoint);
  if (off) return { enabled: false };
  const ratio = samplerName.endsWith('always_on') ? 1 : samplerName.endsWith('always_off') ? 0 : arg;
  return {
    enabled: true,
    exporter: exporterName === 'console' ? 'console' : 'otlp',
    sampling: { parentBased: samplerName.startsWith('parentbased_'), ratio },
  };
}
