/* What a test event reads back (domain/send-test-event.ts): its one attempt, once the projection wrote it. */
import type { TestAttempt } from '../../../domain/send-test-event';
import type { DeliveryLogDb } from '../tables';

export async function testAttemptOf(db: DeliveryLogDb, deliveryId: string, partnerId: string): Promise<TestAttempt | undefined> {
  return db
    .selectFrom('delivery_attempts')
    .select(['outcome', 'http_status', 'latency_ms', 'error_class', 'response_excerpt', 'request_headers'])
    .where('delivery_id', '=', deliveryId)
    .where('partner_id', '=', partnerId)
    .orderBy('recorded_at')
    .limit(1)
    .executeTakeFirst();
}
