/*
 * An operator lists a dead-letter topic's letters, as `hookstream dlq list` does (readDeadLetters
 * and the replay audit): how many the selection holds, how many of those were never replayed, and
 * the newest `limit` of them, newest first, each saying whether it was replayed.
 */
import { letterJson, readAudit, readDeadLetters, type DlqTopicChoice, type Selection } from '@hookstream/dead-letters';
import type { DeadLetterSessions } from '../adapters/kafka/dead-letter-sessions';

/** `selectionOf` runs once the topic's session is open: a topic that cannot be reached answers 503 before a filter is judged. */
export async function listDeadLetters(sessions: DeadLetterSessions, topic: DlqTopicChoice, selectionOf: () => Selection, limit: number) {
  const session = await sessions.of(topic);
  const selection = selectionOf();
  const [{ selected }, audit] = await Promise.all([readDeadLetters(session, selection, { keepRecords: false }), readAudit(session)]);
  const newest = selected.slice(-limit).reverse();
  return {
    topic: session.topicName(session.letters.source),
    selected: selected.length,
    not_replayed: selected.filter(({ letter }) => !audit.isReplayed(letter)).length,
    dead_letters: newest.map(({ letter }) => letterJson(letter, audit.isReplayed(letter))),
  };
}
