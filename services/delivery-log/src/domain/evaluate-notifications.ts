/*
 * The evaluator (docs/notifications.md): every replica runs it on a timer, and for each partner
 * subscribed (and not switched off by an operator) judges each of its subjects now and records the
 * judgement. A subject whose state changed is a transition: the store lets exactly one evaluator
 * win it, whichever replica, and that one enqueues its notification in the same transaction, so a
 * transition is notified once, never once per replica, and never lost to a crash in between.
 */
import type { Partner } from '@hookstream/partners';
import { calmStateOf, notificationBody, notificationOf, type NotificationType, type Observation } from './notification-events';

/** A partner's subscription as the evaluator and the sender read it. */
export interface NotificationSubscription {
  partnerId: string;
  url: string;
  events: NotificationType[];
  operatorOff: boolean;
}

/** The notification a won transition enqueues. */
export interface NewNotification {
  id: string;
  type: NotificationType;
  body: string;
}

/** What the evaluator needs of the store (adapters/store/notification-outbox.ts). */
export interface NotificationTransitions {
  /** The subscriptions to judge: every one an operator has not switched off. */
  judgedSubscriptions(): Promise<NotificationSubscription[]>;
  /** Each judged subject's state as last recorded (a plain read: only a subject whose state differs is decided under its lock). */
  recordedStates(partnerId: string): Promise<Map<string, string>>;
  /**
   * Records `observation` as its subject's state. When that changes it (this caller won the
   * transition), `decide` says what to notify, given the state left and whether the transition into
   * it was notified; that notification is enqueued in the same transaction, suppressed past the
   * partner's hourly bound. Returns the notification enqueued, if any.
   */
  transition(
    partnerId: string,
    observation: Observation,
    now: Date,
    decide: (from: string, fromNotified: boolean) => NewNotification | undefined,
  ): Promise<NewNotification | undefined>;
}

/** What the evaluator judges a partner's subjects by (adapters/store/queries/notification-observations.ts). */
export type ObserveSubjects = (partner: Partner, now: Date) => Promise<Observation[]>;

export interface EvaluatorDeps {
  transitions: NotificationTransitions;
  observe: ObserveSubjects;
  /** The partner directory: `ready` once it has read partner-config up to where it ended at start. */
  partners: { readonly ready: boolean; get(partnerId: string): Partner | undefined };
  newId: () => string;
}

/** One pass over every judged subscription; returns the notifications this replica enqueued. */
export async function evaluateNotifications(deps: EvaluatorDeps, now: Date): Promise<NewNotification[]> {
  const enqueued: NewNotification[] = [];
  // Before the directory is loaded a partner would look deleted or out of date: no judgement yet.
  if (!deps.partners.ready) return enqueued;
  for (const subscription of await deps.transitions.judgedSubscriptions()) {
    const partner = deps.partners.get(subscription.partnerId);
    if (!partner) continue;
    const status: Observation = {
      subject: 'partner',
      state: partner.status,
      data: { status: partner.status },
      revision: partner.revision,
    };
    const recorded = await deps.transitions.recordedStates(partner.partner_id);
    const observations = [status, ...(await deps.observe(partner, now))];
    // Most passes change nothing: those subjects cost no transaction and no lock.
    const changed = observations.filter((o) => (recorded.get(o.subject) ?? calmStateOf(o.subject)) !== o.state);
    for (const observation of changed) {
      const notification = await deps.transitions.transition(partner.partner_id, observation, now, (from, fromNotified) => {
        const type = notificationOf(observation.subject, from, observation.state, fromNotified);
        if (!type || !subscription.events.includes(type)) return undefined;
        const id = deps.newId();
        return { id, type, body: notificationBody({ type, id, occurredAt: now, partnerId: partner.partner_id, data: observation.data }) };
      });
      if (notification) enqueued.push(notification);
    }
  }
  return enqueued;
}
