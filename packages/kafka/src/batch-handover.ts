/*
 * One batch of a partition's lane handed to the run config's handler (GroupConsumer's lanes call
 * it, partition-lanes.ts): per batch or per record, as the config asks; the offset it resolved
 * last is stored for librdkafka's automatic commits unless the batch went stale meanwhile. A batch
 * that throws is read again after a backoff that grows with the lane's failures in a row.
 */
import type { Logger } from 'pino';
import { describeError } from '@hookstream/errors';
import { sleep } from '@hookstream/runtime';
import type { NativeGroupClient } from './native-clients';
import type { Lane } from './partition-lanes';
import type { Batch, ConsumerRunConfig } from './types';

/** How long a partition rests after its batch failed, at most. */
const MAX_BATCH_BACKOFF_MS = 1000;

export interface HandOverContext {
  /** The run config's handlers (set once the consumer runs). */
  runConfig: () => ConsumerRunConfig;
  logger: Logger;
  isRunning: () => boolean;
  /** Stores an offset for automatic commits; absent when offsets are committed otherwise. */
  storeOffset?: (lane: Lane, offset: string) => void;
}

/** Hands `batch` over; returns the offset resolved last, if any, and whether the handler failed. */
export async function handOverBatch(
  context: HandOverContext,
  lane: Lane,
  batch: Batch,
  isStale: () => boolean,
): Promise<{ resolved?: string; failed: boolean }> {
  const config = context.runConfig();
  let resolved: string | undefined;
  try {
    if (config.eachBatch) {
      const resolveOffset = (offset: string) => void (resolved = offset);
      await config.eachBatch({ batch, resolveOffset, isStale, isRunning: context.isRunning });
      if (config.eachBatchAutoResolve ?? true) resolved = batch.messages.at(-1)?.offset;
    } else {
      for (const message of batch.messages) {
        if (!context.isRunning() || isStale()) break;
        await config.eachMessage!({ topic: lane.topic, partition: lane.partition, message });
        resolved = message.offset;
      }
    }
    if (resolved !== undefined && !isStale()) context.storeOffset?.(lane, resolved);
    return { ...(resolved !== undefined ? { resolved } : {}), failed: false };
  } catch (error) {
    context.logger.warn({ topic: lane.topic, partition: lane.partition, err: describeError(error) }, 'batch failed; it is read again');
    await sleep(Math.min(MAX_BATCH_BACKOFF_MS, 100 * 2 ** lane.failures));
    return { ...(resolved !== undefined ? { resolved } : {}), failed: true };
  }
}

/** Marks a lane's records up to an offset read, for librdkafka's automatic commits. */
export function offsetStorer(native: Pick<NativeGroupClient, 'offsetsStore'>, logger: Logger): (lane: Lane, offset: string) => void {
  return (lane, offset) => {
    try {
      native.offsetsStore([{ topic: lane.topic, partition: lane.partition, offset: Number(offset) + 1 }]);
    } catch (error) {
      // The partition was revoked meanwhile: its next owner reads from the last commit.
      logger.debug({ topic: lane.topic, partition: lane.partition, err: describeError(error) }, 'offset not stored');
    }
  };
}
