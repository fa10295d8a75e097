import { z } from 'zod';
import {
  AvroCodec,
  createKafkaClient,
  createLogger,
  defaultSchemasDir,
  kafkaSettingsSchema,
  kafkaSecurity,
  loadConfig,
  TopicNames,
  topicCatalogue,
  type Kafka,
  type Logger,
} from '@hookstream/shared';
import { environmentWithStackEnv } from '../paths';
import { CallbackLetters } from './callback-letters';
import type { DeadLetterTopic, DlqTopicChoice, LetterCodecs } from './dead-letter-topic';
import { DocumentLetters } from './document-letters';
import { PolicyStatusLetters } from './policy-status-letters';

/** Settings of `hookstream dlq`, from the environment (and .hookstream/stack.env). */
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

/**
 * What every `hookstream dlq` command works with: its settings, a Kafka client, the codec with
 * the schemas it reads and writes, and the chosen dead-letter topic's adapter. Nothing is
 * connected here: readers and writers connect their own clients and close them.
 */
export class DlqSession implements LetterCodecs {
  readonly logger: Logger = createLogger({ service: 'cli', level: 'error' });
  readonly kafka: Kafka;
  readonly codec: AvroCodec;
  readonly letters: DeadLetterTopic;
  private readonly topics: Map<string, string>;

  private constructor(
    readonly settings: DlqSettings,
    choice: DlqTopicChoice,
    env: NodeJS.ProcessEnv,
  ) {
    this.kafka = createKafkaClient({
      brokers: settings.KAFKA_BROKERS,
      clientId: `hookstream-cli-dlq`,
      logger: this.logger,
      security: kafkaSecurity(settings),
      connectionTimeoutMs: settings.KAFKA_CONNECTION_TIMEOUT_MS,
      requestTimeoutMs: settings.KAFKA_REQUEST_TIMEOUT_MS,
      kafkaLogLevel: 'nothing',
      // An operator waits at the terminal: a few seconds of retries, not the services' half minute.
      retries: 5,
    });
    this.codec = new AvroCodec(settings.SCHEMA_REGISTRY_URL, defaultSchemasDir(env));
    this.topics = new Map(topicCatalogue({ prefix: settings.TOPIC_PREFIX }).map((t) => [t.name, t.topic]));
    this.letters = DEAD_LETTER_TOPICS[choice](this);
  }

  /** Reads the settings (a bad one ends the command with exit 2) and registers the schemas the commands use. */
  static async open(choice: DlqTopicChoice, env: NodeJS.ProcessEnv = environmentWithStackEnv()): Promise<DlqSession> {
    const session = new DlqSession(loadConfig(dlqSettingsSchema, env), choice, env);
    const logical = [...session.letters.schemaTopics, TopicNames.dlqReplayAudit, TopicNames.callbackOutcomes, TopicNames.partnerConfig];
    const catalogue = topicCatalogue({ prefix: session.settings.TOPIC_PREFIX });
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
    return `${this.settings.TOPIC_PREFIX}hookstream-dlq-replay-${this.letters.source}`;
  }
}
