import { type DeadLetter } from './dead-letter';

/**
 * Which dead letters a `hookstream dlq` command works on: every filter given must hold (AND);
 * a filter with several values holds when any of them does (OR). An absent filter selects all.
 */
export interface Selection {
  partners?: string[];
  /** Dead-lettered at or after (epoch ms). */
  since?: number;
  /** Dead-lettered before (epoch ms). */
  until?: number;
  errorClasses?: string[];
  lastStatuses?: number[];
  policies?: string[];
  eventIds?: string[];
  deliveryIds?: string[];
  /** Delivery or event ids: a record carrying either (what `show` is given). */
  anyIds?: string[];
  /** Inclusive offset ranges per partition. */
  offsets?: OffsetRange[];
  /** Only records that cannot be decoded. */
  undecodable?: boolean;
}

export interface OffsetRange {
  partition: number;
  from: bigint;
  /** Inclusive. */
  to: bigint;
}

const anyOf = <T>(wanted: T[] | undefined, actual: T | null): boolean =>
  wanted === undefined || (actual !== null && wanted.includes(actual));

/** Whether `letter` is selected. */
export function isSelected(letter: DeadLetter, selection: Selection): boolean {
  if (selection.since !== undefined && letter.deadLetteredAt < selection.since) return false;
  if (selection.until !== undefined && letter.deadLetteredAt >= selection.until) return false;
  if (selection.undecodable && letter.undecodable === null) return false;
  if (selection.offsets && !inOffsets(letter, selection.offsets)) return false;
  return (
    anyOf(selection.partners, letter.partnerId) &&
    // The class it was dead-lettered for, or its last attempt's: 500s until the circuit opened are HTTP_STATUS too.
    (anyOf(selection.errorClasses, letter.errorClass) || anyOf(selection.errorClasses, letter.lastAttemptErrorClass)) &&
    anyOf(selection.lastStatuses, letter.lastHttpStatus) &&
    anyOf(selection.policies, letter.policyNumber) &&
    anyOf(selection.eventIds, letter.eventId) &&
    anyOf(selection.deliveryIds, letter.deliveryId) &&
    (selection.anyIds === undefined || anyOf(selection.anyIds, letter.deliveryId) || anyOf(selection.anyIds, letter.eventId))
  );
}

/**
 * Single offsets (letters chosen one by one, up to a thousand) are looked up in a set made once per
 * list, not compared one by one with every letter read: a topic of n letters costs n lookups, not
 * n × chosen. Ranges of more than one offset are few, and compared.
 */
const singlesOf = new WeakMap<OffsetRange[], { singles: Set<string>; ranges: OffsetRange[] }>();

function inOffsets(letter: DeadLetter, offsets: OffsetRange[]): boolean {
  let index = singlesOf.get(offsets);
  if (!index) {
    const singles = new Set(offsets.filter((r) => r.from === r.to).map((r) => `${r.partition}:${r.from}`));
    index = { singles, ranges: offsets.filter((r) => r.from !== r.to) };
    singlesOf.set(offsets, index);
  }
  return index.singles.has(`${letter.partition}:${BigInt(letter.offset)}`) || index.ranges.some((range) => inRange(letter, range));
}

function inRange(letter: DeadLetter, range: OffsetRange): boolean {
  if (letter.partition !== range.partition) return false;
  const offset = BigInt(letter.offset);
  return offset >= range.from && offset <= range.to;
}

/** The selection as plain JSON (for the audit's selector_json and --json output): only the filters given. */
export function describeSelection(selection: Selection): Record<string, unknown> {
  const described: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(selection)) {
    if (value === undefined) continue;
    if (name === 'since' || name === 'until') described[name] = new Date(value as number).toISOString();
    else if (name === 'offsets') {
      described[name] = (value as OffsetRange[]).map((r) => `${r.partition}:${r.from}-${r.to}`);
    } else described[name] = value;
  }
  return described;
}

/**
 * The ids the operator named (--delivery-id, --event-id) that no dead letter of the topic carries,
 * whatever the other filters: a replay refuses them rather than quietly doing nothing for a
 * mistyped id. Shown every dead letter as it is read.
 */
export class NamedIds {
  private readonly deliveries: Set<string>;
  private readonly events: Set<string>;

  constructor(selection: Selection) {
    this.deliveries = new Set(selection.deliveryIds);
    this.events = new Set(selection.eventIds);
  }

  see(letter: DeadLetter): void {
    if (letter.deliveryId !== null) this.deliveries.delete(letter.deliveryId);
    if (letter.eventId !== null) this.events.delete(letter.eventId);
  }

  /** The first flag with ids never seen, and those ids. */
  unseen(): { flag: string; ids: string[] } | undefined {
    if (this.deliveries.size > 0) return { flag: '--delivery-id', ids: [...this.deliveries] };
    if (this.events.size > 0) return { flag: '--event-id', ids: [...this.events] };
    return undefined;
  }
}
