/*
 * Writes a batch of facts in one transaction. Each table is keyed by what identifies its fact, and
 * every write either inserts or leaves the row as the newer fact made it, so writing a batch again
 * (after a crash before its offsets were committed) or rebuilding from the topics gives the same
 * rows. What a delivery is now (its state and last attempt) is recomputed from its rows afterwards
 * (delivery-summary.ts), never accumulated, so the order records arrive in does not matter.
 */
import { TopicNames } from '@hookstream/kafka';
import type { DeliveryLogDb } from '../tables';
import { summarizeDeliveries } from './delivery-summary';
import type { Fact } from '../../../entry/kafka/facts';
import { writeAuditEntries } from './audit-writes';
import { writeDocuments, writePartners, writeRejectedWebhooks, writeWebhookReplays, writeWebhooks } from './inbound-writes';
import { writeAttempts, writeDeadLetters, writeDeliveries, writeReplays } from './outbound-writes';

type FactOf<K extends Fact['kind']> = Extract<Fact, { kind: K }>;

/** Writes `facts` in one transaction of `db`. */
export async function writeFacts(db: DeliveryLogDb, facts: Fact[]): Promise<void> {
  if (facts.length === 0) return;
  const of = <K extends Fact['kind']>(kind: K) => facts.filter((fact): fact is FactOf<K> => fact.kind === kind);
  await db.transaction().execute(async (trx) => {
    await writePartners(trx, of('partner'));
    const deadLetters = of('dead-letter');
    const requests = [...of('delivery'), ...deadLetters.flatMap(({ request }) => (request ? [{ request, traceId: null }] : []))];
    await writeDeliveries(trx, requests);
    const attempts = of('attempt');
    await writeAttempts(trx, attempts);
    await writeDeadLetters(trx, deadLetters);
    const replays = of('replay');
    await writeReplays(trx, replays);
    await writeWebhooks(trx, of('webhook'));
    await writeDocuments(trx, of('document'));
    await writeAuditEntries(trx, of('audit'));
    await writeRejectedWebhooks(trx, of('rejected-webhook'));
    await writeWebhookReplays(trx, of('webhook-replay'));
    const touched = new Set([
      ...requests.map(({ request }) => request.delivery_id),
      ...attempts.map((fact) => fact.outcome.delivery_id),
      ...deadLetters.flatMap((fact) => (fact.request ? [fact.request.delivery_id] : [])),
      ...replays.filter((fact) => fact.replay.source_topic === TopicNames.callbackDlq).map((fact) => fact.replay.delivery_id),
    ]);
    await summarizeDeliveries(trx, [...touched].sort());
  });
}
