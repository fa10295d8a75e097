import { readAudit, readDeadLetters, DlqSession, describeSelection, type DlqRecord } from '@hookstream/dead-letters';
import { Command } from 'commander';
import { environmentWithStackEnv } from '../paths';
import { printJson, printLine } from '../output';
import { auditCommand } from './dlq-audit';
import { addFilterOptions, limitFlag, refuseUsageErrors, selectionFromFlags, topicFlag, type FilterFlags } from './dlq-flags';
import { letterJson, letterTable } from './dlq-output';
import { replayCommand } from './dlq-replay';
import { showCommand } from './dlq-show';

const HELP = `
Dead letters are never deleted by these commands; they stay for the topic's retention (30 days).
Every flag error names the flag and exits 2 with nothing read or written. docs/dlq.md has the whole reference.

Examples:
  $ hookstream dlq list --since 2h --partner acme
  $ hookstream dlq show 0b7c5e2a-…                       (a delivery id, or partition:offset such as 3:1207)
  $ hookstream dlq replay --partner acme --since 2h --reason "acme fixed their TLS certificate" --dry-run
  $ hookstream dlq replay --partner acme --since 2h --reason "acme fixed their TLS certificate" --yes
  $ hookstream dlq audit --since 1d
  $ hookstream dlq export --undecodable --raw > undecodable.jsonl
  $ hookstream dlq list --topic policy-status --error-class UNKNOWN_PARTNER
  $ hookstream dlq list --topic documents --since 1d
`;

export function dlqCommand(): Command {
  const dlq = refuseUsageErrors(
    new Command('dlq')
      .description('inspect, replay and audit dead letters (callback-dlq, policy-status-dlq, document-dlq)')
      .addHelpText('after', HELP),
  );

  refuseUsageErrors(
    addFilterOptions(dlq.command('list').description('one line per dead letter, decoded, oldest first, and whether it was replayed')),
  )
    .option('--limit <n>', 'only the newest n of those selected')
    .option('--json', 'one JSON document, for scripts')
    .action(async (flags: FilterFlags & { limit?: string }) => {
      const selection = selectionFromFlags(flags);
      const limit = limitFlag(flags.limit);
      const session = await DlqSession.open(topicFlag(flags.topic), environmentWithStackEnv());
      const [{ selected }, audit] = await Promise.all([readDeadLetters(session, selection, { keepRecords: false }), readAudit(session)]);
      const rows = (limit === undefined ? selected : selected.slice(-limit)).map(({ letter }) => ({
        letter,
        replayed: audit.isReplayed(letter),
      }));
      const notReplayed = selected.filter(({ letter }) => !audit.isReplayed(letter)).length;
      const undecodable = selected.filter(({ letter }) => letter.undecodable !== null).length;
      const topic = session.topicName(session.letters.source);
      if (flags.json) {
        printJson({
          topic,
          selection: describeSelection(selection),
          selected: selected.length,
          not_replayed: notReplayed,
          undecodable,
          dead_letters: rows.map((r) => letterJson(r.letter, r.replayed)),
        });
        return;
      }
      if (rows.length > 0) printLine(letterTable(rows));
      const shown = rows.length < selected.length ? ` (the newest ${rows.length} shown)` : '';
      printLine(`${selected.length} dead letters selected in ${topic}${shown}: ${notReplayed} not replayed, ${undecodable} undecodable`);
    });

  refuseUsageErrors(
    addFilterOptions(
      dlq
        .command('export')
        .description('the selected dead letters as JSON lines on standard output; --raw: the records exactly as stored (base64)'),
    ),
  )
    .option('--raw', 'key, value and headers as base64, exactly as stored, for records that cannot be decoded too')
    .option('--json', 'one JSON array instead of JSON lines')
    .action(async (flags: FilterFlags & { raw?: boolean }) => {
      const selection = selectionFromFlags(flags);
      const session = await DlqSession.open(topicFlag(flags.topic), environmentWithStackEnv());
      const { selected } = await readDeadLetters(session, selection, { keepRecords: true });
      const topic = session.topicName(session.letters.source);
      const exported = selected.map(({ letter, record }) =>
        flags.raw ? rawRecordJson(topic, record!, letter.undecodable) : letterJson(letter),
      );
      if (flags.json) printJson(exported);
      else for (const line of exported) printLine(JSON.stringify(line));
      process.stderr.write(`hookstream: exported ${selected.length} dead letters from ${topic}\n`);
    });

  dlq.addCommand(refuseUsageErrors(showCommand()));
  dlq.addCommand(refuseUsageErrors(replayCommand()));
  dlq.addCommand(refuseUsageErrors(auditCommand()));
  return dlq;
}

/** A record exactly as stored: key, value and every header value in base64. */
function rawRecordJson(topic: string, record: DlqRecord, undecodable: string | null): Record<string, unknown> {
  const base64 = (bytes: Buffer | null) => (bytes ? bytes.toString('base64') : null);
  return {
    topic,
    partition: record.partition,
    offset: record.offset,
    timestamp: new Date(record.timestamp).toISOString(),
    key: base64(record.key),
    value: base64(record.value),
    headers: Object.fromEntries(Object.entries(record.headers).map(([name, value]) => [name, base64(value)])),
    undecodable,
  };
}
