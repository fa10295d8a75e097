/*
 * The two records of answers that made no partner-event, each on its own topic with its own bounds:
 * a known partner's refusals (inbound-rejections) and its webhooks answered from the ledger
 * (inbound-replays). They share one producer of their own, so the webhooks' writes never queue
 * behind them.
 */
import { randomUUID } from 'node:crypto';
import { TopicNames, topicCatalogue, type AvroCodec, type Producer } from '@hookstream/kafka';
import { type InboundRejectionValue, type InboundReplayValue } from '@hookstream/contract';
import { type Logger } from '@hookstream/runtime';
import type { WebhookRejection } from '../../domain/webhook-rejection';
import type { WebhookReplay } from '../../domain/webhook-replay';
import type { IngressMetrics } from '../../metrics';
import { BoundedPublisher, type BoundedPublisherOptions } from './bounded-publisher';

export interface AnswerPublishers {
  rejections: BoundedPublisher<WebhookRejection, InboundRejectionValue>;
  replays: BoundedPublisher<WebhookReplay, InboundReplayValue>;
}

/** Registers both topics' schemas and makes their publishers on `producer`. */
export async function answerPublishers(options: {
  producer: Producer;
  codec: AvroCodec;
  topicPrefix: string;
  instanceId: string;
  logger: Logger;
  metrics: IngressMetrics;
  /** The bounds, when not the defaults (tests). */
  bounds?: Pick<BoundedPublisherOptions<unknown, never>, 'limits' | 'maxUnsent' | 'nowMs'>;
}): Promise<AnswerPublishers> {
  const { producer, codec, instanceId, logger, metrics, bounds } = options;
  const catalogue = topicCatalogue({ prefix: options.topicPrefix });
  const specOf = (name: string) => catalogue.find((t) => t.name === name)!;
  const rejectionsTopic = specOf(TopicNames.inboundRejections);
  const replaysTopic = specOf(TopicNames.inboundReplays);
  await codec.registerTopics([rejectionsTopic, replaysTopic]);
  return {
    rejections: new BoundedPublisher({
      producer,
      codec,
      topic: rejectionsTopic.topic,
      stamp: (rejection: WebhookRejection) => ({ rejection_id: randomUUID(), ...rejection, ingress_instance: instanceId }),
      what: 'refused webhooks',
      logger,
      recorded: metrics.rejectionsRecorded,
      dropped: metrics.rejectionsDropped,
      ...bounds,
    }),
    replays: new BoundedPublisher({
      producer,
      codec,
      topic: replaysTopic.topic,
      stamp: (replay: WebhookReplay) => ({ replay_id: randomUUID(), ...replay, ingress_instance: instanceId }),
      what: 'replayed webhooks',
      logger,
      recorded: metrics.replaysRecorded,
      dropped: metrics.replaysDropped,
      ...bounds,
    }),
  };
}
