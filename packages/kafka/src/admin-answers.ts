/*
 * What the admin's two clients answer, in Hookstream's terms (admin.ts): their failures as one kind
 * of error, KafkaAdminError; groups' states by Kafka's names; config entries as a map. Also loads
 * Platformatic's client, whose error classes the translation needs.
 */
import Module from 'node:module';
import { KafkaJS } from '@confluentinc/kafka-javascript';
import type * as Platformatic from '@platformatic/kafka' with { 'resolution-mode': 'import' };
import type { ResourceConfigs } from './types';

type PlatformaticModule = typeof Platformatic;

/**
 * Platformatic's client, loaded on first use. It is an ES module only: Node's require loads it
 * (require(esm)), jest's does not without --experimental-vm-modules, and jest replaces both
 * `require` and `createRequire` with its own; a module object's `require` stays Node's.
 */
let platformaticModule: PlatformaticModule | undefined;
export function platformatic(): PlatformaticModule {
  platformaticModule ??= new Module(__filename).require(require.resolve('@platformatic/kafka')) as PlatformaticModule;
  return platformaticModule;
}

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

interface ErrorLike {
  message?: unknown;
  code?: unknown;
  apiCode?: unknown;
  errors?: unknown;
  partitions?: Array<{ error?: unknown }>;
  cause?: unknown;
}

/** The first error in `error`'s tree (itself, what it aggregates, its cause) that `match` accepts. */
function findIn(error: unknown, match: (e: ErrorLike) => boolean, depth = 0): ErrorLike | undefined {
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
 * A client's failure as a KafkaAdminError: librdkafka's errors (also inside its aggregates) keep
 * their code; Platformatic's protocol errors carry Kafka's code, their network failures and
 * timeouts become librdkafka's codes for those. Anything else (a bug) is left as it is.
 */
export function asAdminError(error: unknown): unknown {
  if (error instanceof KafkaAdminError) return error;
  const message = (e: ErrorLike) => String(e.message);
  // librdkafka's aggregates carry a code of their own (unknown): the one of a failure inside says more.
  const librdkafka =
    findIn(error, (e) => typeof e.code === 'number' && e.code !== codes.ERR_UNKNOWN) ?? findIn(error, (e) => typeof e.code === 'number');
  if (librdkafka) return new KafkaAdminError(message(librdkafka), librdkafka.code as number, error);
  const isPlatformatic = (e: ErrorLike) => typeof e.code === 'string' && e.code.startsWith('PLT_KFK');
  if (!findIn(error, isPlatformatic)) return error;
  const protocol = findIn(error, (e) => typeof e.apiCode === 'number');
  if (protocol) return new KafkaAdminError(message(protocol), protocol.apiCode as number, error);
  const unknownTopic = findIn(error, (e) => /^Unknown topic /.test(String(e.message)));
  if (unknownTopic) return new KafkaAdminError(message(unknownTopic), codes.ERR_UNKNOWN_TOPIC_OR_PART, error);
  const timeout = findIn(error, (e) => e instanceof platformatic().TimeoutError); // whose code says "network"
  if (timeout) return new KafkaAdminError(message(timeout), codes.ERR__TIMED_OUT, error);
  const network = findIn(error, (e) => e.code === 'PLT_KFK_NETWORK');
  if (network) return new KafkaAdminError(message(network), codes.ERR__TRANSPORT, error);
  return new KafkaAdminError(message(error as ErrorLike), codes.ERR_UNKNOWN, error);
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
