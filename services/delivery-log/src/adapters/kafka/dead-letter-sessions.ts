/*
 * One DlqSession per dead-letter topic for the replica's lifetime, made on first use (attaching
 * registers the topic's schemas): the operator API lists and replays any of the three, a
 * partner's resend reads callback-dlq. A failed attach (the registry away) is tried again by the
 * next request rather than remembered.
 */
import { DlqSession, type DlqSessionParts, type DlqTopicChoice } from '@hookstream/dead-letters';

export class DeadLetterSessions {
  private readonly sessions = new Map<DlqTopicChoice, Promise<DlqSession>>();

  constructor(private readonly parts: DlqSessionParts) {}

  of(topic: DlqTopicChoice): Promise<DlqSession> {
    const known = this.sessions.get(topic);
    if (known) return known;
    const session = DlqSession.attach(this.parts, topic);
    this.sessions.set(topic, session);
    session.catch(() => this.sessions.delete(topic));
    return session;
  }
}
