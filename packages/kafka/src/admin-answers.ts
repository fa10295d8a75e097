/*
 * What the admin's clients answer, in Hookstream's terms (admin.ts): their failures as one kind of
 * error, KafkaAdminError (librdkafka's here, Platformatic's in platformatic-admin.ts); groups'
 * states by Kafka's names; config entries as a map.
 */
import { KafkaJS } from '@confluentinc/kafka-javascript';
import type { ResourceConfigs } from './types';

export const codes = KafkaJS.ErrorCodes;
const codeNames = new Map(Object.entries(codes).map(([name, code]) => [code, name.replace(/^ERR_/, '')]));

/**
 * A failed admin request, from either client. `code` is Kafka's error code, or librdkafka's own
 * (negative) for a local failure: no broker reachable (-195), a timeout (-185). Producers' and
 * readers' errors carry the same codes, so isRetryableKafkaError reads them all alike.
 */
export class KafkaAdminError extends Error {
  override readonly name = 'KafkaAdminError';
  /** The code's name as librdkafka gives it ("TOPIC_ALREADY_EXISTS", "UNKNOWN_TOPIC_OR_PART", "_TRANSPORT"). */
  readonly type: string;

  constructor(
    message: string,
    readonly code: number,
    cause?: unknown,
  ) {
    super(message, cause === undefined ? undefined : { cause });
    this.type = codeNames.get(code) ?? 'UNKNOWN';
  }
}

export interface ErrorLike {
  message?: unknown;
  code?: unknown;
  apiCode?: unknown;
  errors?: unknown;
  partitions?: Array<{ error?: unknown }>;
  cause?: unknown;
}

/** The first error in `error`'s tree (itself, what it aggregates, its cause) that `match` accepts. */
export function findIn(error: unknown, match: (e: ErrorLike) => boolean, depth = 0): ErrorLike | undefined {
  if (typeof error !== 'object' || error === null || depth > 5) return undefined;
  const e = error as ErrorLike;
  if (match(e)) return e;
  const inner = [...(Array.isArray(e.errors) ? (e.errors as unknown[]) : []), ...(e.partitions ?? []).map((p) => p.error), e.cause];
  for (const one of inner) {
    const found = findIn(one, match, depth + 1);
    if (found) return found;
  }
  return undefined;
}

/**
 * librdkafka's failure as a KafkaAdminError: its errors (also inside its aggregates) keep their
 * code. Anything else (a bug) is left as it is. (Platformatic's: platformatic-admin.ts.)
 */
export function asAdminError(error: unknown): unknown {
  if (error instanceof KafkaAdminError) return error;
  // librdkafka's aggregates carry a code of their own (unknown): the one of a failure inside says more.
  const librdkafka =
    findIn(error, (e) => typeof e.code === 'number' && e.code !== codes.ERR_UNKNOWN) ?? findIn(error, (e) => typeof e.code === 'number');
  if (librdkafka) return new KafkaAdminError(String(librdkafka.message), librdkafka.code as number, error);
  return error;
}

/** Kafka's names of a consumer group's states, as the Java client gives them. */
export const GROUP_STATES: Record<number, string> = {
  [KafkaJS.ConsumerGroupStates.PREPARING_REBALANCE]: 'PreparingRebalance',
  [KafkaJS.ConsumerGroupStates.COMPLETING_REBALANCE]: 'CompletingRebalance',
  [KafkaJS.ConsumerGroupStates.STABLE]: 'Stable',
  [KafkaJS.ConsumerGroupStates.DEAD]: 'Dead',
  [KafkaJS.ConsumerGroupStates.EMPTY]: 'Empty',
};

/** Config entries with a value, by name. */
export function configsOf(configs: ReadonlyArray<{ name: string; value?: string | null }>): ResourceConfigs {
  return new Map(configs.flatMap(({ name, value }) => (typeof value === 'string' ? [[name, value] as const] : [])));
}

/**
 * A topic id as its base64 text, none for the zero id (a cluster without topic ids). The binding
 * sets `base64`, where its types say `base64str` (src/common.cc of @confluentinc/kafka-javascript 1.10.1).
 */
export function topicIdOf(id: { mostSignificantBits: bigint; leastSignificantBits: bigint; base64str?: string } | undefined): {
  topicId?: string;
} {
  if (!id || (id.mostSignificantBits === 0n && id.leastSignificantBits === 0n)) return {};
  const text = (id as { base64?: string }).base64 ?? id.base64str;
  return text ? { topicId: text } : {};
}
