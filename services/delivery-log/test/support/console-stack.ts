/*
 * What the console's browser tests run against: the real pipeline (Kafka, the ingress, the
 * consumer, the sender, the delivery log on a PostgreSQL database of its own), Debian's Chromium, an operator
 * token, and three partners:
 * - A, whose endpoint answers 503 to a policy until the test fixes it for that policy (so each test
 *   decides when its own delivery gets through, whatever the others do);
 * - B, whose endpoint answers 200;
 * - C, whose endpoint does not answer while `holding` (its delivery stays in progress).
 * Every page a test opens is checked afterwards: no console error, no CSP violation, no failed request.
 */
import type { Page } from 'playwright-core';
import { OutboundFixture, retryTierDelays, uniquePartnerId } from '../../../../test/helpers/outbound-fixture';
import { DELIVERY_LOG_ENTRY, policyEvent, startService, type Receiver, type RunningService } from '../../../../test/helpers/outbound';
import { openBrowser, type TestBrowser, type WatchedPage } from '../../../../test/helpers/browser';
import { waitFor } from '../../../../test/helpers/infrastructure';
import { runCli } from '../../../../test/helpers/processes';
import { freshStateDatabase, stopStateServer, type StateDatabase } from '../../../../test/helpers/state-database';

export class ConsoleStack {
  readonly partnerA = uniquePartnerId('console-a');
  readonly partnerB = uniquePartnerId('console-b');
  readonly partnerC = uniquePartnerId('console-c');
  /** Policies whose callbacks partner A's endpoint now answers 200. */
  readonly fixedPolicies = new Set<string>();
  /** Partner C's endpoint answers nothing while this holds. */
  holding = true;
  fixture!: OutboundFixture;
  /** Partner A's endpoint: every request it got. */
  receiverA!: Receiver;
  log!: RunningService;
  ingressUrl!: string;
  keyA!: string;
  operatorToken!: string;
  private browser!: TestBrowser;
  private logDatabase: StateDatabase | undefined;
  private readonly opened: WatchedPage[] = [];

  /** Starts everything; `events` are published once it runs (each a policy number of A, B or C). */
  static async open(
    name: string,
    events: Array<['A' | 'B' | 'C', string]>,
    /** The retry tiers' delays (default 50 ms each: a failing delivery is dead-lettered within a second). */
    retryDelaysMs = retryTierDelays(50),
    /** Settings of the delivery log's own beside the fixture's (e.g. the notifications' interval). */
    logEnv: NodeJS.ProcessEnv = {},
  ): Promise<ConsoleStack> {
    const stack = new ConsoleStack();
    await stack.start(name, events, retryDelaysMs, logEnv);
    return stack;
  }

  private async start(
    name: string,
    events: Array<['A' | 'B' | 'C', string]>,
    retryDelaysMs: number[],
    logEnv: NodeJS.ProcessEnv,
  ): Promise<void> {
    this.fixture = await OutboundFixture.open(name, { retryDelaysMs, breaker: { failures: 1000, openMs: 100 } });
    const broken = await this.fixture.receiver((request) => (this.fixedPolicies.has(String(request.body['policy_number'])) ? 200 : 503));
    this.receiverA = broken;
    const fine = await this.fixture.receiver(() => 200);
    const slow = await this.fixture.receiver(() => (this.holding ? 'hang' : 200));
    this.keyA = await this.fixture.partners.create(this.partnerA, {
      callback_endpoints: [{ endpoint_id: 'main', url: broken.url }],
      outbound_auth: { method: 'API_KEY', api_key: 'k' },
    });
    await this.fixture.onboard(this.partnerB, { endpoint_id: 'main', url: fine.url });
    await this.fixture.onboard(this.partnerC, { endpoint_id: 'main', url: slow.url });
    this.logDatabase = await freshStateDatabase();
    const [ingress, log, , , browser, operator] = await Promise.all([
      this.fixture.startIngress(),
      startService(DELIVERY_LOG_ENTRY, this.fixture.prefix, {
        ...this.fixture.env,
        DELIVERY_LOG_DATABASE_URL: this.logDatabase.url,
        HTTP_PORT: '0',
        ...logEnv,
      }),
      this.fixture.startConsumer(),
      this.fixture.startSender(),
      openBrowser(),
      this.cli('operators', 'create', '--name', 'Olga Operator', '--role', 'operator', '--json'),
    ]);
    this.ingressUrl = ingress.webhookUrl;
    this.log = log;
    this.browser = browser;
    this.operatorToken = operator['token'] as string;
    const partnerOf = { A: this.partnerA, B: this.partnerB, C: this.partnerC };
    await this.fixture.events.publish(events.map(([who, policy]) => policyEvent(partnerOf[who], {}, { policy_number: policy })));
  }

  /** Publishes policy events of partner A, one per policy number. */
  publishA(...policies: string[]): Promise<void> {
    return this.fixture.events.publish(policies.map((policy) => policyEvent(this.partnerA, {}, { policy_number: policy })));
  }

  async close(): Promise<void> {
    this.holding = false;
    await this.browser?.close();
    await this.log?.stop();
    await this.fixture?.close();
    await this.logDatabase?.drop();
    await stopStateServer();
  }

  /** A new page at the delivery log's address, watched for errors. */
  async page(device: 'desktop' | 'phone' = 'desktop'): Promise<Page> {
    const watched = await this.browser.newPage(this.log.url, device);
    this.opened.push(watched);
    return watched.page;
  }

  /** Fails on any page opened since the last call that logged an error, broke its CSP or had a request fail (afterEach). */
  assertPagesClean(): void {
    for (const watched of this.opened.splice(0)) watched.assertNoPageErrors();
  }

  /** Drops the page problems a test caused on purpose (a refusal the page shows), so that only unexpected ones fail it. */
  expectProblems(pattern: RegExp): void {
    const watched = this.opened.at(-1)!;
    const unexpected = watched.problems.filter((problem) => !pattern.test(problem));
    expect(watched.problems.length).toBeGreaterThan(unexpected.length);
    watched.problems.splice(0, watched.problems.length, ...unexpected);
  }

  /** `hookstream …` against the stack, its --json output. */
  async cli(...args: string[]): Promise<Record<string, unknown>> {
    const result = await runCli(args, { env: { ...process.env, ...this.fixture.env, TOPIC_PREFIX: this.fixture.prefix } });
    if (result.code !== 0) throw new Error(`hookstream ${args.join(' ')} exited ${result.code}: ${result.stderr}`);
    return JSON.parse(result.stdout) as Record<string, unknown>;
  }

  /** The operator API, as the operator: the answer's body, whatever its status. */
  async api<T>(method: string, url: string, body?: unknown): Promise<T> {
    return (await this.apiAnswer(method, url, body)).json as T;
  }

  /** The operator API, as the operator: the answer's status and body. */
  async apiAnswer(method: string, url: string, body?: unknown): Promise<{ status: number; json: unknown }> {
    const response = await fetch(`${this.log.url}${url}`, {
      method,
      headers: { authorization: `Bearer ${this.operatorToken}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, json: await response.json() };
  }

  /** Partner A's dead-lettered delivery of `policyNumber` once the log has it. */
  deadLettered(policyNumber: string): Promise<{ delivery_id: string }> {
    return waitFor(
      async () => {
        const page = await this.api<{ data: Array<{ delivery_id: string }> }>(
          'GET',
          `/api/admin/v1/deliveries?partner_id=${this.partnerA}&policy_number=${policyNumber}&status=dead_lettered`,
        );
        return page.data[0];
      },
      `${policyNumber} dead-lettered in the log`,
      90_000,
    );
  }

  /** A portal link's token for partner A, as an operator issues it. */
  async portalToken(): Promise<string> {
    const { data } = await this.api<{ data: { token: string } }>('POST', `/api/admin/v1/partners/${this.partnerA}/portal-tokens`, {
      reason: 'console test',
    });
    return data.token;
  }

  async signInAsOperator(p: Page, go = true, landsOn = 'Deliveries'): Promise<void> {
    if (go) await p.goto('/console/');
    await p.getByLabel('an operator (your operator token)').check();
    await p.getByLabel('Operator token', { exact: true }).fill(this.operatorToken);
    await p.getByRole('button', { name: 'Sign in' }).click();
    await p.getByRole('heading', { name: landsOn }).waitFor();
  }
}

/** Types `value` into the filter labelled `label` and applies the filters. */
export async function applyFilter(p: Page, label: string, value: string): Promise<void> {
  await p.getByLabel(label, { exact: true }).fill(value);
  await p.getByRole('button', { name: 'Apply' }).click();
}
