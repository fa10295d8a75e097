import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { StackError, describeError } from '@hookstream/errors';
import { Interrupted, endedByInterrupt } from './interruption';
import type { JavaRuntime } from './java';
import { startProcess, type StartedProcess } from './processes';

const run = promisify(execFile);

export interface BrokerSettings {
  java: JavaRuntime;
  /** Folder holding the broker's lib/ of jars. */
  kafkaDir: string;
  /** Folder for the broker's config, data and logs (kept across restarts unless wiped). */
  dir: string;
  port: number;
  controllerPort: number;
  /**
   * The port clients are told to connect to, when it is not `port`: a proxy's in front of the broker
   * (the fault tests' TCP proxy), so that every connection a client makes after its first goes
   * through it too.
   */
  advertisedPort?: number;
  /**
   * Listeners besides PLAINTEXT (which stays the one between brokers), each on 127.0.0.1 at its own
   * port: a test's TLS or SASL listener. Their keystores and logins go in `properties`.
   */
  listeners?: BrokerListener[];
  /** More server.properties lines (`name=value`). */
  properties?: string[];
  /** Heap of the broker JVM (-Xmx and -Xms). Default 512m. */
  heap?: string;
  /** Membership of a multi-node cluster (kafka-cluster.ts). Default: a single node, id 1, its own quorum. */
  cluster?: ClusterMembership;
  /** Ends a storage format under way (an interrupt): the start then throws {@link Interrupted}. */
  signal?: AbortSignal;
}

/** A listener named `name` (as server.properties' `listener.name.<name>.…` settings name it). */
export interface BrokerListener {
  name: string;
  port: number;
  protocol: 'SSL' | 'SASL_PLAINTEXT' | 'SASL_SSL';
}

/** What makes a node one of several: `stack up --brokers 3`. */
export interface ClusterMembership {
  nodeId: number;
  /** controller.quorum.voters: every node's `id@host:controllerPort`. */
  voters: string;
  /** The cluster id every node's storage is formatted with (they must agree). */
  clusterId: string;
  /** Replication and liveness settings (`name=value` lines) in place of the single node's, which allow one replica. */
  properties: string[];
}

/** A single node can hold one replica of the internal topics. */
const SINGLE_NODE_REPLICATION = [
  'offsets.topic.replication.factor=1',
  'transaction.state.log.replication.factor=1',
  'transaction.state.log.min.isr=1',
  'share.coordinator.state.topic.replication.factor=1',
  'share.coordinator.state.topic.min.isr=1',
];

const LOG4J_CONFIG = `<?xml version="1.0" encoding="UTF-8"?>
<Configuration status="WARN">
  <Appenders>
    <Console name="out" target="SYSTEM_OUT"><PatternLayout pattern="%d{ISO8601} %-5p [%c{1}] %m%n"/></Console>
  </Appenders>
  <Loggers>
    <Logger name="kafka" level="INFO"/>
    <Logger name="org.apache.kafka" level="WARN"/>
    <Logger name="kafka.request.logger" level="WARN"/>
    <Root level="WARN"><AppenderRef ref="out"/></Root>
  </Loggers>
</Configuration>
`;

function serverProperties(s: BrokerSettings, dataDir: string): string {
  const extra = s.listeners ?? [];
  const at = (l: BrokerListener) => `,${l.name}://127.0.0.1:${l.port}`;
  return [
    'process.roles=broker,controller',
    `node.id=${s.cluster?.nodeId ?? 1}`,
    `controller.quorum.voters=${s.cluster?.voters ?? `1@127.0.0.1:${s.controllerPort}`}`,
    `listeners=PLAINTEXT://127.0.0.1:${s.port},CONTROLLER://127.0.0.1:${s.controllerPort}${extra.map(at).join('')}`,
    `advertised.listeners=PLAINTEXT://127.0.0.1:${s.advertisedPort ?? s.port}${extra.map(at).join('')}`,
    'controller.listener.names=CONTROLLER',
    'inter.broker.listener.name=PLAINTEXT',
    `listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT${extra.map((l) => `,${l.name}:${l.protocol}`).join('')}`,
    `log.dirs=${dataDir}`,
    ...(s.cluster?.properties ?? SINGLE_NODE_REPLICATION),
    // Fewer partitions than the defaults make coordinators load faster after a start.
    'offsets.topic.num.partitions=10',
    'transaction.state.log.num.partitions=10',
    'group.initial.rebalance.delay.ms=0',
    // Topics come from `hookstream topics ensure` (or tests), never from a typo.
    'auto.create.topics.enable=false',
    'num.partitions=1',
    'log.cleaner.backoff.ms=1000',
    // The cleaner's dedupe buffer lives on the heap for the broker's whole life: the 128 MB default
    // is a quarter of this heap and kept G1 above its marking threshold, so it ran one concurrent
    // cycle after another (each with a ~10 ms remark pause). 16 MB still maps ~700,000 keys a pass.
    'log.cleaner.dedupe.buffer.size=16777216',
    // Each segment's offset and time indexes are sparse files of this size, mapped into memory. On
    // a disk with a large read-ahead (8 MB on these VMs' vda), the first touch of a fresh index
    // makes the kernel zero a whole read-ahead window: the first retries of a run touched 24 new
    // tier indexes at once and the broker spent ~0.4 s of CPU in memset, stalling every
    // partner's callbacks (README, "Local stack"). At 1 MB (default 10 MB) a touch zeroes at most
    // 1 MB; a segment then rolls after ~512 MB of records instead of 1 GB.
    'log.index.size.max.bytes=1048576',
    // Kafka's defaults (8 request handler threads, 3 network threads) are sized for a server. On
    // two cores, every request crossing from a network thread to a handler and back cost futex
    // wake-ups and context switches: perf put 19 % of the data-plane threads' samples in
    // finish_task_switch. With 2 and 1 the broker took 54-55 % of a core instead of 64-76 % in the
    // outbound e2e bench, and its p99 fell from 91-149 ms to 75 ms (README, "Local stack").
    'num.io.threads=2',
    'num.network.threads=1',
    ...(s.properties ?? []),
    '',
  ].join('\n');
}

/** Writes the broker's config (ports may change between starts) and formats its storage once. */
export async function prepareBroker(s: BrokerSettings): Promise<{ configFile: string; logFile: string }> {
  const dataDir = path.join(s.dir, 'data');
  mkdirSync(dataDir, { recursive: true });
  const configFile = path.join(s.dir, 'server.properties');
  writeFileSync(configFile, serverProperties(s, dataDir));
  writeFileSync(path.join(s.dir, 'log4j2.xml'), LOG4J_CONFIG);
  if (!existsSync(path.join(dataDir, 'meta.properties'))) {
    const classPath = `${path.join(s.kafkaDir, 'lib')}/*`;
    try {
      const clusterId =
        s.cluster?.clusterId ??
        (await run(s.java.executable, ['-cp', classPath, 'kafka.tools.StorageTool', 'random-uuid'], { signal: s.signal })).stdout;
      await run(
        s.java.executable,
        [
          `-Dlog4j2.configurationFile=${path.join(s.dir, 'log4j2.xml')}`,
          '-cp',
          classPath,
          'kafka.tools.StorageTool',
          'format',
          '-t',
          clusterId.trim(),
          '-c',
          configFile,
        ],
        { signal: s.signal },
      );
    } catch (error) {
      if (endedByInterrupt(error, s.signal)) throw new Interrupted();
      const output = (error as { stderr?: string }).stderr?.trim() || describeError(error);
      throw new StackError(`formatting Kafka's storage in ${dataDir} failed: ${output}`, { cause: error });
    }
  }
  return { configFile, logFile: path.join(s.dir, 'kafka.log') };
}

/** Starts the KRaft broker+controller; returns once the JVM is spawned (readiness is checked by the caller). */
export async function startBroker(s: BrokerSettings): Promise<StartedProcess & { logFile: string }> {
  const { configFile, logFile } = await prepareBroker(s);
  const args = [
    // Kafka's own start scripts' settings (kafka-server-start.sh, kafka-run-class.sh): a fixed
    // heap, G1 with a 20 ms pause goal, marking from 35 % occupancy. Every request in flight waits
    // out each pause. JFR over 25 s of bench:outbound-e2e: with -Xms128m, the JVM's defaults and
    // the cleaner's default buffer, 19 pauses (244 ms in all, up to 24 ms; 5 were remarks of one
    // concurrent cycle after another); with these and the smaller buffer below, 6 (93 ms).
    `-Xmx${s.heap ?? '512m'}`,
    `-Xms${s.heap ?? '512m'}`,
    '-XX:+UseG1GC',
    '-XX:MaxGCPauseMillis=20',
    '-XX:InitiatingHeapOccupancyPercent=35',
    '-XX:+ExplicitGCInvokesConcurrent',
    '-XX:-UsePerfData',
    '-Djava.awt.headless=true',
    `-Djava.io.tmpdir=${path.join(s.dir, 'tmp')}`,
    `-Dlog4j2.configurationFile=${path.join(s.dir, 'log4j2.xml')}`,
    '-cp',
    `${path.join(s.kafkaDir, 'lib')}/*`,
    'kafka.Kafka',
    configFile,
  ];
  mkdirSync(path.join(s.dir, 'tmp'), { recursive: true });
  const started = startProcess(s.java.executable, args, { cwd: s.dir, env: { ...process.env }, logFile });
  return { ...started, logFile };
}
