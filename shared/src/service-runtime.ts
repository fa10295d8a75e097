import { hostname } from 'node:os';
import express, { type Express } from 'express';
import type { Kafka, Producer } from 'kafkajs';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { z } from 'zod';
import { AvroCodec } from './avro/registry-codec';
import { defaultSchemasDir } from './avro/schema-files';
import { loadConfig, type serviceSchemaWithPort } from './config';
import { createOpsRoutes, type ReadinessCheck } from './http/ops-routes';
import { startHttpServer, type RunningHttpServer } from './http/server';
import { BatchingProducer } from './kafka/batching-producer';
import { createKafkaClient } from './kafka/client';
import { TopicNames, topicCatalogue, type ResolvedTopic } from './kafka/topics';
import { GracefulShutdown } from './lifecycle';
import { PartnerDirectory } from './partners/partner-directory';
import type { ApiKeyHasher } from './partners/api-keys';
import { sleep } from './async';
import { describeError } from './errors';
import { createLogger, routeProcessWarnings } from './logging';
import { createMetricsRegistry } from './metrics';

type BaseSchema = ReturnType<typeof serviceSchemaWithPort>;

export interface ServiceRuntimeOptions<S extends BaseSchema> {
  /** The service's name: logs, metrics, client ids. */
  service: string;
  /** The service's config schema (built on {@link serviceSchemaWithPort}). */
  configSchema: S;
  /** Logical names of the topics whose value schemas this service writes or reads. */
  topics: readonly string[];
  env?: NodeJS.ProcessEnv;
  /** Lets the partner directory authenticate inbound API keys (the ingress). */
  apiKeyHasher?: ApiKeyHasher;
}

/**
 * What every Hookstream service is built on, created in its composition root (main.ts):
 * validated config, logger, metrics, the Kafka client and a connected idempotent producer,
 * the Avro codec with the service's schemas registered, an HTTP app with /healthz, /readyz and
 * /metrics, and graceful shutdown. The service adds its own routes, consumers and readiness
 * checks, then calls `listen()`.
 */
export interface ServiceRuntime<C> {
  config: C;
  instanceId: string;
  logger: Logger;
  metrics: Registry;
  kafka: Kafka;
  producer: Producer;
  batchingProducer: BatchingProducer;
  codec: AvroCodec;
  topics: Map<string, ResolvedTopic>;
  /** Every partner, materialised from partner-config; /readyz fails until it is loaded. */
  partners: PartnerDirectory;
  app: Express;
  shutdown: GracefulShutdown;
  /** Adds a check to /readyz. */
  addReadinessCheck: (check: ReadinessCheck) => void;
  /** Starts the HTTP server (ops routes last, after the service's own) and wires SIGTERM/SIGINT. */
  listen: () => Promise<RunningHttpServer>;
}

export async function createServiceRuntime<S extends BaseSchema>(options: ServiceRuntimeOptions<S>): Promise<ServiceRuntime<z.infer<S>>> {
  const config = loadConfig(options.configSchema, options.env ?? process.env) as z.infer<BaseSchema> & z.infer<S>;
  const instanceId = config.SERVICE_INSTANCE_ID ?? `${hostname()}-${process.pid}`;
  const logger = createLogger({ service: options.service, level: config.LOG_LEVEL, instance: instanceId });
  routeProcessWarnings((warning) => logger.warn({ warning: warning.name }, warning.message));
  const metrics = createMetricsRegistry({ service: options.service });
  const shutdown = new GracefulShutdown({ logger, timeoutMs: config.SHUTDOWN_TIMEOUT_MS });

  const kafka = createKafkaClient({
    brokers: config.KAFKA_BROKERS,
    clientId: `${options.service}-${instanceId}`,
    logger,
    connectionTimeoutMs: config.KAFKA_CONNECTION_TIMEOUT_MS,
    requestTimeoutMs: config.KAFKA_REQUEST_TIMEOUT_MS,
  });
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: false });
  let producerConnected = false;
  producer.on(producer.events.CONNECT, () => (producerConnected = true));
  producer.on(producer.events.DISCONNECT, () => (producerConnected = false));
  await producer.connect();
  shutdown.onStop('kafka producer', () => producer.disconnect());
  const batchingProducer = new BatchingProducer(producer);
  shutdown.onStop('pending produce', () => batchingProducer.flush());

  const all = topicCatalogue({ prefix: config.TOPIC_PREFIX });
  const topics = new Map(all.filter((t) => options.topics.includes(t.name)).map((t) => [t.name, t]));
  const codec = new AvroCodec(config.SCHEMA_REGISTRY_URL, defaultSchemasDir(options.env ?? process.env));
  await codec.registerTopics([...topics.values()]);

  const readiness: ReadinessCheck[] = [
    { name: 'kafka', check: () => producerConnected },
    {
      name: 'schema-registry',
      check: async () => {
        const response = await fetch(`${config.SCHEMA_REGISTRY_URL}/subjects`, { signal: AbortSignal.timeout(1500) });
        return response.ok;
      },
    },
  ];
  const partnerTopic = all.find((t) => t.name === TopicNames.partnerConfig)!;
  if (!topics.has(partnerTopic.name)) await codec.registerTopics([partnerTopic]);
  const partners = new PartnerDirectory({
    kafka,
    codec,
    topic: partnerTopic.topic,
    logger,
    owner: `${options.service}-${instanceId}`,
    ...(options.apiKeyHasher ? { hasher: options.apiKeyHasher } : {}),
  });
  readiness.push({ name: 'partner-config', check: () => partners.ready });
  loadPartnersInBackground(partners, logger, shutdown);

  const app = express();
  app.disable('x-powered-by');

  return {
    config,
    instanceId,
    logger,
    metrics,
    kafka,
    producer,
    batchingProducer,
    codec,
    topics,
    partners,
    app,
    shutdown,
    addReadinessCheck: (check) => readiness.push(check),
    listen: async () => {
      app.use(createOpsRoutes({ registry: metrics, readiness }));
      const server = await startHttpServer(app, { host: config.HTTP_HOST, port: config.HTTP_PORT });
      shutdown.onStop('http server', server.close);
      shutdown.handleSignals();
      logger.info({ url: server.url }, `${options.service} listening`);
      return server;
    },
  };
}

/**
 * Loads partner-config without holding up the HTTP server (/healthz answers, /readyz says
 * not ready), retrying while the topic or the broker is not there yet.
 */
function loadPartnersInBackground(partners: PartnerDirectory, logger: Logger, shutdown: GracefulShutdown): void {
  let stopped = false;
  shutdown.onStop('partner directory', async () => {
    stopped = true;
    await partners.stop();
  });
  void (async () => {
    for (let attempt = 1; !stopped; attempt++) {
      try {
        await partners.start();
        return;
      } catch (error) {
        logger.warn({ attempt, err: describeError(error) }, 'partner-config not loaded yet; retrying');
        await partners.stop().catch(() => undefined);
        await sleep(Math.min(10_000, 500 * attempt));
      }
    }
  })();
}

/** Runs a service's `main`, turning a start-up failure into one clear log line and exit code 1 (2 for bad config). */
export function runService(service: string, main: () => Promise<unknown>): void {
  main().catch((error: unknown) => {
    const e = error as { code?: string; message?: string };
    const line = { level: 'fatal', service, code: e?.code, msg: `${service} could not start: ${e?.message ?? String(error)}` };
    process.stderr.write(`${JSON.stringify(line)}\n`);
    process.exit(e?.code === 'HOOKSTREAM_CONFIG_INVALID' ? 2 : 1);
  });
}
