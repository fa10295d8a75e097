/*
 * What a partner's recovery reads (domain/recover-dead-letters.ts): its deliveries still
 * dead-lettered since a time, each with its newest callback-dlq dead letter, through the partial
 * index of dead-lettered deliveries (migration 0013); and whether an endpoint is the partner's.
 */
import { EmittedPolicyVersions } from '@hookstream/contract';
import { TopicNames } from '@hookstream/kafka';
import { sql } from 'kysely';
import type { WaitingDelivery } from '../../../domain/recover-dead-letters';
import type { DeliveryLogDb } from '../tables';

export async function waitingSince(
  db: DeliveryLogDb,
  partnerId: string,
  window: { since: Date; until?: Date | undefined },
  endpointId: string | undefined,
  limit: number,
): Promise<WaitingDelivery[]> {
  let query = db
    .selectFrom('deliveries')
    .select(['delivery_id', 'endpoint_id', 'policy_number', 'dead_lettered_at'])
    .where('partner_id', '=', partnerId)
    .where('state', '=', 'dead_lettered')
    .where('dead_lettered_at', '>=', window.since);
  if (window.until !== undefined) query = query.where('dead_lettered_at', '<', window.until);
  if (endpointId !== undefined) query = query.where('endpoint_id', '=', endpointId);
  const deliveries = await query.orderBy('dead_lettered_at').orderBy('delivery_id').limit(limit).execute();
  if (deliveries.length === 0) return [];
  const letters = await db
    .selectFrom('dead_letters')
    .select(['subject_id', 'source_partition', 'source_offset', 'dead_lettered_at'])
    .where(
      'subject_id',
      'in',
      deliveries.map((d) => d.delivery_id),
    )
    .where('partner_id', '=', partnerId)
    .where('source_topic', '=', TopicNames.callbackDlq)
    .orderBy('dead_lettered_at', 'desc')
    .execute();
  return deliveries.flatMap((d) => {
    // The newest: an older one of the same delivery was resent before it was dead-lettered again.
    const letter = letters.find((l) => l.subject_id === d.delivery_id);
    return letter ? [{ ...d, dead_lettered_at: d.dead_lettered_at ?? letter.dead_lettered_at, letter }] : [];
  });
}

export async function endpointKnown(db: DeliveryLogDb, partnerId: string, endpointId: string): Promise<boolean> {
  const { rows } = await sql<{ known: boolean }>`
    select exists (
      select 1 from partners p, jsonb_array_elements(p.endpoints) e
      where p.partner_id = ${partnerId} and e ->> 'endpoint_id' = ${endpointId}
    ) or exists (
      select 1 from deliveries where partner_id = ${partnerId} and endpoint_id = ${endpointId} and state = 'dead_lettered'
    ) as known`.execute(db);
  return rows[0]?.known === true;
}

/**
 * The newest version of each of these policies the partner's deliveries carry, per endpoint: every
 * callback request is projected here, so this is what callback-requests says, without reading the
 * topic (a plan's superseded check: domain/resend-delivery.ts). The sender judges again when it sends.
 */
export async function emittedVersions(db: DeliveryLogDb, partnerId: string, policyNumbers: string[]): Promise<EmittedPolicyVersions> {
  const versions = new EmittedPolicyVersions();
  if (policyNumbers.length === 0) return versions;
  const rows = await db
    .selectFrom('deliveries')
    .select(['endpoint_id', 'policy_number'])
    .select((eb) => eb.fn.max('policy_version').as('newest'))
    .where('partner_id', '=', partnerId)
    .where('policy_number', 'in', [...new Set(policyNumbers)])
    .groupBy(['endpoint_id', 'policy_number'])
    .execute();
  for (const row of rows) versions.observe(partnerId, row.endpoint_id, row.policy_number, Number(row.newest));
  return versions;
}
