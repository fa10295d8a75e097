/* The public surface of the group member: the component and what its user passes in. Everything else in this folder is its internals. */
export { GroupMember } from './group-member';
export {
  groupSessionOf,
  type BatchesMode,
  type ConcurrentMode,
  type ConsumedRecord,
  type FetchSettings,
  type GroupMemberMode,
  type GroupMemberOptions,
  type GroupSession,
  type PartitionState,
  type TransactionalMode,
} from './options';
export type { OutputRecord } from './member-transactions';
