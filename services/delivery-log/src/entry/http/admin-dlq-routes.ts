/*
 * The dead letters through the operator API: the list and the replay of `hookstream dlq`, on the
 * same use cases (readDeadLetters, DeadLetterReplay) and in the same JSON. A replay is a dry run
 * unless the request says dry_run: false, so the plan is seen first; a real one is audited with
 * the operator as its actor and takes its turn with partners' resends of the same topic.
 */
import { ErrorCodes, Refusal } from '@hookstream/errors';
import {
  DeadLetterReplay,
  countOutcomes,
  decisionJson,
  letterJson,
  readAudit,
  readDeadLetters,
  type Selection,
} from '@hookstream/dead-letters';
import express, { Router, type Request } from 'express';
import type { z } from 'zod';
import type { DeadLetterSessions } from '../../adapters/kafka/dead-letter-sessions';
import type { ReplayLanes } from '../../adapters/kafka/replay-lanes';
import { invalidInput } from './refusals';
import { DeadLetterListQuery, ReplayBody } from './schemas/admin-schemas';
import { operatorActor, operatorOf } from './auth/operator-auth';
import { parseInput } from './request-input';

/**
 * The most dead letters one request re-queues: at the default 50/s that is 20 s of a held request.
 * A bigger backlog is replayed in parts (what was replayed is skipped the next time) or with the CLI.
 */
export const MAX_REPLAYED_PER_REQUEST = 1000;

export function adminDlqRoutes(deadLetters: DeadLetterSessions, lanes: ReplayLanes): Router {
  const router = Router();

  router.get('/dead-letters', async (req, res) => {
    const query = parseInput(DeadLetterListQuery, req.query, 'query');
    const session = await deadLetters.of(query.topic);
    const selection = selectionOf(query, 'query');
    const [{ selected }, audit] = await Promise.all([readDeadLetters(session, selection, { keepRecords: false }), readAudit(session)]);
    const newest = selected.slice(-query.limit).reverse();
    res.json({
      topic: session.topicName(session.letters.source),
      selected: selected.length,
      not_replayed: selected.filter(({ letter }) => !audit.isReplayed(letter)).length,
      dead_letters: newest.map(({ letter }) => letterJson(letter, audit.isReplayed(letter))),
    });
  });

  router.post('/dead-letters/replay', express.json({ limit: '64kb', type: () => true }), async (req: Request, res) => {
    const input = parseInput(ReplayBody, req.body ?? {}, 'body');
    if (!input.dry_run && !input.reason) throw invalidInput('body', [{ field: 'reason', message: 'is required to replay' }]);
    const operator = operatorOf(res.locals);
    const request = {
      selection: selectionOf(input, 'body'),
      reason: input.reason ?? '',
      actor: operatorActor(operator),
      force: input.force,
      ratePerSecond: input.rate_per_second,
    };
    const session = await deadLetters.of(input.topic);
    const answer = await lanes.run(input.topic, async () => {
      const replay = await DeadLetterReplay.prepare(session, request, { dryRun: input.dry_run });
      try {
        const planned = replay.prepared.decisions;
        const replaying = planned.filter((d) => d.outcome === 'replayed').length;
        if (input.dry_run) return { dry_run: true, replay_id: null, counts: countOutcomes(planned), decisions: planned.map(decisionJson) };
        if (replaying > MAX_REPLAYED_PER_REQUEST) {
          throw new Refusal(
            ErrorCodes.CONFLICT,
            `${replaying} dead letters would be replayed; at most ${MAX_REPLAYED_PER_REQUEST} per request: narrow the selection (what is replayed is skipped next time) or use hookstream dlq replay`,
          );
        }
        const result = await replay.execute();
        return {
          dry_run: false,
          replay_id: replay.prepared.run.replayId,
          counts: countOutcomes(result.decisions),
          decisions: result.decisions.map(decisionJson),
        };
      } finally {
        await replay.close();
      }
    });
    res.json(answer);
  });

  return router;
}

/** The filters (of the list's query or the replay's body) as @hookstream/dead-letters' Selection: each one given must hold, a list holds when any value does. */
function selectionOf(query: Omit<z.infer<typeof DeadLetterListQuery>, 'limit'>, where: 'query' | 'body'): Selection {
  const statuses = query.last_status?.map(Number);
  if (statuses?.some((s) => !Number.isInteger(s) || s < 100 || s > 599)) {
    throw invalidInput(where, [{ field: 'last_status', message: 'each must be an HTTP status (100-599)' }]);
  }
  return {
    ...(query.partner_id ? { partners: query.partner_id } : {}),
    ...(query.since ? { since: Date.parse(query.since) } : {}),
    ...(query.until ? { until: Date.parse(query.until) } : {}),
    ...(query.error_class ? { errorClasses: query.error_class } : {}),
    ...(statuses ? { lastStatuses: statuses } : {}),
    ...(query.policy_number ? { policies: query.policy_number } : {}),
    ...(query.delivery_id ? { deliveryIds: query.delivery_id } : {}),
    ...(query.event_id ? { eventIds: query.event_id } : {}),
  };
}
