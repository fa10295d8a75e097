import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { defaultCacheDir, ensureKafka, requireJava, startBroker } from '@hookstream/cli/stack';
import { createKafkaClient, waitForKafkaReady, type Kafka } from '@hookstream/kafka';

/** TLS and SASL to the brokers, as the client takes them. */
type KafkaSecurity = NonNullable<Parameters<typeof createKafkaClient>[0]['security']>;
import { createLogger, freePort } from '@hookstream/runtime';
import { createTopics, uniqueName, waitFor } from './helpers/infrastructure';

/**
 * The Kafka client over TLS and SASL, against a broker of the test's own: a PLAINTEXT listener (for
 * its readiness check), an SSL one and a SASL_SSL one (PLAIN), with a certificate for 127.0.0.1
 * signed by a CA made here with openssl. The client must check the broker's certificate: a
 * client trusting another CA is refused.
 */
const run = promisify(execFile);
const logger = createLogger({ service: 'test', level: process.env.TEST_LOG_LEVEL ?? 'silent' });
const SASL_USER = 'hookstream';
const SASL_PASSWORD = 'tls-test-password';
/** librdkafka's code for a connection that failed (ERR__TRANSPORT): what a refused handshake or login comes to. */
const TRANSPORT_FAILURE = -195;

let dir: string;
let stopBroker: () => Promise<void>;
let ports: { ssl: number; saslSsl: number };
/** The CA that signed the broker's certificate, and one that did not. */
let caFile: string;
let otherCaFile: string;
/** A topic that exists, for the writes that must fail. */
let existing: string;

/** A CA of its own (`name`.key, `name`.pem) in `dir`. */
async function makeCa(name: string): Promise<string> {
  const pem = path.join(dir, `${name}.pem`);
  await run('openssl', [
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    '1',
    '-subj',
    `/CN=${name}`,
    '-keyout',
    path.join(dir, `${name}.key`),
    '-out',
    pem,
  ]);
  return pem;
}

/** The broker's key and certificate for 127.0.0.1 and localhost, signed by `ca`, in one PEM file (Kafka's PEM keystore). */
async function makeBrokerKeystore(ca: string): Promise<string> {
  const key = path.join(dir, 'broker.key');
  const csr = path.join(dir, 'broker.csr');
  const cert = path.join(dir, 'broker.pem');
  const ext = path.join(dir, 'broker.ext');
  writeFileSync(ext, 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
  await run('openssl', ['req', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=127.0.0.1', '-keyout', key, '-out', csr]);
  await run('openssl', [
    'x509',
    '-req',
    '-in',
    csr,
    '-CA',
    `${ca}.pem`,
    '-CAkey',
    `${ca}.key`,
    '-CAcreateserial',
    '-days',
    '1',
    '-extfile',
    ext,
    '-out',
    cert,
  ]);
  const keystore = path.join(dir, 'broker-keystore.pem');
  writeFileSync(keystore, readFileSync(key, 'utf8') + readFileSync(cert, 'utf8') + readFileSync(`${ca}.pem`, 'utf8'));
  return keystore;
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'hookstream-kafka-tls-'));
  caFile = await makeCa('ca');
  otherCaFile = await makeCa('other-ca');
  const keystore = await makeBrokerKeystore(path.join(dir, 'ca'));
  const [port, controllerPort, ssl, saslSsl] = [await freePort(), await freePort(), await freePort(), await freePort()];
  ports = { ssl, saslSsl };
  const [java, kafka] = await Promise.all([requireJava(17, 'Kafka'), ensureKafka(defaultCacheDir())]);
  const broker = await startBroker({
    java,
    kafkaDir: kafka.dir,
    dir: path.join(dir, 'broker'),
    port,
    controllerPort,
    heap: '256m',
    listeners: [
      { name: 'SSL', port: ssl, protocol: 'SSL' },
      { name: 'SASL_SSL', port: saslSsl, protocol: 'SASL_SSL' },
    ],
    properties: [
      'ssl.keystore.type=PEM',
      `ssl.keystore.location=${keystore}`,
      'sasl.enabled.mechanisms=PLAIN',
      `listener.name.sasl_ssl.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required user_${SASL_USER}="${SASL_PASSWORD}";`,
    ],
  });
  stopBroker = async () => {
    try {
      process.kill(-broker.pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
    await broker.exited;
  };
  const plaintext = createKafkaClient({ brokers: [`127.0.0.1:${port}`], clientId: 'tls-broker-ready', logger });
  await waitForKafkaReady(plaintext, { timeoutMs: 90_000 });
  existing = uniqueName('tls-existing');
  await createTopics(plaintext, [{ topic: existing }]);
}, 150_000);

afterAll(async () => {
  await stopBroker?.();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function client(port: number, security: KafkaSecurity, extra: { retries?: number; clientId?: string } = {}): Kafka {
  return createKafkaClient({
    brokers: [`127.0.0.1:${port}`],
    clientId: uniqueName('tls'),
    logger,
    connectionTimeoutMs: 2000,
    ...extra,
    security,
  });
}

/** Writes `values` through `kafka.producer()` and reads them back through `kafka.partitionConsumer()`. */
async function roundTrip(kafka: Kafka, values: string[]): Promise<string[]> {
  const topic = uniqueName('tls');
  await createTopics(kafka, [{ topic }]);
  const producer = kafka.producer();
  await producer.connect();
  try {
    for (const value of values) await producer.send({ topic, messages: [{ key: 'k', value }] });
  } finally {
    await producer.disconnect();
  }
  const consumer = kafka.partitionConsumer();
  await consumer.connect();
  try {
    consumer.assign([{ topic, partition: 0, offset: -2n }]);
    const read: string[] = [];
    await waitFor(async () => {
      read.push(...(await consumer.consume(100)).map((r) => r.message.value!.toString()));
      return read.length >= values.length;
    }, `${values.length} records read back from ${topic}`);
    return read;
  } finally {
    await consumer.disconnect();
  }
}

/**
 * How a reader fails to connect (undefined when it connects). A reader, not a producer: librdkafka's
 * producer connect waits 30 s for the cluster's metadata whatever it hears, and a connect the
 * producer gives up on first keeps the process alive until then; the reader's connect ends with its own timeout.
 */
async function connectFailure(port: number, security: KafkaSecurity): Promise<unknown> {
  const reader = client(port, security).partitionConsumer();
  try {
    await reader.connect();
    return undefined;
  } catch (error) {
    return error;
  } finally {
    await reader.disconnect().catch(() => undefined);
  }
}

describe('TLS to the brokers', () => {
  test('when the client trusts the CA that signed the broker, then records written over SSL are read back over SSL', async () => {
    const kafka = client(ports.ssl, { protocol: 'SSL', caFile });
    expect(await roundTrip(kafka, ['one', 'two', 'three'])).toEqual(['one', 'two', 'three']);
  });

  test('when the client trusts another CA, then it cannot connect, rather than talk to a broker it did not check', async () => {
    expect(await connectFailure(ports.ssl, { protocol: 'SSL', caFile })).toBeUndefined();
    expect(await connectFailure(ports.ssl, { protocol: 'SSL', caFile: otherCaFile })).toMatchObject({ code: TRANSPORT_FAILURE });
  });
});

describe('SASL over TLS', () => {
  test('when the client logs in with PLAIN over SSL, then records written are read back', async () => {
    const kafka = client(ports.saslSsl, {
      protocol: 'SASL_SSL',
      caFile,
      sasl: { mechanism: 'PLAIN', username: SASL_USER, password: SASL_PASSWORD },
    });
    expect(await roundTrip(kafka, ['a', 'b'])).toEqual(['a', 'b']);
  });

  test('when the password is wrong, then it cannot connect', async () => {
    const sasl = { mechanism: 'PLAIN', username: SASL_USER, password: 'not-the-password' } as const;
    expect(await connectFailure(ports.saslSsl, { protocol: 'SASL_SSL', caFile, sasl })).toMatchObject({ code: TRANSPORT_FAILURE });
  });
});
