/*
 * What the partner API's tests run against: the real pipeline (Kafka, the ingress, the consumer,
 * the sender) and the delivery log on a PostgreSQL database of its own, with
 * three partners:
 * - A signs its callbacks with HMAC_SHA256; its endpoint fails the first send and the eight retries
 *   of its one policy (P-A-1), then answers 200 (to the resend); it sent one webhook twice (a
 *   replay) and had one refused;
 * - B's endpoint answers 200 to its five policies; it had one webhook refused;
 * - C's endpoint always fails: its four policies are dead-lettered, to resend.
 * and an operator (`hookstream operators create`), who issues portal tokens as the console does.
 */
import { OutboundFixture, retryTierDelays, uniquePartnerId } from '../../../../test/helpers/outbound-fixture';
import { DELIVERY_LOG_ENTRY, policyEvent, startService, type Receiver, type RunningService } from '../../../../test/helpers/outbound';
import { postWebhook, webhook } from '../../../../test/helpers/ingress';
import { runCli } from '../../../../test/helpers/processes';
import { ApiClient } from './api-client';
import { freshStateDatabase, stopStateServer, type StateDatabase } from '../../../../test/helpers/state-database';

/** Partner A's outbound credentials: the answer's verification lets it recompute each signature. */
export const A_API_KEY = 'a-outbound-key-5e1';
export const A_SECRET = 'a-hmac-secret-77c';
/** What partner A's endpoint answers while it fails. */
export const FAILURE_ANSWER = '{"error":"policy service unavailable"}';

export class PortalStack {
  readonly partnerA = uniquePartnerId('portal-a');
  readonly partnerB = uniquePartnerId('portal-b');
  readonly partnerC = uniquePartnerId('portal-c');
  fixture!: OutboundFixture;
  api!: ApiClient;
  log!: RunningService;
  /** Partner A's endpoint, with every request it received. */
  failing!: Receiver;
  keyA!: string;
  keyB!: string;
  keyC!: string;
  /** An operator's headers (Authorization: Bearer hso_…) for the operator API. */
  asOperator!: Record<string, string>;
  private logDatabase: StateDatabase | undefined;

  /** Starts everything with the delivery log's resend limit at `resendsPerHour`, and lets the partners' history begin. */
  static async open(name: string, resendsPerHour: number): Promise<PortalStack> {
    const stack = new PortalStack();
    await stack.start(name, resendsPerHour);
    return stack;
  }

  readonly asA = () => ({ 'x-api-key': this.keyA });
  readonly asB = () => ({ 'x-api-key': this.keyB });
  readonly asC = () => ({ 'x-api-key': this.keyC });

  /** A portal token for `partnerId`, issued by the operator through the operator API (as the console does). */
  async portalToken(partnerId: string, ttlMinutes = 5): Promise<{ token: string; token_id: string }> {
    const answer = await this.api.post(`/api/admin/v1/partners/${partnerId}/portal-tokens`, this.asOperator, {
      reason: 'partner asked for console access',
      ttl_minutes: ttlMinutes,
    });
    expect(answer.status).toBe(201);
    return (answer.json as { data: { token: string; token_id: string } }).data;
  }

  /** `hookstream …` against this stack's topics. */
  async cli(...args: string[]) {
    return runCli(args, { env: { ...process.env, ...this.fixture.env, TOPIC_PREFIX: this.fixture.prefix } });
  }

  private async start(name: string, resendsPerHour: number): Promise<void> {
    const fixture = await OutboundFixture.open(name, { retryDelaysMs: retryTierDelays(50), breaker: { failures: 1000, openMs: 100 } });
    this.fixture = fixture;
    this.failing = await fixture.receiver((_request, index) => (index < 9 ? { status: 500, body: FAILURE_ANSWER } : 200));
    const answering = await fixture.receiver(() => 200);
    this.keyA = await fixture.partners.create(this.partnerA, {
      callback_endpoints: [{ endpoint_id: 'main', url: this.failing.url }],
      outbound_auth: { method: 'HMAC_SHA256', api_key: A_API_KEY, secret: A_SECRET },
    });
    this.keyB = await fixture.partners.create(this.partnerB, {
      callback_endpoints: [{ endpoint_id: 'main', url: answering.url }],
      outbound_auth: { method: 'API_KEY', api_key: 'k' },
    });
    this.keyC = await fixture.partners.create(this.partnerC, {
      callback_endpoints: [{ endpoint_id: 'main', url: (await fixture.receiver(() => 500)).url }],
      outbound_auth: { method: 'API_KEY', api_key: 'k' },
    });
    const operator = await this.cli('operators', 'create', '--name', 'Petra Portal', '--role', 'operator', '--json');
    expect([operator.code, operator.stderr]).toEqual([0, '']);
    this.asOperator = { authorization: `Bearer ${(JSON.parse(operator.stdout) as { token: string }).token}` };
    this.logDatabase = await freshStateDatabase();
    const [ingress, log] = await Promise.all([
      fixture.startIngress(),
      startService(DELIVERY_LOG_ENTRY, fixture.prefix, {
        ...fixture.env,
        DELIVERY_LOG_DATABASE_URL: this.logDatabase.url,
        HTTP_PORT: '0',
        DELIVERY_LOG_RESENDS_PER_HOUR: String(resendsPerHour),
      }),
      fixture.startConsumer(),
      fixture.startSender(),
    ]);
    this.log = log;
    await fixture.events.publish([
      policyEvent(this.partnerA, {}, { policy_number: 'P-A-1' }),
      ...[1, 2, 3, 4, 5].map((n) => policyEvent(this.partnerB, {}, { policy_number: `P-B-${n}` })),
      ...[1, 2, 3, 4].map((n) => policyEvent(this.partnerC, {}, { policy_number: `P-C-${n}` })),
    ]);
    const accepted = webhook({ transaction_number: 'TRX-A-1' });
    expect((await postWebhook(ingress.webhookUrl, this.keyA, accepted)).status).toBe(200);
    // Sent again with its request_id and body, as a retrying partner would: a replay.
    expect((await postWebhook(ingress.webhookUrl, this.keyA, accepted)).status).toBe(200);
    // One refused webhook each: A's without a transaction_number, B's without documents.
    const refusedA = webhook({ request_id: 'REJ-A-1', transaction_number: undefined });
    // With a credential of another system beside the API key: kept as [redacted], as the key is.
    expect(
      (await postWebhook(ingress.webhookUrl, this.keyA, refusedA, { authorization: 'Bearer not-for-us', 'x-trace-id': 'trace-A-1' }))
        .status,
    ).toBe(400);
    expect((await postWebhook(ingress.webhookUrl, this.keyB, webhook({ request_id: 'REJ-B-1', documents: [] }))).status).toBe(400);
    this.api = await ApiClient.open(log.url);
  }

  async close(): Promise<void> {
    await this.log?.stop();
    await this.fixture?.close();
    await this.logDatabase?.drop();
    await stopStateServer();
  }
}
