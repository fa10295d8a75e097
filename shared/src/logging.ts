import pino, { type Logger, type LoggerOptions } from 'pino';

export type { Logger } from 'pino';

/**
 * Paths pino censors in every log line. Secrets and API keys must never reach logs:
 * this list is the safety net under the rule "don't log them in the first place".
 */
export const REDACTED_PATHS: readonly string[] = [
  'apiKey',
  'api_key',
  'secret',
  'password',
  'token',
  'authorization',
  '*.apiKey',
  '*.api_key',
  '*.secret',
  '*.password',
  '*.token',
  '*.accessToken',
  '*.access_token',
  '*.authorization',
  '*.Authorization',
  '*.headers["x-api-key"]',
  '*.headers["X-API-Key"]',
  '*.headers.authorization',
  '*.headers.Authorization',
  '*.headers.cookie',
  'req.headers["x-api-key"]',
  'req.headers.authorization',
  'headers["x-api-key"]',
  'headers.authorization',
];

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
    redact: { paths: [...REDACTED_PATHS], censor: '[REDACTED]' },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
  };
  return settings.destination ? pino(options, settings.destination) : pino(options);
}

/**
 * Sends process warnings to `report` instead of Node's raw stderr lines. kafkajs triggers a
 * harmless TimeoutNegativeWarning on Node 24 (../shared/LOCAL-STACK.md): that one is dropped.
 */
export function routeProcessWarnings(report: (warning: Error) => void): void {
  process.removeAllListeners('warning');
  process.on('warning', (warning) => {
    if (warning.name !== 'TimeoutNegativeWarning') report(warning);
  });
}
