import { createHash } from 'node:crypto';
import type { PartnerDocumentValue } from '@hookstream/contract';
import { TestFixture } from '../../../../test/helpers/fixture';
import { testKafka, waitFor } from '../../../../test/helpers/infrastructure';
import { postWebhook } from '../../../../test/helpers/ingress';
import {
  DOCUMENT_FETCHER_ENTRY,
  readTopicUntil,
  startService,
  type ReadRecord,
  type RunningService,
} from '../../../../test/helpers/outbound';

/** The test document hosts listen on loopback, which the SSRF guard refuses unless allowed. */
const ALLOW_LOOPBACK = { SSRF_ALLOW: '127.0.0.0/8' };

/**
 * A {@link TestFixture} for document tests: the ingress and document-fetcher processes on its
 * prefix, and partner-documents read back decoded through the registry.
 */
export class DocumentsFixture extends TestFixture {
  private constructor(prefix: string) {
    super(prefix, testKafka());
  }

  /** A new prefix named after `name` with its topics. */
  static override async open(name: string): Promise<DocumentsFixture> {
    return new DocumentsFixture(await TestFixture.createPrefix(name));
  }

  /** Starts a document-fetcher process (compiled code) with `env` beyond loopback allowed, and waits until it is ready. */
  startFetcher(env: NodeJS.ProcessEnv = {}): Promise<RunningService> {
    return this.track(startService(DOCUMENT_FETCHER_ENTRY, this.prefix, { ...ALLOW_LOOPBACK, ...env }));
  }

  /** Reads partner-documents (read_committed) until `enough` holds. */
  readDocuments(
    enough: (records: Array<ReadRecord<PartnerDocumentValue>>) => boolean,
    timeoutMs = 60_000,
  ): Promise<Array<ReadRecord<PartnerDocumentValue>>> {
    return readTopicUntil<PartnerDocumentValue>(`${this.prefix}partner-documents`, enough, timeoutMs);
  }

  /** Reads document-dlq until `enough` holds. */
  readDeadLetters<T>(enough: (records: Array<ReadRecord<T>>) => boolean, timeoutMs = 60_000): Promise<Array<ReadRecord<T>>> {
    return readTopicUntil<T>(`${this.prefix}document-dlq`, enough, timeoutMs);
  }
}

export function sha256Of(body: Buffer): string {
  return createHash('sha256').update(body).digest('hex');
}

/**
 * An `enough` for readDocuments that holds once `count(records)` reached `atLeast` and has not
 * changed for `quietMs`: so that a record that should not exist has had its chance to be read.
 */
export function settledAt<T>(count: (records: T[]) => number, atLeast: number, quietMs = 1_500): (records: T[]) => boolean {
  let last = -1;
  let since = Date.now();
  return (records) => {
    const n = count(records);
    if (n !== last) [last, since] = [n, Date.now()];
    return n >= atLeast && Date.now() - since >= quietMs;
  };
}

/** A metric's value on a service's /metrics (its series summed). */
export async function metric(serviceUrl: string, name: string): Promise<number> {
  const text = await (await fetch(`${serviceUrl}/metrics`)).text();
  return text
    .split('\n')
    .filter((line) => line.startsWith(`${name} `) || line.startsWith(`${name}{`))
    .reduce((sum, line) => sum + Number(line.split(' ').pop()), 0);
}

/** POSTs a webhook until it is accepted (200): a partner onboarded a moment ago is refused (401) until the ingress has read it. */
export async function postAccepted(webhookUrl: string, apiKey: string, body: Record<string, unknown>): Promise<void> {
  await waitFor(
    async () => (await postWebhook(webhookUrl, apiKey, body)).status === 200,
    `the webhook ${String(body.request_id)} to be accepted`,
  );
}
