// The public surface of @hookstream/cli/stack: what another package's tests use to drive a local
// stack of their own (start it, start a part of it again, stop it), as `hookstream stack up`,
// its healing and `stack down` do. Everything else under cli/src is the CLI's own.
export { defaultCacheDir, ensureKafka } from './artifacts';
export { ensureChromium, type ChromiumBinary, type EnsureChromiumOptions } from './chromium';
export { startBroker, type BrokerListener, type BrokerSettings } from './kafka-broker';
export { restartStackPart, type RestartPartOptions, type StackPart } from './heal';
export { ensurePrometheus, type PrometheusBinaries } from './prometheus-artifact';
export { ensureS3Proxy, type S3ProxyArtifact } from './s3proxy-artifact';
export { ensureJaeger, JAEGER_VERSION, startJaeger, type JaegerBinary, type RunningJaeger } from './jaeger';
export { requireJava, type JavaRuntime } from './java';
export type { StackRunInfo, StackSettings } from './run-info';
export { startStack, stopStack, type RunningStack, type StartStackOptions, type StoppedProcess } from './stack';
export type { LocalSecrets } from './state-dir';
