// Run after npx tsc -b: npx node packages/kafka/test/measure/libuv-pool.cjs <runtime|service|no-log|fs-first> (prints to stderr).
// runtime: sizeLibuvThreadPool() first, as createServiceRuntime does; service: a client made after one logged line.
// The size of libuv's pool in effect: block k of its threads (each opening a FIFO no one writes),
// then see whether a stat still gets a thread within 500 ms; the pool has more than k threads if it does.
const fs = require('node:fs');
const { execFileSync } = require('node:child_process');
const order = process.argv[2];
const dir = fs.mkdtempSync(require('node:os').tmpdir() + '/libuv-pool-');
async function hasMoreThan(k) {
  const fifos = Array.from({ length: k }, (_, i) => `${dir}/${k}-${i}`);
  for (const f of fifos) execFileSync('mkfifo', [f]);
  const blocked = fifos.map((f) => fs.promises.open(f, 'r'));
  await new Promise((r) => setTimeout(r, 100));
  const free = await Promise.race([fs.promises.stat(dir).then(() => true), new Promise((r) => setTimeout(() => r(false), 500))]);
  for (const f of fifos) fs.closeSync(fs.openSync(f, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK)); // release them
  await Promise.all(blocked.map((p) => p.then((h) => h.close())));
  return free;
}
(async () => {
  const { createLogger, createMetricsRegistry } = require(__dirname + '/../../../runtime/dist/index.js');
  if (order === 'runtime') require(__dirname + '/../../../kafka/dist/index.js').sizeLibuvThreadPool();
  const kafkaPkg = require(__dirname + '/../../../kafka/dist/index.js');
  const envAfterImport = process.env.UV_THREADPOOL_SIZE ?? null;
  // What createServiceRuntime does before it makes the client: a logger (one line logged), the registry.
  const logger = createLogger({ service: 'probe', level: 'info' });
  if (order !== 'no-log') logger.info('starting');
  const metrics = createMetricsRegistry({ service: 'probe' });
  if (order === 'fs-first') await fs.promises.readFile(__filename); // the pool's first use before the client
  const kafka = kafkaPkg.createKafkaClient({ brokers: ['localhost:1'], clientId: 'probe', logger });
  kafkaPkg.registerKafkaRequestCounter(metrics, kafka);
  let size = 0;
  for (const k of [4, 8, 15, 16])
    if (await hasMoreThan(k)) size = k + 1;
    else {
      size = k;
      break;
    }
  console.error(
    JSON.stringify({ order: order ?? 'service', envAfterImport, envAfterClient: process.env.UV_THREADPOOL_SIZE, poolThreads: size }),
  );
  process.exit(0);
})();
