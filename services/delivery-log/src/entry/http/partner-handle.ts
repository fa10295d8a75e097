/* What a partner route is given to reach the store: the caller's handle (adapters/store/partner-store.ts) with its use cases. */
import type { PartnerScope } from '../../adapters/store/partner-store';
import type { DeadLetterRecovery } from '../../domain/recover-dead-letters';
import type { DeliveryResender } from '../../domain/resend-delivery';
import type { DeliveryRetrier } from '../../domain/retry-delivery';
import type { FailingDeliveriesRetry } from '../../domain/retry-failing-deliveries';
import type { SelfServicePlaces } from '../../domain/self-service';
import type { SubscriptionStore } from '../../domain/manage-notifications';
import type { NotificationList } from '../../adapters/store/notification-subscriptions';
import type { TestEventResult, TestStatus } from '../../domain/send-test-event';

/** A partner's use cases, built (main.ts) on stores bound to it. */
export interface PartnerUseCases {
  resender: DeliveryResender;
  /** A partner's resend of its dead letters since a time (recover-dead-letters.ts). */
  recovery: DeadLetterRecovery;
  retrier: DeliveryRetrier;
  /** Retries every failing delivery of one endpoint now, each through `retrier` (retry-failing-deliveries.ts). */
  failingRetry: FailingDeliveriesRetry;
  /** Sends a test event to one of the partner's endpoints (domain/send-test-event.ts). */
  sendTestEvent: (endpointId: string, status: TestStatus) => Promise<TestEventResult>;
  /** The places under its self-service limits (self-service.ts). */
  places: SelfServicePlaces;
  /** Its notification subscription and the notifications sent to it (manage-notifications.ts). */
  notifications: SubscriptionStore & NotificationList;
}

/** A partner's handle on the store: its use cases and scoped reads; only forPartner makes one. */
export type PartnerHandle = PartnerScope<PartnerUseCases>;

/** The caller's handle on the store: the only way a partner route reaches it. */
export type ForPartner = (partnerId: string) => PartnerHandle;
