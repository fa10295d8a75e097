import { testKafka, uniqueName } from './infrastructure';
import { TestFixture } from './fixture';
import {
  CALLBACK_SENDER_ENTRY,
  DELIVERY_LOG_ENTRY,
  DOCUMENT_FETCHER_ENTRY,
  POLICY_CONSUMER_ENTRY,
  PolicyEvents,
  startReceiver,
  startService,
  type ReceivedRequest,
  type Receiver,
  type ReceiverAnswer,
  type RunningService,
} from './outbound';

/** The test receivers listen on loopback, which the SSRF guard refuses unless allowed. */
const ALLOW_LOOPBACK = { SSRF_ALLOW: '127.0.0.0/8' };

/** The services' settings an outbound test tunes; what is absent keeps the service's default. */
export interface OutboundSettings {
  /** CALLBACK_RETRY_DELAYS_MS: the eight retry tiers' delays (see {@link retryTierDelays}). */
  retryDelaysMs?: number[];
  /** BREAKER_FAILURE_THRESHOLD and BREAKER_OPEN_MS: the failures that open a partner's circuit, and for how long. */
  breaker?: { failures: number; openMs?: number };
  /** Any other setting of the services, by its environment name. */
  env?: NodeJS.ProcessEnv;
}

/** A callback endpoint of a partner spec: its URL and, as a test needs them, its other fields. */
export type TestEndpoint = { url: string } & Record<string, unknown>;

/**
 * The setup of an outbound (policy status → partner callback) test on the shared stack: a
 * {@link TestFixture} with a policy-status publisher, the policy-status-consumer and
 * callback-sender processes started on its prefix with the test's settings, and partner
 * endpoints on loopback. `close()` stops the processes, then closes the endpoints and clients.
 */
export class OutboundFixture extends TestFixture {
  readonly events: PolicyEvents;
  private readonly receivers: Receiver[] = [];

  private constructor(
    prefix: string,
    /** The services' settings beyond the defaults, loopback callback URLs allowed. */
    readonly env: NodeJS.ProcessEnv,
  ) {
    const kafka = testKafka();
    super(prefix, kafka);
    this.events = new PolicyEvents(kafka, prefix);
  }

  /** A new prefix named after `name` with its topics; the services started here get `settings`. */
  static override async open(name: string, settings: OutboundSettings = {}): Promise<OutboundFixture> {
    const { retryDelaysMs, breaker, env } = settings;
    return new OutboundFixture(await TestFixture.createPrefix(name), {
      ...ALLOW_LOOPBACK,
      ...(retryDelaysMs && { CALLBACK_RETRY_DELAYS_MS: retryDelaysMs.join(',') }),
      ...(breaker && { BREAKER_FAILURE_THRESHOLD: String(breaker.failures) }),
      ...(breaker?.openMs !== undefined && { BREAKER_OPEN_MS: String(breaker.openMs) }),
      ...env,
    });
  }

  /** Starts a policy-status-consumer process (compiled code) and waits until it is ready. */
  startConsumer(): Promise<RunningService> {
    return this.track(startService(POLICY_CONSUMER_ENTRY, this.prefix, this.env));
  }

  /** Starts a callback-sender process (compiled code) and waits until it is ready. */
  startSender(): Promise<RunningService> {
    return this.track(startService(CALLBACK_SENDER_ENTRY, this.prefix, this.env));
  }

  /** Starts a document-fetcher process (compiled code) with `env` added and waits until it is ready. */
  startFetcher(env: NodeJS.ProcessEnv = {}): Promise<RunningService> {
    return this.track(startService(DOCUMENT_FETCHER_ENTRY, this.prefix, { ...this.env, ...env }));
  }

  /** Starts a delivery-log process with `env` added (its store: DELIVERY_LOG_DATABASE_URL) and waits until it is ready. */
  startDeliveryLog(env: NodeJS.ProcessEnv): Promise<RunningService> {
    return this.track(startService(DELIVERY_LOG_ENTRY, this.prefix, { ...this.env, ...env }));
  }

  /** A partner's callback endpoint on loopback answering with `answer` (see startReceiver). */
  async receiver(answer?: (request: ReceivedRequest, index: number) => ReceiverAnswer): Promise<Receiver> {
    const started = await startReceiver(answer);
    this.receivers.push(started);
    return started;
  }

  /** Onboards `partnerId` with the one callback endpoint given, authenticated by an API key. */
  async onboard(partnerId: string, endpoint: TestEndpoint): Promise<void> {
    await this.partners.create(partnerId, { callback_endpoints: [endpoint], outbound_auth: { method: 'API_KEY', api_key: 'k' } });
  }

  override async close(signal?: NodeJS.Signals): Promise<void> {
    await super.close(signal);
    await Promise.all(this.receivers.map((r) => r.close()));
    await this.events.close();
  }
}

/** A partner id no other test uses, in the form partner ids take (lowercase, at most 40 characters). */
export function uniquePartnerId(what: string): string {
  return uniqueName(what)
    .toLowerCase()
    .replace(/[^a-z0-9-]/g, '-')
    .slice(0, 40);
}

/** The delays of the eight retry tiers, for CALLBACK_RETRY_DELAYS_MS: the first tier's, then each other's. */
export function retryTierDelays(firstMs: number, othersMs = firstMs): number[] {
  return [firstMs, ...Array<number>(7).fill(othersMs)];
}
