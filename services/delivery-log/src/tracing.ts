/*
 * main.ts's first import: OpenTelemetry is started (when the OTEL_* variables ask for traces) before
 * anything else loads, so that http, undici, express and pg are instrumented as they load (docs/tracing.md).
 */
import { startTracing } from '@hookstream/runtime/tracing';

export const tracing = startTracing('delivery-log');
