/**
 * Benchmark: memory of the callback-sender and the document-fetcher with a backlog waiting in
 * their retry tiers (a dead partner's, or a document host's that refuses connections), against
 * an empty backlog in the same run. The goal: memory flat in the backlog.
 *
 *   npm run bench:retry-backlog      (starts a throwaway local stack around it)
 *
 * Per backlog N: fresh topics; N callbacks and N document retrievals written straight into the
 * services' tiers, as each writes a record whose first attempt was refused, none due for an hour,
 * spread evenly over every tier's partitions (tier-fill.ts); then a fresh callback-sender and
 * document-fetcher read them for BENCH_SECONDS, sampled every BENCH_SAMPLE_MS: RSS (VmRSS), V8
 * heap used and the tier partitions each has paused (a partition holding MAX_HELD_PER_PARTITION
 * records waits paused until they come due).
 *
 * Env: BENCH_BACKLOGS (default 0,100000,1000000; 0 is the baseline), BENCH_SECONDS (default 60),
 * BENCH_SAMPLE_MS (default 3000). The services' own settings pass through from the environment.
 * Prints, per backlog and service: heap used and RSS (largest and last sample), paused partitions.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DOCUMENT_RETRY_TIER_COUNT, TopicNames, documentRetryTopicName } from '@hookstream/kafka';
import { routeProcessWarnings } from '@hookstream/runtime';
import { MemorySamples } from './retry-backlog/memory-samples';
import { fillCallbackTiers, fillDocumentTiers } from './retry-backlog/tier-fill';
import { envNumber, runBench } from './support/bench-run';
import { prepareBenchStack } from './support/bench-stack';
import { markdownTable } from './support/markdown-table';
import { ServiceProcess } from './support/service-process';

/** The bench stack's partitions per topic (prepareBenchStack). */
const PARTITIONS = 6;
const backlogs = backlogList(process.env.BENCH_BACKLOGS, [0, 100_000, 1_000_000]);
const seconds = envNumber('BENCH_SECONDS', 60);
const sampleMs = envNumber('BENCH_SAMPLE_MS', 3000);

/** Backlog sizes: whole numbers, 0 allowed (the baseline), unlike envNumberList's. */
function backlogList(raw: string | undefined, fallback: number[]): number[] {
  if (raw === undefined || raw.trim() === '') return fallback;
  const values = raw.split(',').map((entry) => Number(entry.trim()));
  if (values.every((n) => Number.isSafeInteger(n) && n >= 0)) return values;
  console.error(`BENCH_BACKLOGS must be a comma-separated list of whole numbers, got ${JSON.stringify(raw)}`);
  process.exit(2);
}

async function runBacklog(backlog: number, rows: string[][]): Promise<void> {
  const env = process.env;
  const documentTiers = Array.from({ length: DOCUMENT_RETRY_TIER_COUNT }, (_, i) => documentRetryTopicName(i + 1));
  const { prefix, kafka, codec, topic, onboard } = await prepareBenchStack(env, [TopicNames.callbackRequests, ...documentTiers]);
  const partnerId = 'backlog';
  // Its endpoint refuses connections (port 9, discard: nothing listens), as the backlog's partner did.
  await onboard({
    partner_id: partnerId,
    name: 'Backlog',
    callback_endpoints: [{ endpoint_id: 'ep-1', url: 'http://127.0.0.1:9/callbacks', timeout_ms: 1000 }],
    outbound_auth: { method: 'HMAC_SHA256', api_key: 'backlog-key', secret: 'backlog-hmac-secret' },
  });
  const target = { kafka, codec, topic, partitions: PARTITIONS, partnerId };
  if (backlog > 0) {
    const callbackSeconds = await fillCallbackTiers(target, backlog);
    const documentSeconds = await fillDocumentTiers(target, backlog);
    console.error(
      `backlog ${backlog}: tiers filled in ${callbackSeconds.toFixed(0)} s (callbacks), ${documentSeconds.toFixed(0)} s (documents)`,
    );
  }
  const dir = mkdtempSync(path.join(os.tmpdir(), 'hookstream-retry-backlog-'));
  const serviceEnv = { ...env, TOPIC_PREFIX: prefix, SSRF_ALLOW: '127.0.0.0/8' };
  try {
    const [sender, fetcher] = await Promise.all([
      ServiceProcess.start('callback-sender', serviceEnv),
      ServiceProcess.start('document-fetcher', { ...serviceEnv, DOCUMENT_STORAGE: 'local', DOCUMENT_STORAGE_DIR: dir }),
    ]);
    const watched = [
      new MemorySamples(sender, 'hookstream_callback_paused_partitions'),
      new MemorySamples(fetcher, 'hookstream_document_paused_partitions'),
    ];
    try {
      const until = performance.now() + seconds * 1000;
      while (performance.now() < until) {
        await Promise.all(watched.map((w) => w.sample()));
        await new Promise((resolve) => setTimeout(resolve, sampleMs));
      }
      for (const w of watched) {
        const { heap, rss, paused } = w.summary();
        rows.push([backlog.toLocaleString('en'), w.service.name, heap, rss, paused]);
        console.error(`backlog ${backlog}, ${w.service.name}: heap/RSS MB per sample: ${w.timeline()}`);
      }
    } finally {
      await Promise.all([sender.stop(), fetcher.stop()]);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main() {
  routeProcessWarnings((w) => console.error(w.message));
  const rows: string[][] = [];
  for (const backlog of backlogs) await runBacklog(backlog, rows);
  console.log(
    `\nretry-tier backlog (each N callbacks and N documents, not due for an hour), ${seconds} s read, sampled every ${sampleMs / 1000} s\n`,
  );
  console.log(
    markdownTable(
      ['backlog N', 'service', 'heap used MB (max / last)', 'RSS MB (max / last)', 'tier partitions paused (max / last)'],
      rows,
    ),
  );
}

runBench(main, 60 * 60_000);
