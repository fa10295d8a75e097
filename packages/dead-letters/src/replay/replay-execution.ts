import { sleepUnlessAborted } from '@hookstream/runtime';
import { describeError } from '@hookstream/errors';
import { TopicNames, withTraceContextOf, type Message } from '@hookstream/kafka';
import { auditEntryFor, type AuditEntry } from '../audit/audit-trail';
import type { DlqSession } from '../dlq-session';
import type { PreparedReplay } from './replay-preparation';
import { ReplayPacing } from './replay-pacing';
import type { ReplayDecision } from './replay-plan';
import { isFenced, type ReplayWrite, type ReplayWriter } from './replay-writer';

/** At most this many re-queued records (and their audit records) in one transaction. */
const MAX_PER_TRANSACTION = 100;

/** What a run did with each selected dead letter. */
export interface ReplayResult {
  /** Final: 'replayed' only once its transaction committed; 'failed' with the reason otherwise. */
  decisions: ReplayDecision[];
  /** Dead letters a Ctrl-C left unattempted (no audit written for them). */
  interrupted: ReplayDecision[];
}

export interface ReplayExecution {
  session: DlqSession;
  writer: ReplayWriter;
  prepared: PreparedReplay;
  ratePerSecond: number;
  /** Told how many more dead letters were dealt with (the progress bar). */
  onProgress: (done: number) => void;
  /** Aborted by Ctrl-C: the run stops after the transaction in flight. */
  signal: AbortSignal;
  now?: () => number;
}

/**
 * Writes a prepared replay: first the audit records of what is skipped or fails (nothing to
 * pace), then the re-queues at --rate, each batch and its audit records in one transaction. A
 * failed transaction stops the run: Kafka failing or a later run having fenced this one, going on
 * would not help. What was not written then is reported failed, with a best-effort audit.
 */
export async function executeReplay(execution: ReplayExecution): Promise<ReplayResult> {
  const { session, writer, prepared, signal } = execution;
  const now = execution.now ?? Date.now;
  const topic = session.topicName(TopicNames.dlqReplayAudit);
  const encode = (entry: AuditEntry) => session.codec.encode(topic, entry);
  const writeOf = (decision: PreparedReplay['decisions'][number]): ReplayWrite => ({
    audit: { key: auditIdKey(decision), entry: auditEntryFor(prepared.run, decision, now()) },
    ...(decision.outcome === 'replayed'
      ? {
          requeue: inTraceOfLetter(
            session.letters.requeue(decision.letter, decision.record, {
              replayCount: decision.replayCount,
              replayId: prepared.run.replayId,
            }),
            decision.record.headers,
          ),
        }
      : {}),
  });

  const done: ReplayDecision[] = [];
  const toReplay = prepared.decisions.filter((d) => d.outcome === 'replayed');
  const notReplayed = prepared.decisions.filter((d) => d.outcome !== 'replayed');
  let remaining = [...toReplay];
  let stopped: string | undefined;
  try {
    for (let i = 0; i < notReplayed.length; i += MAX_PER_TRANSACTION) {
      const chunk = notReplayed.slice(i, i + MAX_PER_TRANSACTION);
      await writer.write(chunk.map(writeOf), encode);
      done.push(...chunk);
      execution.onProgress(chunk.length);
    }
    const pacing = new ReplayPacing(execution.ratePerSecond, now, (ms) => sleepUnlessAborted(ms, signal));
    while (remaining.length > 0 && !signal.aborted) {
      const count = await pacing.take(Math.min(remaining.length, MAX_PER_TRANSACTION));
      const batch = remaining.slice(0, count);
      await writer.write(batch.map(writeOf), encode);
      remaining = remaining.slice(count);
      done.push(...batch);
      execution.onProgress(batch.length);
    }
  } catch (error) {
    if (!signal.aborted) stopped = describeError(error);
    if (stopped !== undefined && isFenced(error))
      stopped = `another \`hookstream dlq replay\` of ${session.letters.source} took over (${stopped})`;
  }
  const unwritten = prepared.decisions.filter((d) => !done.includes(d));
  if (stopped === undefined) return { decisions: done, interrupted: unwritten };

  // The run stopped on an error: everything not written is failed, audited as such if Kafka lets us.
  const failed = unwritten.map((d) => ({
    ...d,
    outcome: 'failed' as const,
    detail: `not replayed: the run stopped when a Kafka transaction failed (${stopped})`,
  }));
  await writer.write(failed.map(writeOf), encode).catch(() => undefined);
  return { decisions: [...done, ...failed], interrupted: [] };
}

/** The audit record's key: the delivery (or event) id, else the coordinates. */
function auditIdKey(decision: ReplayDecision): string {
  return decision.letter.deliveryId ?? decision.letter.eventId ?? `${decision.letter.partition}:${decision.letter.offset}`;
}

/**
 * The re-queued record in the trace of the dead letter it replays (docs/tracing.md): the policy
 * event's trace goes on through the replay to the attempts it makes, whoever replays it (the CLI,
 * which traces nothing, or the operator API, whose request span would otherwise become its parent).
 */
function inTraceOfLetter(requeue: Message, letterHeaders: Record<string, Buffer>): Message {
  const headers = withTraceContextOf(requeue.headers, letterHeaders);
  return headers === requeue.headers ? requeue : { ...requeue, headers };
}
