import {
  readAudit,
  coordinatesOf,
  readDeadLetters,
  DlqSession,
  readOutcomes,
  readPartners,
  type CallbackOutcome,
  type Selection,
} from '@hookstream/dead-letters';
import { Command } from 'commander';
import { environmentWithStackEnv } from '../paths';
import { formatTable, printJson, printLine } from '../output';
import { NotFoundError } from '@hookstream/errors';
import { InputRefused } from '../exit-codes';
import { addTopicOption, offsetsFlag, topicFlag } from './dlq-flags';
import { letterJson } from './dlq-output';

/** Outcomes are read from a little before the delivery was built: clocks of the writers differ a little. */
const OUTCOMES_MARGIN_MS = 60 * 60_000;

export function showCommand(): Command {
  return addTopicOption(
    new Command('show').description(
      'everything about one dead letter: the body a replay would send now, headers, why it failed, its retry history, every attempt on callback-outcomes, its replays',
    ),
  )
    .argument('<id>', 'a delivery id (policy-status: an event id), or partition:offset')
    .option('--json', 'one JSON document, for scripts')
    .action(async (id: string, flags: { topic?: string; json?: boolean }) => {
      const choice = topicFlag(flags.topic);
      const target = id.trim();
      if (target === '') throw new InputRefused('<id>: give a delivery id, an event id or partition:offset');
      const selection: Selection = /^\d+:\d+$/.test(target) ? { offsets: offsetsFlag(target) } : { anyIds: [target] };
      const session = await DlqSession.open(choice, environmentWithStackEnv());
      const topic = session.topicName(session.letters.source);
      const { selected } = await readDeadLetters(session, selection, { keepRecords: true });
      const newest = selected.at(-1);
      if (!newest) throw new NotFoundError('dead letter', `no dead letter in ${topic} is ${target} (see \`hookstream dlq list\`)`);
      const { letter, record } = newest;
      const [partners, audit] = await Promise.all([readPartners(session), readAudit(session)]);
      const details = await session.letters.details(
        letter,
        record!,
        letter.partnerId === null ? undefined : partners.get(letter.partnerId),
      );
      const outcomes = details.outcomesOf
        ? await readOutcomes(session, details.outcomesOf, (letter.createdAt ?? letter.deadLetteredAt) - OUTCOMES_MARGIN_MS)
        : [];
      const replays = audit.about(letter);
      const shown = {
        dead_letter: letterJson(letter, audit.isReplayed(letter)),
        unreplayable: letter.unreplayable,
        bodies: details.bodies,
        headers: details.headers,
        history: details.history,
        outcomes: outcomes.map(outcomeJson),
        audit: replays.map((e) => ({ ...e, started_at: iso(e.started_at), replayed_at: iso(e.replayed_at) })),
        other_dead_letters: selected.slice(0, -1).map((s) => coordinatesOf(s.letter)),
      };
      if (flags.json) {
        printJson(shown);
        return;
      }
      printLine(`${topic} ${coordinatesOf(letter)}, dead-lettered at ${iso(letter.deadLetteredAt)}`);
      printLine(formatTable(Object.entries(shown.dead_letter).map(([k, v]) => [`  ${k}`, cell(v)])));
      if (letter.unreplayable) printLine(`  cannot be replayed: ${letter.unreplayable}`);
      printLine('\nwhy it failed, and its retry history');
      printLine(formatTable(Object.entries(details.history).map(([k, v]) => [`  ${k}`, cell(v)])));
      for (const body of details.bodies) {
        printLine(`\nbody a replay would send now to endpoint ${body.endpoint}${body.url ? ` (${body.url})` : ''}: ${body.note}`);
        if (body.body !== null) printLine(body.body);
      }
      printLine('\nheaders');
      printLine(formatTable(Object.entries(details.headers).map(([k, v]) => [`  ${k}`, v])));
      printLine(`\nattempts on callback-outcomes${details.outcomesOf ? ` for ${details.outcomesOf.field} ${details.outcomesOf.id}` : ''}`);
      printLine(outcomes.length === 0 ? '  none' : outcomeTable(outcomes));
      printLine('\nreplays (dlq-replay-audit)');
      printLine(
        replays.length === 0
          ? '  none'
          : formatTable(
              replays.map((e) => [`  ${iso(e.replayed_at)}`, e.outcome, `by ${e.operator}`, `replay ${e.replay_count}`, e.reason]),
            ),
      );
      if (shown.other_dead_letters.length > 0) printLine(`\nalso dead-lettered earlier at ${shown.other_dead_letters.join(', ')}`);
    });
}

/** A field's value in the text output. */
function cell(value: unknown): string {
  if (value === null || value === undefined) return '-';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

function outcomeJson(o: CallbackOutcome): Record<string, unknown> {
  return {
    recorded_at: iso(o.recorded_at),
    delivery_id: o.delivery_id,
    endpoint_id: o.endpoint_id,
    attempt: o.attempt,
    outcome: o.outcome,
    http_status: o.http_status,
    error_class: o.error_class,
    latency_ms: o.latency_ms,
  };
}

function outcomeTable(outcomes: CallbackOutcome[]): string {
  return formatTable([
    ['  recorded at', 'attempt', 'outcome', 'http', 'error class', 'latency ms', 'delivery id'],
    ...outcomes.map((o) => [
      `  ${iso(o.recorded_at)}`,
      String(o.attempt),
      o.outcome,
      o.http_status === null ? '-' : String(o.http_status),
      o.error_class ?? '-',
      o.latency_ms === null ? '-' : String(Math.round(o.latency_ms)),
      o.delivery_id,
    ]),
  ]);
}
