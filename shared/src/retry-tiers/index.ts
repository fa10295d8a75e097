export {
  RetryHeaders,
  dueAtOf,
  headerCount,
  headerText,
  originHeaders,
  originOf,
  retryHeaders,
  retryHistoryOf,
  type Origin,
  type RetryHistory,
  type TierEntry,
} from './retry-headers';
export { RetryTiers } from './retry-tiers';
export { nextTierAfterFailure, retryScheduleMs, tierAtLeast, type NextTier } from './tier-schedule';
export {
  TieredDispositionWriter,
  type DeadLetterReason,
  type DispositionTopics,
  type TieredDispositionWriterOptions,
  type UndecodableRecords,
} from './disposition-writer';
