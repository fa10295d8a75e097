import { DeadLetterReplay, DlqSession, countOutcomes, type PreparedReplay, type ReplayDecision } from '@hookstream/dead-letters';
import { cliActor } from '@hookstream/partners';
import { userInfo } from 'node:os';
import { createInterface } from 'node:readline/promises';
import { SingleBar } from 'cli-progress';
import { Command } from 'commander';
import { environmentWithStackEnv } from '../paths';
import { printJson, printLine } from '../output';
import { Interrupted, watchInterrupts } from '../stack/interruption';
import { addFilterOptions, rateFlag, selectionFromFlags, topicFlag, type FilterFlags } from './dlq-flags';
import { decisionJson, decisionLines, summaryLine } from './dlq-output';
import { ExitCodes, InputRefused } from '../exit-codes';

/**
 * The default --rate, 50 per second: a partner that was down and just came back gets its backlog
 * over a short while rather than in one burst its (possibly still fragile) endpoint must absorb,
 * while a typical incident's few hundred dead letters still go out in well under a minute. The
 * sender's own per-partner concurrency (SENDER_PARTNER_CONCURRENCY, 64) bounds the burst anyway;
 * raise --rate for a big backlog of a partner known to cope.
 */
const DEFAULT_RATE = '50/s';

interface ReplayFlags extends FilterFlags {
  reason?: string;
  dryRun?: boolean;
  rate: string;
  force?: boolean;
  yes?: boolean;
  operator?: string;
}

export function replayCommand(): Command {
  return addFilterOptions(
    new Command('replay').description(
      're-queue the selected dead letters for delivery (callbacks: same delivery id, attempts from 1; policy-status: the original event), audited',
    ),
  )
    .option('--reason <text>', 'why (required; recorded in the audit with every record)')
    .option('--dry-run', 'print what would be replayed and what skipped, and why; write nothing')
    .option('--rate <n/s>', 'records re-queued per second', DEFAULT_RATE)
    .option('--force', `replay also what was replayed before or reached DLQ_MAX_REPLAYS (superseded ones never)`)
    .option('--yes', 'do not ask for confirmation (needed when not on a terminal)')
    .option('--operator <name>', 'who replays, for the audit (default: the OS user)')
    .option('--json', 'one JSON document, for scripts')
    .action(async (flags: ReplayFlags) => {
      // Every refusal before anything connects: exit 2, nothing read or written.
      const selection = selectionFromFlags(flags);
      const choice = topicFlag(flags.topic);
      const ratePerSecond = rateFlag(flags.rate);
      const reason = flags.reason?.trim() ?? '';
      if (!flags.dryRun && reason === '')
        throw new InputRefused('--reason is required: say why these dead letters are replayed (it goes into the audit)');
      if (!flags.dryRun && !flags.yes && !onTerminal())
        throw new InputRefused('--yes is required when not on a terminal (nothing was replayed)');
      const operator = operatorFlag(flags.operator);

      const session = await DlqSession.open(choice, environmentWithStackEnv());
      const request = { selection, reason, actor: { ...cliActor(), name: operator }, force: flags.force ?? false, ratePerSecond };
      const replay = await DeadLetterReplay.prepare(session, request, { dryRun: flags.dryRun ?? false });
      try {
        const { prepared } = replay;
        if (flags.dryRun) {
          report(prepared.decisions, 0, true, prepared, flags.json);
          return;
        }
        const toReplay = prepared.decisions.filter((d) => d.outcome === 'replayed').length;
        if (toReplay > 0 && !flags.yes && !(await confirmed(prepared, session.topicName(session.letters.target)))) {
          throw new InputRefused('not confirmed: nothing was replayed');
        }
        const interrupts = watchInterrupts();
        const bar = progressBar(prepared.decisions.length, flags.json);
        try {
          const result = await replay.execute({ signal: interrupts.signal, onProgress: (done) => bar?.increment(done) });
          bar?.stop();
          report(result.decisions, result.interrupted.length, false, prepared, flags.json);
          if (result.interrupted.length > 0) throw new Interrupted();
          if (result.decisions.some((d) => d.outcome === 'failed')) process.exitCode = ExitCodes.FAILED;
        } finally {
          bar?.stop();
          interrupts.dispose();
        }
      } finally {
        await replay.close();
      }
    });
}

function onTerminal(): boolean {
  return Boolean(process.stdin.isTTY && process.stderr.isTTY);
}

function operatorFlag(value: string | undefined): string {
  if (value !== undefined) {
    if (value.trim() === '') throw new InputRefused('--operator: give a name');
    return value.trim();
  }
  try {
    return userInfo().username;
  } catch {
    return process.env.USER ?? process.env.USERNAME ?? 'unknown';
  }
}

/** Shows the count and asks on the terminal; only y or yes goes on. */
async function confirmed(prepared: PreparedReplay, target: string): Promise<boolean> {
  const replaying = prepared.decisions.filter((d) => d.outcome === 'replayed').length;
  const skipped = prepared.decisions.length - replaying;
  const question = `Replay ${replaying} dead letters to ${target} (${skipped} skipped or failing; --dry-run lists them)? [y/N] `;
  const readline = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await readline.question(question)).trim());
  } finally {
    readline.close();
  }
}

/** A progress bar on the terminal (standard error), none for scripts. */
function progressBar(total: number, json: boolean | undefined): SingleBar | undefined {
  if (json || !process.stderr.isTTY || total === 0) return undefined;
  const bar = new SingleBar({
    stream: process.stderr,
    format: 'replaying {bar} {value}/{total} dead letters | {duration}s | ETA {eta}s',
    hideCursor: true,
  });
  bar.start(total, 0);
  return bar;
}

function report(
  decisions: readonly ReplayDecision[],
  interrupted: number,
  dryRun: boolean,
  prepared: PreparedReplay,
  json: boolean | undefined,
): void {
  if (json) {
    printJson({
      replay_id: dryRun ? null : prepared.run.replayId,
      dry_run: dryRun,
      operator: prepared.run.actor.name,
      reason: prepared.run.reason,
      selection: JSON.parse(prepared.run.selectorJson) as unknown,
      counts: countOutcomes(decisions),
      decisions: decisions.map(decisionJson),
      interrupted,
    });
    return;
  }
  for (const line of decisionLines(decisions, dryRun)) printLine(line);
  printLine(summaryLine(decisions, interrupted, dryRun) + (dryRun ? '' : ` (replay ${prepared.run.replayId})`));
}
