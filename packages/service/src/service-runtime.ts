import { hostname } from 'node:os';
import express, {
  type ErrorRequestHandler,
  type Express,
  type NextFunction,
  type Request,
  type RequestHandler,
  type Response,
} from 'express';
import type { Kafka, Producer } from '@hookstream/kafka';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { z } from 'zod';
import type { Tracing } from '@hookstream/runtime/tracing';
import { AvroCodec } from '@hookstream/kafka';
import { defaultSchemasDir } from '@hookstream/kafka';
import { loadConfig, type serviceSchemaWithOpsPort, type serviceSchemaWithPort } from '@hookstream/runtime';
import { checkReadiness, createOpsApp, createOpsRoutes, type ReadinessCheck } from '@hookstream/runtime';
import { InFlightRequests } from '@hookstream/runtime';
import { startHttpServer, type RunningHttpServer } from '@hookstream/runtime';
import { RecordWriter } from '@hookstream/kafka';
import { createKafkaClient } from '@hookstream/kafka';
import { kafkaSecurity } from '@hookstream/kafka';
import { registerKafkaRequestCounter, sizeLibuvThreadPool } from '@hookstream/kafka';
import { TopicNames, topicCatalogue, type ResolvedTopic } from '@hookstream/kafka';
import { GracefulShutdown } from '@hookstream/runtime';
import { PartnerDirectory } from '@hookstream/partners';
import type { ApiKeyHasher } from '@hookstream/partners';
import { sleepUnlessAborted } from '@hookstream/runtime';
import { describeError } from '@hookstream/errors';
import { createLogger, routeProcessWarnings } from '@hookstream/runtime';
import { createMetricsRegistry, serviceReadyGauge } from '@hookstream/runtime';

type BaseSchema = ReturnType<typeof serviceSchemaWithPort>;
/** The settings of the ops listener, present only in the schemas of services with a public API. */
type OpsSettings = Partial<Pick<z.infer<ReturnType<typeof serviceSchemaWithOpsPort>>, 'OPS_PORT' | 'OPS_HOST'>>;

/** A part of a service started in the background (a consumer, a state reader, a monitor). */
export interface BackgroundComponent {
  start: () => Promise<void>;
  /**
   * Stops it on shutdown: nothing new is started; what is in flight finishes, or once `handBack` is
   * aborted is handed back (left uncommitted for the next owner); what is done is committed. Also
   * called after a start that failed, before the next try: `start` must then work again from
   * scratch (nothing stopped may stay stopped).
   */
  stop: (handBack?: AbortSignal) => Promise<void>;
}

export interface ServiceRuntimeOptions<S extends BaseSchema> {
  /** The service's name: logs, metrics, client ids. */
  service: string;
  /** The service's config schema (built on {@link serviceSchemaWithPort}). */
  configSchema: S;
  /** Logical names of the topics whose value schemas this service writes or reads. */
  topics: readonly string[];
  env?: NodeJS.ProcessEnv;
  /** Lets the partner directory authenticate inbound API keys (the ingress), built from the validated config. */
  apiKeyHasher?: (config: z.infer<S>) => ApiKeyHasher;
  /**
   * How long the runtime's producer retries a record before it fails it for good (librdkafka's
   * message.timeout.ms), from the validated config. Default 30 s.
   */
  deliveryTimeoutMs?: (config: z.infer<S>) => number;
  /**
   * The process's tracing, started by the service's first import (its src/tracing.ts): a refused
   * OTEL_* setting fails the start as any bad setting does; its spans are flushed on shutdown, last.
   * Default: none.
   */
  tracing?: Tracing;
}

/** A service's HTTP listeners, once `listen()` has started them. */
export interface ServiceListeners extends RunningHttpServer {
  /**
   * Where /metrics, /healthz and /readyz answer: a listener of its own on OPS_PORT for a service
   * with a public API (its schema built on {@link serviceSchemaWithOpsPort}), else the one above.
   */
  ops: RunningHttpServer;
}

/**
 * What every Hookstream service is built on, created in its composition root (main.ts):
 * validated config, logger, metrics, the Kafka client and a connected idempotent producer,
 * the Avro codec with the service's schemas registered, an HTTP app, /healthz, /readyz and
 * /metrics (on OPS_PORT apart from the app for a service with a public API), and graceful shutdown. The service adds its own routes, consumers and readiness
 * checks, then calls `listen()`.
 */
export interface ServiceRuntime<C> {
  config: C;
  instanceId: string;
  logger: Logger;
  metrics: Registry;
  kafka: Kafka;
  producer: Producer;
  recordWriter: RecordWriter;
  codec: AvroCodec;
  topics: Map<string, ResolvedTopic>;
  /** Every partner, materialised from partner-config; /readyz fails until it is loaded. */
  partners: PartnerDirectory;
  app: Express;
  shutdown: GracefulShutdown;
  /** Adds a check to /readyz. */
  addReadinessCheck: (check: ReadinessCheck) => void;
  /**
   * Starts a component without holding up the HTTP server, retrying while Kafka or its topic is
   * not there yet; /readyz fails (check `name`) until it has started; stopped on shutdown.
   */
  startInBackground: (
    name: string,
    component: BackgroundComponent,
    /** After it has started, whether it can still do its job now (e.g. its state is current); default always. */
    ready?: () => boolean,
  ) => void;
  /**
   * Starts a component that watches rather than works (e.g. the consumer lag gauges) as
   * startInBackground does, retrying until it starts and stopping it on shutdown, but /readyz never
   * waits for it.
   */
  startMonitor: (name: string, component: BackgroundComponent) => void;
  /**
   * Starts the HTTP server (the service's routes, the ops routes unless they have a listener of
   * their own, then the fallbacks), the ops listener if any, and wires SIGTERM/SIGINT.
   */
  listen: (fallbacks?: { notFound?: RequestHandler; onError?: ErrorRequestHandler }) => Promise<ServiceListeners>;
}

export async function createServiceRuntime<S extends BaseSchema>(options: ServiceRuntimeOptions<S>): Promise<ServiceRuntime<z.infer<S>>> {
  sizeLibuvThreadPool(); // first: the logger's first line already takes libuv's pool, at its default size
  if (options.tracing?.configError) throw options.tracing.configError;
  const config = loadConfig(options.configSchema, options.env ?? process.env) as z.infer<BaseSchema> & OpsSettings & z.infer<S>;
  const instanceId = config.SERVICE_INSTANCE_ID ?? `${hostname()}-${process.pid}`;
  const logger = createLogger({ service: options.service, level: config.LOG_LEVEL, instance: instanceId });
  routeProcessWarnings((warning) => logger.warn({ warning: warning.name }, warning.message));
  const metrics = createMetricsRegistry({ service: options.service });
  const shutdown = new GracefulShutdown({ logger, timeoutMs: config.SHUTDOWN_TIMEOUT_MS });
  // Registered first in the last phase, so it runs last of all: the spans of the whole shutdown are exported too.
  const { tracing } = options;
  if (tracing) shutdown.onStop('trace export', () => tracing.shutdown(), 'http');
  // The order of a shutdown's steps is their phases' (lifecycle.ts): requests in flight, work, producers, connections, HTTP server.
  const inFlight = new InFlightRequests(() => shutdown.draining);
  shutdown.onStop('requests in flight', ({ handBack }) => inFlight.settled(handBack), 'requests');

  const kafka = createKafkaClient({
    brokers: config.KAFKA_BROKERS,
    clientId: `${options.service}-${instanceId}`,
    logger,
    connectionTimeoutMs: config.KAFKA_CONNECTION_TIMEOUT_MS,
    requestTimeoutMs: config.KAFKA_REQUEST_TIMEOUT_MS,
    security: kafkaSecurity(config),
  });
  registerKafkaRequestCounter(metrics, kafka);
  const producer = kafka.producer(options.deliveryTimeoutMs ? { deliveryTimeoutMs: options.deliveryTimeoutMs(config) } : {});
  await producer.connect();
  shutdown.onStop('kafka producer', () => producer.disconnect(), 'producers');
  const recordWriter = new RecordWriter(producer);
  shutdown.onStop('pending produce', () => recordWriter.flush(), 'producers');

  const all = topicCatalogue({ prefix: config.TOPIC_PREFIX });
  const topics = new Map(all.filter((t) => options.topics.includes(t.name)).map((t) => [t.name, t]));
  const codec = new AvroCodec(config.SCHEMA_REGISTRY_URL, defaultSchemasDir(options.env ?? process.env));
  await codec.registerTopics([...topics.values()]);

  const readiness: ReadinessCheck[] = [
    {
      // From the shutdown signal on: a load balancer stops sending work here while what is in flight finishes.
      name: 'draining',
      check: () => {
        if (shutdown.draining) throw new Error('shutting down');
      },
    },
    {
      // From the producer's statistics (every 250 ms), not a request: /readyz answers at once, and
      // turns 503 within that interval of a broker's death, while no request could have told.
      name: 'kafka',
      check: () => producer.writable([...topics.values()].map((t) => t.topic)),
    },
    {
      name: 'schema-registry',
      check: async () => {
        // /readyz answers within half a second whatever is away.
        const response = await fetch(`${config.SCHEMA_REGISTRY_URL}/subjects`, { signal: AbortSignal.timeout(400) });
        return response.ok;
      },
    },
  ];
  serviceReadyGauge(metrics, async () => (await checkReadiness(readiness)).ready);
  const partnerTopic = all.find((t) => t.name === TopicNames.partnerConfig)!;
  if (!topics.has(partnerTopic.name)) await codec.registerTopics([partnerTopic]);
  const partners = new PartnerDirectory({
    kafka,
    codec,
    topic: partnerTopic.topic,
    logger,
    ...(options.apiKeyHasher ? { hasher: options.apiKeyHasher(config) } : {}),
  });
  const startInBackground: ServiceRuntime<unknown>['startInBackground'] = (name, component, ready = () => true) => {
    let started = false;
    readiness.push({ name, check: () => started && ready() });
    runInBackground(name, component, logger, shutdown, () => (started = true));
  };
  startInBackground('partner-config', partners);

  const app = express();
  app.disable('x-powered-by');
  app.use(inFlight.middleware);

  return {
    config,
    instanceId,
    logger,
    metrics,
    kafka,
    producer,
    recordWriter,
    codec,
    topics,
    partners,
    app,
    shutdown,
    addReadinessCheck: (check) => readiness.push(check),
    startInBackground,
    startMonitor: (name, component) => runInBackground(name, component, logger, shutdown, () => undefined),
    listen: async (fallbacks = {}) => {
      const opsRoutes = createOpsRoutes({ registry: metrics, readiness });
      // Started first, so probes find it while the API starts; stopped last (a phase's steps run last
      // registered first), so /readyz says draining until the API's listener has closed.
      const ops =
        config.OPS_PORT === undefined
          ? undefined
          : await startHttpServer(
              createOpsApp(opsRoutes, () => shutdown.draining),
              { host: config.OPS_HOST ?? config.HTTP_HOST, port: config.OPS_PORT },
            );
      if (ops) shutdown.onStop('ops http server', ops.close, 'http');
      else app.use(opsRoutes);
      // JSON, never an HTML page, for what no route answers.
      app.use(fallbacks.notFound ?? ((_req, res) => void res.status(404).json({ error: 'not found' })));
      app.use(
        fallbacks.onError ??
          ((error: unknown, _req: Request, res: Response, _next: NextFunction) => {
            logger.error({ err: describeError(error) }, 'unexpected error');
            res.status(500).json({ error: 'internal error' });
          }),
      );
      const server = await startHttpServer(app, { host: config.HTTP_HOST, port: config.HTTP_PORT });
      shutdown.onStop('http server', server.close, 'http');
      shutdown.handleSignals();
      logger.info({ url: server.url, ...(ops ? { opsUrl: ops.url } : {}) }, `${options.service} listening`);
      return { ...server, ops: ops ?? server };
    },
  };
}

/** Starts `component`, retrying with backoff until it starts or shutdown begins. */
function runInBackground(
  name: string,
  component: BackgroundComponent,
  logger: Logger,
  shutdown: GracefulShutdown,
  onStarted: () => void,
): void {
  // Aborted on shutdown: a part still retrying its start stops waiting for the next try at once.
  const stopped = new AbortController();
  shutdown.onStop(name, async ({ handBack }) => {
    stopped.abort(new Error('shutting down'));
    await component.stop(handBack);
  });
  void (async () => {
    for (let attempt = 1; !stopped.signal.aborted; attempt++) {
      try {
        await component.start();
        onStarted();
        return;
      } catch (error) {
        logger.warn({ component: name, attempt, err: describeError(error) }, `${name} not started yet; retrying`);
        await component.stop().catch(() => undefined);
        await sleepUnlessAborted(Math.min(10_000, 500 * attempt), stopped.signal).catch(() => undefined);
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
