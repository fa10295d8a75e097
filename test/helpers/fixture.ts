import type { Kafka } from '@hookstream/kafka';
import { testInfrastructure, testKafka, uniqueName } from './infrastructure';
import { TestPartners, ensureTopics, startIngress, type RunningIngress } from './ingress';
import { freshStateDatabase, type StateDatabase } from './state-database';

/** A process a test started through its fixture: stopped when the fixture closes. */
export interface StoppableProcess {
  stop: (signal?: NodeJS.Signals) => Promise<void>;
}

/**
 * What an integration test sets up on the shared stack: topics of its own under a unique prefix
 * (so test files running side by side never meet), a Kafka client, partner onboarding into its
 * partner-config, and the processes it starts on that prefix. The test calls `close()` from
 * afterAll: it stops those processes and closes the clients (an open connection keeps jest alive).
 */
export class TestFixture {
  readonly partners: TestPartners;
  private readonly processes: StoppableProcess[] = [];
  private ledgerDatabase: Promise<StateDatabase> | undefined;

  protected constructor(
    /** The topic prefix (`<name>-<random>.`), as TOPIC_PREFIX of the processes started here. */
    readonly prefix: string,
    readonly kafka: Kafka,
  ) {
    this.partners = new TestPartners(kafka, prefix, testInfrastructure().registryUrl);
  }

  /** Creates every topic of a new prefix named after `name`, as `hookstream topics ensure` does. */
  static async open(name: string): Promise<TestFixture> {
    const prefix = await TestFixture.createPrefix(name);
    return new TestFixture(prefix, testKafka());
  }

  protected static async createPrefix(name: string): Promise<string> {
    const prefix = `${uniqueName(name)}.`;
    await ensureTopics(prefix);
    return prefix;
  }

  /** Starts an ingress process (compiled code) on this prefix and waits until it is ready. */
  async startIngress(extraEnv: NodeJS.ProcessEnv = {}): Promise<RunningIngress> {
    // The request_id ledger of this fixture's ingresses: a database of their own (shared by the
    // replicas started here), so fixed request_ids of one test file never meet another's or an earlier run's.
    const url = extraEnv.DATABASE_URL ?? (await (this.ledgerDatabase ??= freshStateDatabase())).url;
    return this.track(startIngress(this.prefix, { DATABASE_URL: url, ...extraEnv }));
  }

  /** Has a process that is starting stopped when the fixture closes. */
  protected async track<T extends StoppableProcess>(starting: Promise<T>): Promise<T> {
    const started = await starting;
    this.processes.push(started);
    return started;
  }

  /** Stops every process started here (with `signal`; one already stopped is left as it is), then closes the clients. */
  async close(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    await Promise.all(this.processes.map((p) => p.stop(signal)));
    await this.partners.close();
    await (await this.ledgerDatabase)?.drop();
  }
}
