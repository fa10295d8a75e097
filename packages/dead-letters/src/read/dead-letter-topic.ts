import { type AvroCodec } from '@hookstream/kafka';
import { type Message } from '@hookstream/kafka';
import { type Partner } from '@hookstream/partners';
import type { DeadLetter, DlqRecord } from './dead-letter';

/** The --topic choices; each names one dead-letter topic with its adapter (dead-letter-topics.ts). */
export type DlqTopicChoice = 'callback' | 'policy-status' | 'documents';

/** What an adapter needs: the codec (every schema it names registered) and real topic names. */
export interface LetterCodecs {
  codec: AvroCodec;
  /** The real name (TOPIC_PREFIX + logical). */
  topicName: (logical: string) => string;
}

/** Everything `dlq show` prints about one dead letter beyond its view, as the adapter knows it. */
export interface LetterDetails {
  /** Every header, as text (binary Spring headers as numbers). */
  headers: Record<string, string>;
  /** The retry history the record carries (callbacks): first and last failure, where it was first read. */
  history: Record<string, string | number | null>;
  /** The body as a replay would have it sent now, per endpoint, or why none would be. */
  bodies: Array<{ endpoint: string; url: string | null; body: string | null; note: string }>;
  /** Where to look up its attempts on callback-outcomes: by delivery id or by event id. */
  outcomesOf: { field: 'delivery_id' | 'event_id'; id: string; policyNumber: string } | null;
}

/**
 * One dead-letter topic as `hookstream dlq` sees it: how its records decode into the common view,
 * what a replay writes, and what `show` says. A third topic (documents) is one more of these.
 */
export interface DeadLetterTopic {
  readonly choice: DlqTopicChoice;
  /** Logical name of the dead-letter topic. */
  readonly source: string;
  /** Logical name of the topic a replay re-queues to. */
  readonly target: string;
  /** Logical names of the topics whose value schemas it decodes or encodes with. */
  readonly schemaTopics: readonly string[];
  /** Whether latest-wins ordering can make a dead letter superseded (then replay reads callback-requests' versions). */
  readonly ordered: boolean;
  /** The common view of one record; an undecodable one says so (it never throws for bad bytes). */
  decode(record: DlqRecord): Promise<DeadLetter>;
  /** The record a replay writes to `target` for this dead letter (letter.unreplayable is null). */
  requeue(letter: DeadLetter, record: DlqRecord, replay: { replayCount: number; replayId: string }): Message;
  /** What `show` prints beyond the view, with the partner as partner-config has it now. */
  details(letter: DeadLetter, record: DlqRecord, partner: Partner | undefined): Promise<LetterDetails>;
}

/** Headers every re-queued record carries besides the topic's own, to trace it back. */
export const ReplayHeaders = {
  /** The replay run (its audit records share it). */
  replayId: 'hookstream-replay-id',
  /** The dead letter it came from: `<topic> <partition>:<offset>`. */
  replayedFrom: 'hookstream-replayed-from',
} as const;
