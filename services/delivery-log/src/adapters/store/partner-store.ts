/*
 * A partner's one way into the log's store (the partner API's second guard by construction): the
 * partner API is given `forPartner` and no database, so each of its handlers reaches the store only
 * through the handle forPartner makes for the caller, whose reads all run in the partner's scope
 * (partner-scope.ts: PostgreSQL's row security), and whose use cases are built on stores bound to it.
 * The handle's type carries a brand no other module can name, so nothing else can pass for one.
 *
 * Each read opens its own scoped transaction rather than one per request: a test event waits
 * seconds for its attempt and a resend writes to Kafka between its reads, and a transaction held
 * across those would hold a pool connection (and its snapshot) the whole while.
 *
 * Its writes, the places under the partner's limits (resends, retries now, test events,
 * self-service changes) and retries now's claims, run in the partner's scope too, each a transaction
 * of its own: the role may write only those tables, and only the partner's rows (migration 0016).
 */
import type { RecoveryStore } from '../../domain/recover-dead-letters';
import type { ResendStore } from '../../domain/resend-delivery';
import type { RetryStore } from '../../domain/retry-delivery';
import type { FailingDeliveriesStore } from '../../domain/retry-failing-deliveries';
import type { SelfServicePlaces } from '../../domain/self-service';
import type { TestAttempt } from '../../domain/send-test-event';
import { failingDeliveriesStore } from './failing-deliveries-store';
import { partnerTransactions, type InTransaction } from './partner-scope';
import { testAttemptOf } from './queries/test-event-queries';
import { recoveryStore } from './recovery-store';
import { resendStore } from './resend-store';
import { ResendReservations } from './resend-reservations';
import { retryStore } from './retry-store';
import { selfServicePlaces } from './self-service-limits';
import { subscriptionStore, type NotificationList } from './notification-subscriptions';
import type { SubscriptionStore } from '../../domain/manage-notifications';
import type { DeliveryLogDb } from './tables';

/** Only this module can name it, so only forPartner's handles have it. */
declare const issuedByForPartner: unique symbol;

/** Runs `query` in the partner's scope, in a transaction of its own. */
export type ScopedRead = InTransaction;

/** The stores a partner's use cases are built on, bound to that partner. */
export interface PartnerStores {
  readonly partnerId: string;
  read: ScopedRead;
  resends: ResendStore;
  retries: RetryStore;
  /** An endpoint's failing deliveries, for retrying them all now (each then through `retries`). */
  failing: FailingDeliveriesStore;
  recoveries: RecoveryStore;
  places: SelfServicePlaces;
  /** Its notification subscription and notifications (migration 0018). */
  notifications: SubscriptionStore & NotificationList;
  testEvents: {
    reservations: ResendReservations;
    /** The test delivery's attempt, read in the partner's scope. */
    attemptOf(deliveryId: string): Promise<TestAttempt | undefined>;
  };
}

/** A partner's handle: its use cases (U) and its scoped reads, made only by the function partnerScopes returns. */
export type PartnerScope<U> = U & { readonly partnerId: string; readonly read: ScopedRead; readonly [issuedByForPartner]: true };

export interface PartnerStoreLimits {
  /** A partner's resends and retries now in an hour (DELIVERY_LOG_RESENDS_PER_HOUR). */
  resendsPerHour: number;
  /** A partner's test events in a minute (DELIVERY_LOG_TEST_EVENTS_PER_MINUTE). */
  testEventsPerMinute: number;
}

/**
 * forPartner: the handle for one partner, its use cases built by `useCases` on stores bound to it.
 * A handle is a few objects made per request; nothing is opened until one of its stores is used.
 */
export function partnerScopes<U extends object>(
  db: DeliveryLogDb,
  limits: PartnerStoreLimits,
  useCases: (stores: PartnerStores) => U,
): (partnerId: string) => PartnerScope<U> {
  return (partnerId) => {
    const read: ScopedRead = partnerTransactions(db, partnerId);
    const stores: PartnerStores = {
      partnerId,
      read,
      resends: resendStore(db, limits.resendsPerHour, partnerId),
      retries: retryStore(db, limits.resendsPerHour, partnerId),
      failing: failingDeliveriesStore(db, limits.resendsPerHour, partnerId),
      recoveries: recoveryStore(db, limits.resendsPerHour, partnerId),
      places: selfServicePlaces(read),
      notifications: subscriptionStore(read),
      testEvents: {
        reservations: new ResendReservations(read, limits.testEventsPerMinute, 'test-event', 60_000),
        attemptOf: (deliveryId) => testAttemptOf(db, deliveryId, partnerId),
      },
    };
    return { ...useCases(stores), partnerId, read } as PartnerScope<U>;
  };
}
