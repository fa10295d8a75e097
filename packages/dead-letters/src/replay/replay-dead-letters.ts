import { executeReplay, type ReplayResult } from './replay-execution';
import type { DlqSession } from '../dlq-session';
import { prepareReplay, type PreparedReplay, type ReplayRequest } from './replay-preparation';
import { ReplayWriter } from './replay-writer';

/**
 * Replaying dead letters, the one use case behind `hookstream dlq replay` and a partner's resend,
 * in its two steps: `prepare` fences any other run of the topic (its writer is opened before the
 * audit is read, so what the plan reads is final) and decides for each selected dead letter
 * (replay-plan.ts); `execute` writes the re-queues with their audit records in transactions at
 * the request's rate. Between the two the caller may show the plan and ask (the CLI's prompt).
 * A dry run prepares and writes nothing. `close` always.
 */
export class DeadLetterReplay {
  private constructor(
    private readonly session: DlqSession,
    private readonly request: ReplayRequest,
    private readonly writer: ReplayWriter | undefined,
    readonly prepared: PreparedReplay,
  ) {}

  static async prepare(session: DlqSession, request: ReplayRequest, options: { dryRun: boolean }): Promise<DeadLetterReplay> {
    const writer = options.dryRun ? undefined : await ReplayWriter.open(session);
    try {
      return new DeadLetterReplay(session, request, writer, await prepareReplay(session, request));
    } catch (error) {
      await writer?.close();
      throw error;
    }
  }

  /** Writes what was decided; `signal` stops it after the transaction in flight. */
  execute(options: { signal?: AbortSignal; onProgress?: (done: number) => void } = {}): Promise<ReplayResult> {
    if (!this.writer) throw new Error('a dry run writes nothing');
    return executeReplay({
      session: this.session,
      writer: this.writer,
      prepared: this.prepared,
      ratePerSecond: this.request.ratePerSecond,
      signal: options.signal ?? new AbortController().signal,
      onProgress: options.onProgress ?? (() => undefined),
    });
  }

  async close(): Promise<void> {
    await this.writer?.close();
  }
}
