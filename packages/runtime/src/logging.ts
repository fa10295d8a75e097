import pino, { type Logger, type LoggerOptions } from 'pino';
import { activeTraceFields } from './tracing/spans';

export type { Logger } from 'pino';

/**
 * Keys whose values never reach a log line, at any depth and in any letter case: secrets, API
 * keys, credentials and auth headers. This is the safety net under the rule "don't log them in
 * the first place".
 */
export const SECRET_KEY_PATTERN =
  /^(x-?api-?key|api-?key|api_key|apikey|authorization|proxy-authorization|cookie|set-cookie|secret|.*_secret|client-?secret|.*secret$|.*password|passwd|token|access-?token|access_token|refresh-?token|refresh_token|id-?token|private-?key|x-signature)$/i;

const MAX_REDACT_DEPTH = 8;

/** A copy of `value` with every secret-looking key censored, walking at most 8 levels deep. */
export function redactSecrets(value: unknown, depth = 0): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_REDACT_DEPTH) return '[TRUNCATED]';
  if (value instanceof Error) return value;
  if (Buffer.isBuffer(value)) return `[${value.length} bytes]`;
  if (Array.isArray(value)) return value.map((v) => redactSecrets(v, depth + 1));
  const copy: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) copy[key] = SECRET_KEY_PATTERN.test(key) ? '[REDACTED]' : redactSecrets(v, depth + 1);
  return copy;
}

export interface LoggerSettings {
  /** The service's name, on every line. */
  service: string;
  /** pino level. Default info. */
  level?: string;
  /** The replica's id, on every line. */
  instance?: string;
  /** Where lines go. Default: stdout. Tests pass a stream to read what was logged. */
  destination?: pino.DestinationStream;
}

/** The root logger of one process. Modules take a child: `logger.child({ module: 'x' })`. */
export function createLogger(settings: LoggerSettings): Logger {
  const options: LoggerOptions = {
    level: settings.level ?? 'info',
    base: { service: settings.service, ...(settings.instance ? { instance: settings.instance } : {}) },
    timestamp: pino.stdTimeFunctions.isoTime,
    // A line written while a span is active names it: trace_id and span_id join the log to the trace.
    mixin: activeTraceFields,
    formatters: {
      level: (label) => ({ level: label }),
      // Every logged object; child bindings (logger.child({...})) are not passed through here by
      // pino, so they carry identifiers only (module, partnerId, requestId), never values.
      log: (object) => redactSecrets(object) as Record<string, unknown>,
    },
  };
  return settings.destination ? pino(options, settings.destination) : pino(options);
}

/**
 * Sends process warnings to `report` instead of Node's raw stderr lines. A negative timer delay
 * (TimeoutNegativeWarning, clamped to 1 ms by Node) is harmless: that one is dropped.
 */
export function routeProcessWarnings(report: (warning: Error) => void): void {
  process.removeAllListeners('warning');
  process.on('warning', (warning) => {
    if (warning.name !== 'TimeoutNegativeWarning') report(warning);
  });
}
