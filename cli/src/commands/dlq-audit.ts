import { readAudit, DlqSession } from '@hookstream/dead-letters';
import { Command } from 'commander';
import { environmentWithStackEnv } from '../paths';
import { formatTable, printJson, printLine } from '../output';
import { addTopicOption, limitFlag, timeFlag, topicFlag } from './dlq-flags';

export function auditCommand(): Command {
  return addTopicOption(
    new Command('audit').description(
      'the replay audit (dlq-replay-audit): who replayed or skipped which dead letter, when, why, with what outcome',
    ),
    undefined,
  )
    .option('--since <time>', 'written at or after: ISO 8601 or a duration ago (2h, 1d)')
    .option('--until <time>', 'written before: ISO 8601 or a duration ago')
    .option('--replay-id <id>', 'only the records of one replay run')
    .option('--limit <n>', 'only the newest n')
    .option('--json', 'one JSON document, for scripts')
    .action(async (flags: { topic?: string; since?: string; until?: string; replayId?: string; limit?: string; json?: boolean }) => {
      const now = Date.now();
      const since = timeFlag('since', flags.since, now);
      const until = timeFlag('until', flags.until, now);
      const limit = limitFlag(flags.limit);
      const session = await DlqSession.open(topicFlag(flags.topic), environmentWithStackEnv());
      // Without --topic, the replays of every dead-letter topic.
      const source = flags.topic === undefined ? undefined : session.letters.source;
      const audit = await readAudit(session, since);
      const entries = audit.entries.filter(
        (e) =>
          (since === undefined || e.replayed_at >= since) &&
          (until === undefined || e.replayed_at < until) &&
          (source === undefined || e.source_topic === source) &&
          (flags.replayId === undefined || e.replay_id === flags.replayId),
      );
      const shown = limit === undefined ? entries : entries.slice(-limit);
      const iso = (ms: number) => new Date(ms).toISOString();
      if (flags.json) {
        printJson(shown.map((e) => ({ ...e, started_at: iso(e.started_at), replayed_at: iso(e.replayed_at) })));
        return;
      }
      if (shown.length > 0) {
        printLine(
          formatTable([
            ['written at', 'operator', 'outcome', 'dead letter', 'id', 'replay', 'reason', 'replay run'],
            ...shown.map((e) => [
              iso(e.replayed_at),
              e.operator,
              e.outcome + (e.dry_run ? ' (dry run)' : ''),
              `${e.source_topic} ${e.source_partition}:${e.source_offset}`,
              e.delivery_id || '-',
              String(e.replay_count),
              e.reason || '-',
              e.replay_id,
            ]),
          ]),
        );
      }
      printLine(`${entries.length} audit records${shown.length < entries.length ? ` (the newest ${shown.length} shown)` : ''}`);
    });
}
