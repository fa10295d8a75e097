/**
 * `hookstream start` keeps the system up: a service killed with SIGKILL is started again on its
 * port while the others go on serving, and a killed broker is started again on the same port
 * with the same state while the services ride through it. One `start` with a local stack of its
 * own (free ports, a temporary state dir, its PostgreSQL holding the services' state and the delivery log), under webhook and policy-event traffic throughout.
 * The figures measured are printed (README, "Supervision").
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { uniqueName, waitFor } from './helpers/infrastructure';
import { postWebhook, webhook } from './helpers/ingress';
import { CLI, isolatedStackEnv, listensOn, processesMentioning, startNode } from './helpers/processes';
import { PolicyTraffic, WebhookTraffic, childrenOf, startedSystem, type Answer } from './helpers/supervision';

/** How long a killed service may take to be ready again, and the stack's broker to serve again (2 shared cores: generous). */
const BACK_WITHIN_MS = 90_000;

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const notOk = (answers: Answer[]) => answers.filter((a) => a.status !== 200);
const statuses = (answers: Answer[]) => [...new Set(notOk(answers).map((a) => a.status))].join(', ') || '-';

describe('hookstream start supervises', () => {
  const stateDir = mkdtempSync(path.join(os.tmpdir(), 'hookstream-supervised-'));
  const prefix = `${uniqueName('supervised')}.`;
  const env = {
    ...isolatedStackEnv(`${stateDir}.env`),
    HOOKSTREAM_STATE_DIR: stateDir,
    TOPIC_PREFIX: prefix,
    TOPIC_PARTITIONS: '2',
  };
  // SUPERVISED_LOG_LEVEL=info keeps the services' info lines in the output a failure writes out.
  const run = startNode([CLI, 'start', '--log-level', process.env.SUPERVISED_LOG_LEVEL ?? 'warn'], env);
  let system: ReturnType<typeof startedSystem>;
  let webhooks: WebhookTraffic;
  let events: PolicyTraffic;
  /** Lines the supervisor printed since `from` (an offset into the output). */
  const supervisorLines = (from = 0) =>
    run
      .output()
      .slice(from)
      .split('\n')
      .filter((l) => l.startsWith('supervisor: '));

  /**
   * Waits for the demo partner to print every one of `published`; else fails naming those it never
   * printed, with everything `start` printed kept in a file (the services' warnings and errors).
   */
  const everyCalledBack = async (published: string[]) => {
    const missing = () => published.filter((n) => !run.output().includes(n));
    await waitFor(() => missing().length === 0, 'every acknowledged event to be called back', 180_000).catch((error: Error) => {
      const kept = path.join(os.tmpdir(), `${path.basename(stateDir)}-output.log`);
      writeFileSync(kept, run.output());
      throw new Error(
        `${error.message}: ${missing().length} of ${published.length} never called back (${missing().slice(0, 10).join(', ')}); output in ${kept}`,
      );
    });
  };

  beforeAll(async () => {
    await waitFor(() => /ready in [\d.]+ s/.test(run.output()), 'the system to be ready', 240_000);
    system = startedSystem(run.output());
    webhooks = new WebhookTraffic(`${system.webhookUrl}`, system.apiKey);
    events = new PolicyTraffic({ brokers: system.brokers, registryUrl: system.registryUrl, prefix, partnerId: 'demo-partner' });
    await waitFor(() => webhooks.firstOkAfter(0), 'a first webhook to be accepted', 60_000);
  }, 300_000);

  afterAll(async () => {
    await webhooks?.stop();
    await events?.stop();
    run.child.kill('SIGINT');
    await Promise.race([run.exited, new Promise((resolve) => setTimeout(resolve, 60_000))]);
    run.child.kill('SIGKILL');
    rmSync(stateDir, { recursive: true, force: true });
    rmSync(`${stateDir}.env`, { force: true });
  }, 90_000);

  test('when each service is killed in turn, then it is ready again within the bound and the others go on serving', async () => {
    for (const name of ['callback-sender', 'policy-status-consumer', 'ingress']) {
      const [pid] = childrenOf(run.child.pid!, `services/${name}/dist/main.js`);
      expect(pid).toBeDefined();
      const mark = run.output().length;
      const killedAt = Date.now();
      process.kill(pid!, 'SIGKILL');
      const url = system.services[name]!;
      const readyAt = await waitFor(
        async () => Date.now() > killedAt + 300 && (await fetch(`${url}/readyz`).catch(() => undefined))?.status === 200 && Date.now(),
        `${name} to be ready again`,
        BACK_WITHIN_MS,
      );
      const answers = webhooks.between(killedAt, readyAt);
      process.stdout.write(
        `${name} killed: ready again after ${seconds(readyAt - killedAt)}; webhooks meanwhile: ${answers.length}, not 200: ${notOk(answers).length} (${statuses(answers)})\n`,
      );
      expect(supervisorLines(mark)).toContainEqual(
        expect.stringMatching(new RegExp(`^supervisor: ${name} \\(pid ${pid}\\) was killed by SIGKILL after`)),
      );
      await waitFor(
        () => supervisorLines(mark).some((l) => l.startsWith(`supervisor: ${name} is ready again`)),
        'the supervisor to say so',
      );
      // Inbound does not depend on the outbound services: not one webhook failed while one was down.
      if (name !== 'ingress') expect(notOk(answers)).toEqual([]);
      else await waitFor(() => webhooks.firstOkAfter(readyAt), 'a webhook to be accepted again', 30_000);
    }
    // Every event the broker acknowledged reaches the partner, whichever outbound service was down meanwhile.
    const published = [...events.acknowledged];
    expect(published.length).toBeGreaterThan(10);
    await everyCalledBack(published);
  }, 600_000);

  test('when the broker is killed, then it serves again on the same port with its data and webhooks get 200 again', async () => {
    const recorded = () => JSON.parse(readFileSync(path.join(stateDir, 'run.json'), 'utf8')) as { processes: { kafka: number } };
    const brokerPid = recorded().processes.kafka;
    const mark = run.output().length;
    const killedAt = Date.now();
    process.kill(brokerPid, 'SIGKILL');
    const back = await waitFor(
      () => supervisorLines(mark).find((l) => l.includes('kafka: serving again at')),
      'the broker to serve again',
      BACK_WITHIN_MS,
    ).catch((error: Error) => {
      // What the supervisor said meanwhile, and the broker's own last lines: where the restart stood.
      const brokerLog = readFileSync(path.join(stateDir, 'kafka', 'kafka.log'), 'utf8')
        .split('\n')
        .slice(-40)
        .join('\n');
      throw new Error(
        `${error.message}; the supervisor said: ${JSON.stringify(supervisorLines(mark))}; the broker's log ends:\n${brokerLog}`,
      );
    });
    const backAt = Date.now();
    expect(back).toContain(`serving again at ${system.brokers} `);
    expect(recorded().processes.kafka).not.toBe(brokerPid);
    expect(supervisorLines(mark)[0]).toMatch(new RegExp(`^supervisor: kafka \\(pid ${brokerPid}\\) is gone after`));
    // Generous: the ingress's own recovery after a broker restart is being shortened elsewhere.
    const firstOk = await waitFor(() => webhooks.firstOkAfter(backAt), 'a webhook to be accepted after the broker is back', 120_000);
    const answers = webhooks.between(killedAt, firstOk.at);
    process.stdout.write(
      `broker killed: serving again after ${seconds(backAt - killedAt)}; first webhook 200 ${seconds(firstOk.at - backAt)} after that; ` +
        `webhooks meanwhile: ${answers.length}, not 200: ${notOk(answers).length} (${statuses(answers)})\n`,
    );
    // The services rode through: none of them was restarted because the broker was.
    expect(supervisorLines(mark).filter((l) => /ingress|policy-status-consumer|callback-sender/.test(l))).toEqual([]);
    // Nothing it acknowledged before or after was lost: the same state came back.
    await everyCalledBack([...events.acknowledged]);
    // Every consumer reads again, the delivery log's and the document fetcher's included: a webhook
    // with a document sent now is in the log with its document stored. (Their consumers, fenced as
    // static members by their own rejoin, stayed dead for good before they were replaced.)
    const sent = webhook({
      documents: [{ type: 'POLICY_CERTIFICATE', url: `${system.demoEndpoint}/documents/after.pdf`, filename: 'after.pdf' }],
    });
    expect((await postWebhook(system.webhookUrl, system.apiKey, sent)).status).toBe(200);
    await waitFor(
      async () => {
        const answer = await fetch(`${system.partnerApiUrl}/webhooks?request_id=${encodeURIComponent(sent.request_id as string)}`, {
          headers: { 'x-api-key': system.apiKey },
        });
        const { data } = (await answer.json()) as { data: Array<{ documents_stored: number }> };
        return data[0]?.documents_stored === 1;
      },
      'the webhook sent after the restart in the delivery log, its document stored',
      60_000,
    );
  }, 420_000);

  test('when interrupted, then every process it and the supervisor started is stopped', async () => {
    await webhooks.stop();
    await events.stop();
    const services = childrenOf(run.child.pid!, '/dist/main.js');
    expect(services).toHaveLength(5); // the restarted ones, the document-fetcher and the delivery-log
    const { ports } = JSON.parse(readFileSync(path.join(stateDir, 'run.json'), 'utf8')) as { ports: { postgres: number } };
    expect(await listensOn(ports.postgres)).toBe(true);
    run.child.kill('SIGINT');
    expect(await run.exited).toBe(0);
    expect(run.output()).toMatch(/stopped\s*$/);
    expect(processesMentioning(stateDir)).toEqual([]); // the broker started again included
    expect(await listensOn(ports.postgres)).toBe(false);
    for (const pid of services) expect(() => process.kill(pid, 0)).toThrow();
  }, 90_000);
});
