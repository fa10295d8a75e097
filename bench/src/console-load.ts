/**
 * Benchmark: the console's first view for a partner with BENCH_DELIVERIES deliveries (default
 * 100,000, three attempts each) in the delivery log on PostgreSQL, against a baseline partner with
 * BENCH_BASELINE_DELIVERIES (default 1,000) in the same database.
 *
 *   npm run bench:console      (builds the console, starts a throwaway local stack and a PostgreSQL server)
 *
 * BENCH_LOADS rounds (default 50, after 5 not counted), in Chromium, each load in a fresh browser
 * context signed in beforehand: from page.goto('/console/#/deliveries') to the 50th row of the
 * deliveries table visible, with the page's own timings (DOMContentLoaded, its two API answers, the
 * rows in the DOM), for the big partner and the baseline partner one after the other. Further
 * baselines from the same run, one of each every round: the API call the page makes, from Node with
 * keep-alive (what the server takes), and a cold load of the same page with scripts off (what a page
 * from this server costs the browser before any of the console's code runs). Also the bundle's size.
 */
import { TopicNames } from '@hookstream/kafka';
import { routeProcessWarnings } from '@hookstream/runtime';
import { Client } from 'pg';
import { describeBundle } from './console/bundle-size';
import { ConsoleBrowser, ROWS_SHOWN, type ConsoleLoad } from './console/page-loads';
import { sessionCookie } from './console/session-cookie';
import { fillDeliveryLog } from './delivery-log/fill';
import { startBenchPostgres } from './delivery-log/postgres';
import { envNumber, runBench } from './support/bench-run';
import { prepareBenchStack } from './support/bench-stack';
import { markdownTable } from './support/markdown-table';
import { ms, quantile, sampled, timeOf } from './support/samples';
import { ServiceProcess } from './support/service-process';

const deliveries = envNumber('BENCH_DELIVERIES', 100_000);
const baselineDeliveries = envNumber('BENCH_BASELINE_DELIVERIES', 1_000);
const loads = envNumber('BENCH_LOADS', 50);
/** Loads not counted: Chromium's and the service's first runs of their code, PostgreSQL's cache. */
const WARMUP = 5;
const SETTINGS = ['BENCH_DELIVERIES', 'BENCH_BASELINE_DELIVERIES', 'BENCH_LOADS'];

const PARTNER_SPEC = {
  callback_endpoints: [{ endpoint_id: 'main', url: 'https://partner.example/callbacks' }],
  outbound_auth: { method: 'API_KEY', api_key: 'k' },
};

async function main(): Promise<void> {
  routeProcessWarnings((w) => console.error(w.message));
  const postgres = await startBenchPostgres();
  const stack = await prepareBenchStack(process.env, [TopicNames.callbackRequests, TopicNames.callbackOutcomes]);
  const big = await stack.onboard({ partner_id: 'bench-console', name: 'bench-console', ...PARTNER_SPEC });
  const small = await stack.onboard({ partner_id: 'bench-console-small', name: 'bench-console-small', ...PARTNER_SPEC });
  const service = await ServiceProcess.start('delivery-log', {
    ...process.env,
    TOPIC_PREFIX: stack.prefix,
    DELIVERY_LOG_DATABASE_URL: postgres.url,
    // The bench measures the console's loads, not the partner's rate limit.
    DELIVERY_LOG_PARTNER_REQUESTS_PER_SECOND: '100000',
  });
  const db = new Client({ connectionString: postgres.url });
  await db.connect();
  const browser = await ConsoleBrowser.launch();
  try {
    // Each partner's deliveries all its own, as for a partner that sends that many; the baseline's after the big one's rows.
    await fillDeliveryLog(db, deliveries, big.partnerId, 1);
    await fillDeliveryLog(db, baselineDeliveries, small.partnerId, 1, deliveries + 1);

    const cookie = await sessionCookie(service.url, big.apiKey);
    const apiCall = async () => {
      const response = await fetch(`${service.url}/api/portal/v1/deliveries?limit=${ROWS_SHOWN}`, { headers: { cookie } });
      if (response.status !== 200) throw new Error(`the deliveries answered ${response.status}: ${await response.text()}`);
      await response.json();
    };
    // One of each a round, so that the baselines and the loads share whatever else the machine was doing.
    const rounds = await sampled(
      loads,
      async () => ({
        api: await timeOf(apiCall),
        shell: await browser.shellLoad(service.url),
        page: await browser.consoleLoad(service.url, big.apiKey),
        baseline: await browser.consoleLoad(service.url, small.apiKey),
      }),
      WARMUP,
    );
    const pageLoads = rounds.map((r) => r.page);
    const api = rounds.map((r) => r.api);

    const command = [
      ...SETTINGS.filter((name) => process.env[name]).map((name) => `${name}=${process.env[name]}`),
      'npm run bench:console',
    ];
    const count = (n: number) => n.toLocaleString('en');
    console.log(`\n${new Date().toISOString().slice(0, 10)}, \`${command.join(' ')}\`, Chromium ${browser.version} headless, 1280×800`);
    console.log(
      `${count(deliveries)} deliveries (${count(deliveries * 3)} attempts) of one partner, ${count(baselineDeliveries)} of the baseline partner; ` +
        `${loads} rounds (an API call, a load with scripts off, a load of the console for each partner) after ${WARMUP} not counted, each load in a fresh browser context (no cache, new connections) signed in beforehand`,
    );
    console.log(`bundle: ${describeBundle()}; served uncompressed\n`);
    const apiP50 = quantile(api, 0.5);
    const row = (name: string, took: number[]) => [
      name,
      ms(quantile(took, 0.5)),
      `${ms(quantile(took, 0.05))} – ${ms(quantile(took, 0.95))}`,
      ms(Math.max(...took)),
      `${(quantile(took, 0.5) / apiP50).toFixed(1)}×`,
    ];
    const inPage = (name: string, key: keyof ConsoleLoad) =>
      row(
        `  in the page, from navigation start: ${name}`,
        pageLoads.map((l) => l[key]),
      );
    console.log(
      markdownTable(
        ['measure', 'median', 'p5 – p95', 'max', 'median ÷ API baseline'],
        [
          row(
            `${count(deliveries)} deliveries: page.goto → ${ROWS_SHOWN}th row visible (Chromium)`,
            pageLoads.map((l) => l.visible),
          ),
          inPage('DOMContentLoaded', 'domContentLoaded'),
          inPage('GET /console/session answered', 'sessionAnswered'),
          inPage(`GET deliveries?limit=${ROWS_SHOWN} answered`, 'deliveriesAnswered'),
          inPage(`${ROWS_SHOWN}th row in the DOM`, 'rowsInDom'),
          row(
            `baseline: ${count(baselineDeliveries)} deliveries: page.goto → ${ROWS_SHOWN}th row visible`,
            rounds.map((r) => r.baseline.visible),
          ),
          row(`baseline: GET deliveries?limit=${ROWS_SHOWN} from Node (keep-alive)`, api),
          row(
            'baseline: the page with scripts off, cold (HTML + CSS)',
            rounds.map((r) => r.shell),
          ),
        ],
      ),
    );
  } finally {
    await browser.close();
    await db.end();
    await service.stop();
    await postgres.stop();
  }
}

runBench(main, 20 * 60_000);
