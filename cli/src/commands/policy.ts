import { readFile } from 'node:fs/promises';
import { Command } from 'commander';
import {
  AvroCodec,
  TopicNames,
  createKafkaClient,
  defaultSchemasDir,
  isRetryableKafkaError,
  kafkaSecurity,
  topicCatalogue,
} from '@hookstream/kafka';
import { KafkaUnavailableError, describeError } from '@hookstream/errors';
import { createLogger, kafkaSettingsSchema, loadConfig } from '@hookstream/runtime';
import { parsePolicyEventJson, type PolicyStatusEventValue } from '@hookstream/contract';
import { printJson, printLine } from '../output';
import { environmentWithStackEnv } from '../paths';
import { InputRefused } from '../exit-codes';

const EXAMPLE = `
The event is a policy-status event: event_id (optional, a UUID is generated), partner_id,
occurred_at (optional: epoch millis or ISO 8601, default now), version (per-policy sequence),
and policy, the outbound body of the contract (section 2.1) in plain JSON. The avsc form of
schemas/examples/policy-status-event.json is accepted too. Every problem is named by its field
and nothing is published (exit 2).

Example:
  $ hookstream policy publish --file schemas/examples/policy-status-event.json
  published event 6f1c2b9e-3d4a-4e57-9b8a-2f0d1c7e5a31 (policy HS-GDG-2026-000123 version 3) to policy-status[4]@0

  $ echo '{"partner_id":"acme","version":1,"policy":{"policy_number":"P-1","status":"POLICY_ACTIVE",
          "insureds":[{"type":"USER","detail":{"full_name":"Siti","age":35}}]}}' | hookstream policy publish --json
`;

export function policyCommand(): Command {
  const policy = new Command('policy').description('policy status events from the core systems (the policy-status topic)');

  policy
    .command('publish')
    .description('validate a policy-status event and publish it to the policy-status topic, keyed by policy_number')
    .option('--file <path>', 'the event as JSON; - or absent: standard input')
    .option('--json', 'one JSON document, for scripts')
    .addHelpText('after', EXAMPLE)
    .action(async (flags: { file?: string; json?: boolean }) => {
      // A refusal (InputRefused, PolicyEventError) ends the command with exit 2 and its message (main.ts).
      const event: PolicyStatusEventValue = parsePolicyEventJson(await readEventJson(flags.file));
      const [published] = await publishPolicyEvents([event]);
      if (!published) throw new Error('nothing was published');
      if (flags.json) printJson(published);
      else {
        printLine(
          `published event ${published.event_id} (policy ${published.policy_number} version ${published.version}) to ${published.topic}[${published.partition}]@${published.offset}`,
        );
      }
    });

  return policy;
}

/** The event's JSON from a file, or standard input for `-` or no file. */
async function readEventJson(file: string | undefined): Promise<unknown> {
  const fromStdin = file === undefined || file === '-';
  const source = fromStdin ? 'standard input' : file;
  let text: string;
  try {
    if (fromStdin && process.stdin.isTTY) process.stderr.write('hookstream: reading the event from standard input (end with Ctrl-D)\n');
    text = fromStdin ? await readStdin() : await readFile(file, 'utf8');
  } catch (error) {
    throw new InputRefused(`cannot read ${source}: ${describeError(error)}`);
  }
  if (text.trim() === '') throw new InputRefused(`${source} is empty: give the event as JSON (--file <path>, or on standard input)`);
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new InputRefused(`${source} is not valid JSON: ${describeError(error)}`);
  }
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export interface PublishedPolicyEvent {
  event_id: string;
  policy_number: string;
  version: number;
  topic: string;
  partition: number;
  offset: string;
}

/**
 * Encodes the events with the registry's schema for policy-status and produces each keyed by its
 * policy_number with an idempotent producer (acks=all), so a retry inside the producer never
 * writes one twice; in their order.
 */
export async function publishPolicyEvents(
  events: PolicyStatusEventValue[],
  env: NodeJS.ProcessEnv = environmentWithStackEnv(),
): Promise<PublishedPolicyEvent[]> {
  const config = loadConfig(kafkaSettingsSchema, env);
  const topic = topicCatalogue({ prefix: config.TOPIC_PREFIX }).find((t) => t.name === TopicNames.policyStatus)!;
  const codec = new AvroCodec(config.SCHEMA_REGISTRY_URL, defaultSchemasDir(env));
  await codec.registerTopics([topic]);
  const values = await Promise.all(events.map((event) => codec.encode(topic.topic, event)));

  const kafka = createKafkaClient({
    brokers: config.KAFKA_BROKERS,
    clientId: 'hookstream-cli-policy',
    security: kafkaSecurity(config),
    logger: createLogger({ service: 'cli', level: 'error' }),
    connectionTimeoutMs: config.KAFKA_CONNECTION_TIMEOUT_MS,
    requestTimeoutMs: config.KAFKA_REQUEST_TIMEOUT_MS,
    kafkaLogLevel: 'nothing',
    // An operator waits at the terminal: a few seconds of retries, not the services' half minute.
    retries: 5,
  });
  const producer = kafka.producer();
  try {
    await producer.connect();
  } catch (error) {
    await producer.disconnect();
    throw new KafkaUnavailableError(
      `could not connect to Kafka at ${config.KAFKA_BROKERS.join(',')} (${describeError(error)}): nothing was published`,
      error,
    );
  }
  try {
    const published: PublishedPolicyEvent[] = [];
    for (const [i, event] of events.entries()) {
      const [written] = await producer.send({ topic: topic.topic, messages: [{ key: event.policy.policy_number, value: values[i]! }] });
      if (!written) throw new Error(`Kafka acknowledged nothing for ${topic.topic}`);
      published.push({
        event_id: event.event_id,
        policy_number: event.policy.policy_number,
        version: event.version,
        topic: topic.topic,
        partition: written.partition,
        offset: written.baseOffset ?? written.offset ?? '?',
      });
    }
    return published;
  } catch (error) {
    const missingTopic = /UNKNOWN_TOPIC_OR_PARTITION|does not host this topic-partition/i.test(describeError(error));
    if (missingTopic) throw new KafkaUnavailableError(`topic ${topic.topic} does not exist: run \`hookstream topics ensure\``, error);
    if (isRetryableKafkaError(error)) {
      throw new KafkaUnavailableError(
        `could not publish to ${topic.topic}: Kafka at ${config.KAFKA_BROKERS.join(',')} failed (${describeError(error)}): it may or may not have been written`,
        error,
      );
    }
    throw error;
  } finally {
    await producer.disconnect();
  }
}
