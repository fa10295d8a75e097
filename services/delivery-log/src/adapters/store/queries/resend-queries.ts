/*
 * What a partner's resend reads of a delivery before replaying it (domain/resend-delivery.ts): its
 * state, and where its callback-dlq dead letters are, as the log holds them. Each read runs in the
 * partner's scope (partner-scope.ts: row security), whoever calls it.
 */
import { TopicNames } from '@hookstream/kafka';
import { inPartnerScope } from '../partner-scope';
import type { DeliveryLogDb, DeliveryState } from '../tables';

export interface DeadLetterPlace {
  source_partition: number;
  source_offset: number;
  dead_lettered_at: Date;
}

/** The partner's delivery's state (only its state: the body, attempts and replays are not needed to decide); undefined when it has none by that id. */
export async function deliveryStateOf(db: DeliveryLogDb, partnerId: string, deliveryId: string): Promise<DeliveryState | undefined> {
  const delivery = await inPartnerScope(db, partnerId, (scoped) =>
    scoped
      .selectFrom('deliveries')
      .select('state')
      .where('delivery_id', '=', deliveryId)
      .where('partner_id', '=', partnerId)
      .executeTakeFirst(),
  );
  return delivery?.state;
}

/** The partner's delivery's dead letters in callback-dlq, where the log says they are. */
export async function callbackDeadLettersOf(db: DeliveryLogDb, partnerId: string, deliveryId: string): Promise<DeadLetterPlace[]> {
  return inPartnerScope(db, partnerId, (scoped) =>
    scoped
      .selectFrom('dead_letters')
      .select(['source_partition', 'source_offset', 'dead_lettered_at'])
      .where('subject_id', '=', deliveryId)
      .where('partner_id', '=', partnerId)
      .where('source_topic', '=', TopicNames.callbackDlq)
      .execute(),
  );
}
