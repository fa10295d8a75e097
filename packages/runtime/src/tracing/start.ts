/*
 * @hookstream/runtime/tracing: a service's first import (its src/tracing.ts, imported first by its
 * main.ts), so that the instrumentations are in place before http, express, undici and pg load.
 * Kept apart from the package's main entry, which loads them. docs/tracing.md.
 */
import type { ConfigError } from '@hookstream/errors';
import type * as Sdk from './sdk';
import { tracingSettingsFrom } from './settings';

/** A process's tracing, as the OTEL_* variables set it. */
export interface Tracing {
  /** Whether spans are recorded and exported. */
  readonly enabled: boolean;
  /** Set when an OTEL_* variable was refused: the service runtime fails its start with it (exit code 2), as for any bad setting. */
  readonly configError?: ConfigError;
  /** Exports the spans still buffered and stops the SDK (the service's last shutdown step); at once when off. */
  shutdown(): Promise<void>;
}

/**
 * Starts OpenTelemetry's SDK for `service` when the standard variables ask for traces
 * (tracingSettingsFrom); otherwise loads nothing of it, and every span the code starts is
 * OpenTelemetry's no-op one.
 */
export function startTracing(service: string, env: NodeJS.ProcessEnv = process.env): Tracing {
  let settings;
  try {
    settings = tracingSettingsFrom(env);
  } catch (error) {
    return { enabled: false, configError: error as ConfigError, shutdown: () => Promise.resolve() };
  }
  if (!settings.enabled) return { enabled: false, shutdown: () => Promise.resolve() };
  // Required here, not imported at the top: with tracing off the SDK is never loaded.
  const { startSdk } = require('./sdk') as typeof Sdk;
  return { enabled: true, shutdown: startSdk(service, settings) };
}

export { tracingSettingsFrom, type SamplingSettings, type TracingSettings } from './settings';
