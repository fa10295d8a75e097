// @hookstream/runtime: what runs a Hookstream process before any Kafka (README.md). What other packages use, and nothing else.
export { sleep, sleepUnlessAborted, untilAborted, withTimeout } from './async';
export {
  apiKeyPeppersSetting,
  consumerLagSetting,
  kafkaSettingsSchema,
  loadConfig,
  portalTokenKeysSetting,
  SASL_MECHANISMS,
  secretsKeysSetting,
  SECURITY_PROTOCOLS,
  serviceSchemaWithOpsPort,
  serviceSchemaWithPort,
  serviceSettingsSchema,
  stateStoreSettings,
} from './config';
export { errorBody, type ErrorBody } from './http/error-body';
export { InFlightRequests } from './http/in-flight-requests';
export { type OutboundFailure, OutboundFailures, outboundFailureOf } from './http/outbound-failure';
export { checkReadiness, createOpsApp, createOpsRoutes, type ReadinessCheck } from './http/ops-routes';
export { PartnerLimiter } from './http/partner-limiter';
export { type RunningHttpServer, startHttpServer } from './http/server';
export { ssrfAllowSetting } from './http/ssrf-allow-setting';
export { createSsrfGuardedAgent, isSsrfRefused, ssrfRefusalOf } from './http/ssrf-guard';
export { GracefulShutdown } from './lifecycle';
export { createLogger, type Logger, routeProcessWarnings } from './logging';
export { Counter, createMetricsRegistry, Gauge, Histogram, LATENCY_BUCKETS_SECONDS, Registry, serviceReadyGauge } from './metrics';
export { freePort } from './process/free-port';
export { describeExit, type ExitStatus, ServiceChild, SERVICES_WITH_OPS_PORT, untilReady } from './process/service-child';
export { type DataKey, type EncryptedSecret, generateKeyringValue, parseKeyring, SecretBox } from './secrets/secret-box';
export {
  type Attributes,
  extractTraceContext,
  injectTraceContext,
  inSpan,
  linkTo,
  type Span,
  SpanKind,
  TRACEPARENT,
} from './tracing/spans';
export { migrateToLatest } from './store/migrate';
export { openPostgresPool } from './store/postgres-pool';
export { asStoreError, isStoreUnavailable, openStateStore, stateSchemaOf, type StateStore } from './store/state-store';
