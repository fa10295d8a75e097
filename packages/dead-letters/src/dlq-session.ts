import { z } from 'zod';
import { AvroCodec } from '@hookstream/kafka';
import { defaultSchemasDir } from '@hookstream/kafka';
import { kafkaSettingsSchema, loadConfig } from '@hookstream/runtime';
import { createKafkaClient, type Kafka } from '@hookstream/kafka';
import { kafkaSecurity } from '@hookstream/kafka';
import { TopicNames, topicCatalogue } from '@hookstream/kafka';
import { createLogger, type Logger } from '@hookstream/runtime';
import { CallbackLetters } from './read/callback-letters';
import type { DeadLetterTopic, DlqTopicChoice, LetterCodecs } from './read/dead-letter-topic';
import { DocumentLetters } from './read/document-letters';
import { PolicyStatusLetters } from './read/policy-status-letters';

/** Settings of `hookstream dlq`, from the environment (the CLI adds .hookstream/stack.env). */
export const dlqSettingsSchema = kafkaSettingsSchema.extend({
  /** Replays of one delivery (or event) after which `dlq replay` refuses it without --force. Default 5. */
  DLQ_MAX_REPLAYS: z.coerce.number().int('must be a whole number').min(1, 'must be at least 1').default(5),
});
export type DlqSettings = z.infer<typeof dlqSettingsSchema>;

/** The adapter of each --topic choice: a third dead-letter topic is one more entry. */
const DEAD_LETTER_TOPICS: Record<DlqTopicChoice, (codecs: LetterCodecs) => DeadLetterTopic> = {
  callback: (codecs) => new CallbackLetters(codecs),
  'policy-status': (codecs) => new PolicyStatusLetters(codecs),
  documents: (codecs) => new DocumentLetters(codecs),
};

export const DLQ_TOPIC_CHOICES = Object.keys(DEAD_LETTER_TOPICS) as DlqTopicChoice[];

/** The clients and settings a session works with: the CLI's own, or a service's (the delivery log's resend). */
export interface DlqSessionParts {
  kafka: Kafka;
  codec: AvroCodec;
  logger: Logger;
  topicPrefix: string;
  /** Replays of one delivery (or event) after which a replay skips it unless forced. */
  maxReplays: number;
}

/**
 * What every dead-letter use case (list, show, replay, audit) works with: a Kafka client, the
 * codec with the schemas it reads and writes, the topic names, and the chosen dead-letter topic's
 * adapter. Nothing is connected here: readers and writers connect their own clients and close them.
 */
export class DlqSession implements LetterCodecs {
  readonly kafka: Kafka;
  readonly codec: AvroCodec;
  readonly logger: Logger;
  readonly topicPrefix: string;
  readonly maxReplays: number;
  readonly letters: DeadLetterTopic;
  private readonly topics: Map<string, string>;

  private constructor(parts: DlqSessionParts, choice: DlqTopicChoice) {
    ({ kafka: this.kafka, codec: this.codec, logger: this.logger, topicPrefix: this.topicPrefix, maxReplays: this.maxReplays } = parts);
    this.topics = new Map(topicCatalogue({ prefix: parts.topicPrefix }).map((t) => [t.name, t.topic]));
    this.letters = DEAD_LETTER_TOPICS[choice](this);
  }

  /** The CLI's: reads the settings from `env` (a bad one is a ConfigError: exit 2) and makes its own clients. */
  static async open(choice: DlqTopicChoice, env: NodeJS.ProcessEnv): Promise<DlqSession> {
    const settings = loadConfig(dlqSettingsSchema, env);
    const logger = createLogger({ service: 'cli', level: 'error' });
    const kafka = createKafkaClient({
      brokers: settings.KAFKA_BROKERS,
      clientId: `hookstream-cli-dlq`,
      logger,
      security: kafkaSecurity(settings),
      connectionTimeoutMs: settings.KAFKA_CONNECTION_TIMEOUT_MS,
      requestTimeoutMs: settings.KAFKA_REQUEST_TIMEOUT_MS,
      kafkaLogLevel: 'nothing',
      // An operator waits at the terminal: a few seconds of retries, not the services' half minute.
      retries: 5,
    });
    const codec = new AvroCodec(settings.SCHEMA_REGISTRY_URL, defaultSchemasDir(env));
    return DlqSession.attach({ kafka, codec, logger, topicPrefix: settings.TOPIC_PREFIX, maxReplays: settings.DLQ_MAX_REPLAYS }, choice);
  }

  /** On clients made elsewhere (a service's): registers the schemas the use cases read and write. */
  static async attach(parts: DlqSessionParts, choice: DlqTopicChoice): Promise<DlqSession> {
    const session = new DlqSession(parts, choice);
    const logical = [...session.letters.schemaTopics, TopicNames.dlqReplayAudit, TopicNames.callbackOutcomes, TopicNames.partnerConfig];
    const catalogue = topicCatalogue({ prefix: parts.topicPrefix });
    await session.codec.registerTopics(catalogue.filter((t) => logical.includes(t.name)));
    return session;
  }

  /** The real name (TOPIC_PREFIX + logical). */
  topicName(logical: string): string {
    const topic = this.topics.get(logical);
    if (topic === undefined) throw new Error(`no topic ${logical} in the catalogue`);
    return topic;
  }

  /** The transactional id of replays of this dead-letter topic: one per topic, so two runs fence each other (replay-writer.ts). */
  get replayTransactionalId(): string {
    return `${this.topicPrefix}hookstream-dlq-replay-${this.letters.source}`;
  }
}
