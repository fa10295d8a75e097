/*
 * The dead letters through the operator API: the list and the replay of `hookstream dlq`, on the
 * same use cases (readDeadLetters, DeadLetterReplay) and in the same JSON. A replay is a dry run
 * unless the request says dry_run: false, so the plan is seen first; a real one is audited with
 * the operator as its actor and takes its turn with partners' resends of the same topic.
 */
import type { OffsetRange, Selection } from '@hookstream/dead-letters';
import express, { Router, type Request } from 'express';
import type { z } from 'zod';
import type { DeadLetterSessions } from '../../adapters/kafka/dead-letter-sessions';
import type { ReplayLanes } from '../../adapters/kafka/replay-lanes';
import { listDeadLetters } from '../../domain/list-dead-letters';
import { replayDeadLetters } from '../../domain/replay-dead-letters';
import { invalidInput } from './refusals';
import { DeadLetterListQuery, ReplayBody } from './schemas/admin-schemas';
import { operatorActor, operatorOf } from './auth/operator-auth';
import { parseInput } from './request-input';

export function adminDlqRoutes(deadLetters: DeadLetterSessions, lanes: ReplayLanes): Router {
  const router = Router();

  router.get('/dead-letters', async (req, res) => {
    const query = parseInput(DeadLetterListQuery, req.query, 'query');
    res.json(await listDeadLetters(deadLetters, query.topic, () => selectionOf(query, 'query'), query.limit));
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
    const answer = await replayDeadLetters(deadLetters, lanes, input.topic, request, input.dry_run);
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
    ...(query.letters ? { offsets: query.letters.map((text) => letterAt(text, where)) } : {}),
  };
}

/** A dead letter named as partition:offset, as the offset range of just it. */
function letterAt(text: string, where: 'query' | 'body'): OffsetRange {
  const match = /^(\d{1,4}):(\d{1,19})$/.exec(text);
  if (!match) throw invalidInput(where, [{ field: 'letters', message: 'each must be partition:offset (as 2:1041)' }]);
  const offset = BigInt(match[2]!);
  return { partition: Number(match[1]), from: offset, to: offset };
}
