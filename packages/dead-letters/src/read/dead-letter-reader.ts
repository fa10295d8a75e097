import { ReplayRefused } from '../replay/replay-refused';
import { type DeadLetter, type DlqRecord } from './dead-letter';
import type { DlqSession } from '../dlq-session';
import { isSelected, NamedIds, type Selection } from './selection';
import { scanTopic } from './topic-scan';

export interface SelectedLetter {
  letter: DeadLetter;
  /** The record as read, when asked for (show, replay, export need it; list does not). */
  record?: DlqRecord;
}

export interface DeadLetters {
  /** The selected dead letters, oldest first. */
  selected: SelectedLetter[];
  /** Ids named by --delivery-id / --event-id that no dead letter of the topic carries. */
  unseen: ReturnType<NamedIds['unseen']>;
}

/**
 * Reads the chosen dead-letter topic (from --since when given: records are in time order per
 * partition) and keeps what `selection` selects, decoded into the common view. Nothing is
 * deleted or committed: dead letters stay as they are for their retention (30 days).
 */
export async function readDeadLetters(session: DlqSession, selection: Selection, options: { keepRecords: boolean }): Promise<DeadLetters> {
  const { letters } = session;
  const selected: SelectedLetter[] = [];
  const named = new NamedIds(selection);
  const partitions = await scanTopic({
    kafka: session.kafka,
    logger: session.logger,
    topic: session.topicName(letters.source),
    ...(selection.since === undefined ? {} : { fromTimestamp: selection.since }),
    onRecords: async (records) => {
      for (const record of records) {
        const letter = await letters.decode(record);
        named.see(letter);
        if (isSelected(letter, selection)) selected.push(options.keepRecords ? { letter, record } : { letter });
      }
    },
  });
  const missing = selection.offsets?.find((range) => range.partition >= partitions);
  if (missing) {
    throw new ReplayRefused(
      `--offsets: ${session.topicName(letters.source)} has no partition ${missing.partition} (it has ${partitions}: 0 to ${partitions - 1})`,
    );
  }
  selected.sort((a, b) => byTime(a.letter, b.letter));
  return { selected, unseen: named.unseen() };
}

function byTime(a: DeadLetter, b: DeadLetter): number {
  if (a.deadLetteredAt !== b.deadLetteredAt) return a.deadLetteredAt - b.deadLetteredAt;
  if (a.partition !== b.partition) return a.partition - b.partition;
  return BigInt(a.offset) < BigInt(b.offset) ? -1 : 1;
}
