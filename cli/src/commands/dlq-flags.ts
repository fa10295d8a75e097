import { DLQ_TOPIC_CHOICES, type DlqTopicChoice, type OffsetRange, type Selection } from '@hookstream/dead-letters';
import { CommanderError, type Command } from 'commander';
import { ExitCodes, InputRefused } from '../exit-codes';

/**
 * The flags of `hookstream dlq`: each parsed here, before anything connects, and a bad one
 * refused naming the flag (exit 2, nothing read or written).
 */

export interface FilterFlags {
  topic?: string;
  partner?: string;
  since?: string;
  until?: string;
  errorClass?: string;
  lastStatus?: string;
  policy?: string;
  eventId?: string;
  deliveryId?: string;
  offsets?: string;
  undecodable?: boolean;
  json?: boolean;
}

/** Adds the --topic flag and the filters every selecting command takes. */
export function addFilterOptions(command: Command): Command {
  return addTopicOption(command)
    .option('--partner <ids>', 'partner id(s), comma-separated')
    .option('--since <time>', 'dead-lettered at or after: ISO 8601 (2026-11-23T08:00:00Z) or a duration ago (90m, 2h, 1d, 1h30m)')
    .option('--until <time>', 'dead-lettered before: ISO 8601 or a duration ago')
    .option('--error-class <classes>', 'failure class(es): HTTP_STATUS, TIMEOUT, CIRCUIT_OPEN, UNKNOWN_PARTNER, DECODE_ERROR …')
    .option('--last-status <codes>', "the partner's last HTTP status(es), e.g. 500,503")
    .option('--policy <numbers>', 'policy number(s)')
    .option('--event-id <ids>', 'event id(s)')
    .option('--delivery-id <ids>', 'delivery id(s)')
    .option('--offsets <ranges>', 'partition:from-to (inclusive) or partition:offset, comma-separated: 0:10-20,3:7')
    .option('--undecodable', 'only records that cannot be decoded');
}

export function addTopicOption(command: Command, fallback: DlqTopicChoice | undefined = 'callback'): Command {
  const what = `dead-letter topic: ${DLQ_TOPIC_CHOICES.map((c) => `${c} (${c === 'documents' ? 'document' : c}-dlq)`).join(' or ')}`;
  return fallback === undefined ? command.option('--topic <name>', what) : command.option('--topic <name>', what, fallback);
}

/** A usage error commander finds (an unknown flag, a missing value) exits 2 like every refusal of these commands. */
export function refuseUsageErrors(command: Command): Command {
  return command.exitOverride((error) => {
    throw error.exitCode === 1 ? new CommanderError(ExitCodes.REFUSED, error.code, error.message) : error;
  });
}

export function topicFlag(value: string | undefined): DlqTopicChoice {
  const choice = value ?? 'callback';
  if (!(DLQ_TOPIC_CHOICES as string[]).includes(choice)) {
    throw new InputRefused(`--topic: "${choice}" is not a dead-letter topic; use ${DLQ_TOPIC_CHOICES.join(' or ')}`);
  }
  return choice as DlqTopicChoice;
}

/** The selection the filter flags describe. */
export function selectionFromFlags(flags: FilterFlags, now = Date.now()): Selection {
  const selection: Selection = {};
  const set = <K extends keyof Selection>(key: K, value: Selection[K] | undefined) => {
    if (value !== undefined) selection[key] = value;
  };
  set('partners', listFlag('partner', flags.partner));
  set('since', timeFlag('since', flags.since, now));
  set('until', timeFlag('until', flags.until, now));
  set('errorClasses', listFlag('error-class', flags.errorClass));
  set(
    'lastStatuses',
    listFlag('last-status', flags.lastStatus)?.map((s) => httpStatus(s)),
  );
  set('policies', listFlag('policy', flags.policy));
  set('eventIds', listFlag('event-id', flags.eventId));
  set('deliveryIds', listFlag('delivery-id', flags.deliveryId));
  set('offsets', flags.offsets === undefined ? undefined : offsetsFlag(flags.offsets));
  if (flags.undecodable) selection.undecodable = true;
  if (selection.since !== undefined && selection.until !== undefined && selection.since >= selection.until) {
    throw new InputRefused(
      `--since (${new Date(selection.since).toISOString()}) must be before --until (${new Date(selection.until).toISOString()})`,
    );
  }
  return selection;
}

function listFlag(name: string, value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const values = value
    .split(',')
    .map((v) => v.trim())
    .filter((v) => v.length > 0);
  if (values.length === 0) throw new InputRefused(`--${name}: give at least one value`);
  return values;
}

function httpStatus(value: string): number {
  if (!/^[1-5]\d\d$/.test(value)) throw new InputRefused(`--last-status: "${value}" is not an HTTP status (100 to 599)`);
  return Number(value);
}

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** Epoch ms of an ISO 8601 date-time (or date), or of `now` minus a duration such as 2h or 1h30m. */
export function timeFlag(name: string, value: string | undefined, now: number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^(\d+(ms|s|m|h|d|w))+$/.test(text)) {
    let ms = 0;
    for (const [, amount, unit] of text.matchAll(/(\d+)(ms|s|m|h|d|w)/g)) ms += Number(amount) * UNIT_MS[unit!]!;
    return now - ms;
  }
  const iso = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/.test(text) ? Date.parse(text) : NaN;
  if (Number.isNaN(iso)) {
    throw new InputRefused(
      `--${name}: "${value}" is neither an ISO 8601 date-time (2026-11-23T08:00:00Z) nor a duration (90m, 2h, 1d, 1h30m)`,
    );
  }
  return iso;
}

/** `P:FROM-TO` or `P:OFFSET`, comma-separated. */
export function offsetsFlag(value: string): OffsetRange[] {
  const ranges = listFlag('offsets', value)!;
  return ranges.map((range) => {
    const match = /^(\d+):(\d+)(?:-(\d+))?$/.exec(range);
    if (!match) throw new InputRefused(`--offsets: "${range}" is not partition:from-to or partition:offset (e.g. 0:10-20 or 3:7)`);
    const [, partition, from, to] = match;
    const range_: OffsetRange = { partition: Number(partition), from: BigInt(from!), to: BigInt(to ?? from!) };
    if (range_.to < range_.from) throw new InputRefused(`--offsets: "${range}" ends before it starts`);
    return range_;
  });
}

/** --rate: records per second, `50` or `50/s`. */
export function rateFlag(value: string): number {
  const match = /^(\d+(?:\.\d+)?)(?:\/s)?$/.exec(value.trim());
  const rate = match ? Number(match[1]) : NaN;
  if (!(rate > 0 && rate <= 10_000))
    throw new InputRefused(`--rate: "${value}" is not a rate such as 50/s (more than 0, at most 10000 per second)`);
  return rate;
}

/** --limit: a whole number of at least 1. */
export function limitFlag(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new InputRefused(`--limit: "${value}" is not a whole number of at least 1`);
  return Number(value);
}
