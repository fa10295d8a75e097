// First: tracing starts before anything it instruments loads (tracing.ts).
import { tracing } from './tracing';
import { DOCUMENT_RETRY_TIER_COUNT, GroupMember, RetryTiers, TopicNames, documentRetryTopicName, groupSessionOf } from '@hookstream/kafka';
import { PartnerLimiter } from '@hookstream/runtime';
import { createServiceRuntime, runService, watchBacklog } from '@hookstream/service';
import { configSchema, recordedWindowMs } from './config';
import { fetchDocument, type FetchDocumentDeps } from './domain/fetch-document';
import { DocumentDownload } from './adapters/http/document-download';
import { DispositionWriter, type DocumentTopics } from './adapters/kafka/disposition-writer';
import { DocumentRecorder } from './adapters/kafka/document-recorder';
import { DocumentRecords } from './entry/kafka/document-records';
import { AppliedWait } from './adapters/kafka/applied-wait';
import { RecordedFeed } from './entry/kafka/recorded-feed';
import { RecordedDocuments } from './adapters/store/recorded-documents';
import { createDocumentFetcherMetrics } from './metrics';
import { Spool } from './adapters/storage/spool';
import { storageFromConfig } from './adapters/storage/storage-from-config';

export { configSchema } from './config';

/**
 * Composition root of the document-fetcher: partner-events and its retry tiers in; each document
 * of each webhook retrieved (contract 2.2) through the SSRF guard within its partner's share,
 * stored content-addressed (a local directory or S3), and recorded once on partner-documents
 * (the identities recorded kept in PostgreSQL, fed from that topic); failures that may pass
 * retried through the tiers, then dead-lettered on document-dlq.
 */
export async function main(env: NodeJS.ProcessEnv = process.env) {
  const tierTopics = Array.from({ length: DOCUMENT_RETRY_TIER_COUNT }, (_, i) => documentRetryTopicName(i + 1));
  const runtime = await createServiceRuntime({
    tracing,
    service: 'document-fetcher',
    configSchema,
    topics: [TopicNames.partnerEvents, TopicNames.partnerDocuments, TopicNames.documentDlq, ...tierTopics],
    env,
  });
  const { config, kafka, logger, codec } = runtime;
  const topic = (name: string) => runtime.topics.get(name)!.topic;
  const metrics = createDocumentFetcherMetrics(runtime.metrics);
  const topics: DocumentTopics = {
    partnerEvents: topic(TopicNames.partnerEvents),
    documents: topic(TopicNames.partnerDocuments),
    deadLetters: topic(TopicNames.documentDlq),
    tiers: new RetryTiers((tier) => topic(documentRetryTopicName(tier)), DOCUMENT_RETRY_TIER_COUNT),
  };

  const storage = storageFromConfig(config);
  const spool = new Spool(storage.spoolDir, logger);
  const download = new DocumentDownload(
    {
      connectTimeoutMs: config.DOCUMENT_CONNECT_TIMEOUT_MS,
      totalTimeoutMs: config.DOCUMENT_TIMEOUT_MS,
      maxBytes: config.DOCUMENT_MAX_BYTES,
      maxRedirects: config.DOCUMENT_MAX_REDIRECTS,
      connectionsPerOrigin: config.FETCHER_PARTNER_CONCURRENCY,
      ssrf: { allow: config.SSRF_ALLOW },
    },
    spool,
  );
  runtime.shutdown.onStop('document downloads', () => download.close(), 'connections');
  runtime.shutdown.onStop('document storage', () => storage.close(), 'connections');
  runtime.addReadinessCheck({ name: 'document-storage', check: () => storage.check().then(() => true) });

  const groupId = `${config.TOPIC_PREFIX}${config.FETCHER_CONSUMER_GROUP}`;
  const recorded = new RecordedDocuments({
    url: config.DATABASE_URL,
    namespace: config.TOPIC_PREFIX,
    maxConnections: config.DATABASE_CONNECTIONS,
    logger,
    topic: topics.documents,
  });
  const feed = new RecordedFeed({
    kafka,
    logger,
    recorded,
    topic: topics.documents,
    groupId: `${groupId}-recorded`,
    session: groupSessionOf(config),
    windowMs: recordedWindowMs(config),
  });
  const applied = new AppliedWait({ kafka, recorded, topic: topics.documents });
  const recorder = new DocumentRecorder({
    kafka,
    logger,
    recorded,
    caughtUp: (timeoutMs) => applied.caughtUp(timeoutMs),
    transactionalIdPrefix: `${groupId}-documents`,
  });
  runtime.addReadinessCheck({ name: 'state-store', check: () => recorded.check().then(() => true) });
  const limiter = new PartnerLimiter({ perPartner: config.FETCHER_PARTNER_CONCURRENCY });
  const deps: FetchDocumentDeps = {
    isRecorded: (documentId, replay) => recorded.has(documentId, replay),
    limiter,
    retrieve: (url) => download.retrieve(url),
    store: (document) => storage.store(document),
    retryDelaysMs: config.DOCUMENT_RETRY_DELAYS_MS,
    now: Date.now,
  };
  const writer = new DispositionWriter({ codec, logger, metrics, topics, recorder, now: Date.now });
  const records = new DocumentRecords({
    codec,
    logger,
    metrics,
    topics,
    writer,
    fetchDocument: (request, history) => fetchDocument(request, history, deps),
    now: Date.now,
  });
  const member = new GroupMember({
    kafka,
    logger: logger.child({ module: 'document-consumer' }),
    groupId,
    session: groupSessionOf(config),
    topics: [topics.partnerEvents],
    mode: {
      kind: 'concurrent',
      tiers: topics.tiers,
      partitionConcurrency: config.FETCHER_PARTITION_CONCURRENCY,
      handle: (record) => records.handle(record),
      onPausedPartitions: (count) => metrics.pausedPartitions.set(count),
    },
  });
  // Retrievals need the document store, the spool swept and the state store migrated: start once all are.
  // Nothing of partner-documents is read up front: a lane waits for the feed when it opens.
  runtime.startInBackground(
    'document-consumer',
    {
      start: async () => {
        await storage.check();
        await spool.open(2 * config.DOCUMENT_TIMEOUT_MS);
        await recorded.open();
        recorder.start();
        await feed.start();
        await member.start();
      },
      stop: async (handBack) => {
        await member.stop(handBack);
        await recorder.stop();
        await feed.stop();
        await applied.stop();
        await recorded.close();
      },
    },
    () => member.joined && feed.joined,
  );
  // What an SRE watches: both groups' lag, and the dead letters waiting for a person.
  watchBacklog(runtime, {
    groups: [...member.groups, { groupId: `${groupId}-recorded`, topics: [topics.documents] }],
    deadLetterTopic: TopicNames.documentDlq,
  });
  const server = await runtime.listen();
  return { runtime, server };
}

if (require.main === module) runService('document-fetcher', () => main());
