/* What a test event reads back (domain/send-test-event.ts): its one attempt, once the projection wrote it, read in the partner's scope (partner-scope.ts). */
import type { TestAttempt } from '../../../domain/send-test-event';
import { inPartnerScope } from '../partner-scope';
import type { DeliveryLogDb } from '../tables';

export async function testAttemptOf(db: DeliveryLogDb, deliveryId: string, partnerId: string): Promise<TestAttempt | undefined> {
  return inPartnerScope(db, partnerId, (scoped) =>
    scoped
      .selectFrom('delivery_attempts')
      .select(['outcome', 'http_status', 'latency_ms', 'error_class', 'response_excerpt', 'request_headers'])
      .where('delivery_id', '=', deliveryId)
      .where('partner_id', '=', partnerId)
      .orderBy('recorded_at')
      .limit(1)
      .executeTakeFirst(),
  );
}
