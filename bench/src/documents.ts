/**
 * Benchmark: the document-fetcher retrieving and storing documents of 1 MB and 20 MB (local
 * directory store), against a raw undici loop downloading the same documents with the same
 * concurrency (hashed and written to a file, as the fetcher spools them), in one run.
 *
 *   npm run bench:documents      (starts a throwaway local stack around it)
 *
 * Per size: a fresh fetcher; one partner event per document is published on partner-events
 * (one partner, so FETCHER_PARTNER_CONCURRENCY bounds the retrievals in flight, default 8); the
 * time runs from the first publish until hookstream_documents_fetched_total reaches the count.
 *
 * Env: BENCH_SIZES_MB (default 1,20), BENCH_MEGABYTES (data per size, default 400: 400 documents
 * of 1 MB, 20 of 20 MB). The fetcher's own settings pass through from the environment.
 * Prints, per size: documents/s and MB/s of the fetcher and of the raw loop, the ratio, the
 * fetcher's peak RSS (VmHWM) and CPU seconds per document.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { TopicNames } from '@hookstream/kafka';
import { routeProcessWarnings } from '@hookstream/runtime';
import { DocumentServer } from './documents/document-server';
import { rawDownload } from './documents/raw-download';
import { envNumber, envNumberList, runBench } from './support/bench-run';
import { prepareBenchStack } from './support/bench-stack';
import { cpuSeconds } from './support/cpu-usage';
import { markdownTable } from './support/markdown-table';
import { counterSum } from './support/metrics-page';
import { ServiceProcess } from './support/service-process';
import { waitForCount } from './support/wait-for-count';

const MB = 1_000_000;
const sizesMb = envNumberList('BENCH_SIZES_MB', [1, 20]);
const megabytes = envNumber('BENCH_MEGABYTES', 400);
const concurrency = envNumber('FETCHER_PARTNER_CONCURRENCY', 8);

/** Peak resident memory of a process so far, in MB (VmHWM), from /proc. */
function peakRssMb(pid: number | undefined): number | undefined {
  const line = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return line ? Number(line[1]) / 1024 : undefined;
}

async function main() {
  routeProcessWarnings((w) => console.error(w.message));
  const env = process.env;
  const rows: string[][] = [];
  for (const sizeMb of sizesMb) {
    const count = Math.max(5, Math.ceil(megabytes / sizeMb));
    const { prefix, kafka, codec, topic, onboard } = await prepareBenchStack(env, [TopicNames.partnerEvents]);
    const { partnerId } = await onboard({ partner_id: 'bench', name: 'Bench' });
    const server = await DocumentServer.start(sizeMb * MB);
    const dir = mkdtempSync(path.join(os.tmpdir(), 'hookstream-documents-bench-'));
    const urls = Array.from({ length: count }, (_, i) => `${server.url}/documents/${i}.pdf`);
    try {
      const rawSeconds = await rawDownload(urls, concurrency, dir);
      const fetcher = await ServiceProcess.start('document-fetcher', {
        ...env,
        TOPIC_PREFIX: prefix,
        SSRF_ALLOW: '127.0.0.0/8',
        DOCUMENT_STORAGE: 'local',
        DOCUMENT_STORAGE_DIR: path.join(dir, 'store'),
      });
      const producer = kafka.producer();
      await producer.connect();
      const started = performance.now();
      const events = topic(TopicNames.partnerEvents);
      const messages = await Promise.all(
        urls.map(async (url, i) => {
          const event = {
            partner_id: partnerId,
            request_id: randomUUID(),
            transaction_number: `TX-${i}`,
            transaction_type: 'CLAIM',
            status: 'CLAIM_SUBMITTED',
            documents: [{ type: 'CLAIM_DOCUMENTS', url, filename: null }],
            received_at: Date.now(),
            payload_fingerprint: randomUUID().replace(/-/g, '').padEnd(64, '0'),
            ingress_instance: null,
          };
          return { key: event.transaction_number, value: await codec.encode(events, event) };
        }),
      );
      await producer.send({ topic: events, messages });
      await producer.disconnect();
      const cpuBefore = cpuSeconds(fetcher.pid) ?? 0;
      const fetched = await waitForCount(
        async () => counterSum(await fetcher.metrics(), 'hookstream_documents_fetched_total'),
        count,
        60_000,
        () => fetcher.checkAlive(),
      );
      const seconds = (performance.now() - started) / 1000;
      const cpu = (cpuSeconds(fetcher.pid) ?? 0) - cpuBefore;
      const peak = peakRssMb(fetcher.pid);
      await fetcher.stop();
      const rate = (n: number, s: number) => (n / s).toFixed(1);
      rows.push([
        `${sizeMb} MB`,
        `${fetched}/${count}`,
        `${rate(fetched, seconds)} docs/s, ${rate(fetched * sizeMb, seconds)} MB/s`,
        `${rate(count, rawSeconds)} docs/s, ${rate(count * sizeMb, rawSeconds)} MB/s`,
        `${((fetched / seconds / (count / rawSeconds)) * 100).toFixed(0)} %`,
        peak === undefined ? 'n/a' : `${peak.toFixed(0)} MB`,
        fetched === 0 ? 'n/a' : `${((cpu / fetched) * 1000).toFixed(1)} ms`,
      ]);
    } finally {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }
  console.log(`\ndocument-fetcher vs raw undici, ${concurrency} retrievals in flight, local directory store\n`);
  console.log(
    markdownTable(
      ['size', 'stored', 'fetcher', 'raw loop (baseline)', 'fetcher / raw', 'fetcher peak RSS', 'fetcher CPU per document'],
      rows,
    ),
  );
}

runBench(main, 20 * 60_000);
