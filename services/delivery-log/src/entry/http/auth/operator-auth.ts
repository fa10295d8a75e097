/*
 * Who is calling the operator API: an operator, by the token `hookstream operators create` gave
 * (Authorization: Bearer hso_…) or by the console's session cookie opened with it (then every
 * write carries the session's x-csrf-token). Anything else answers 401 with the same words
 * whatever the reason. A viewer may read (GET); a write by a viewer answers 403 before any route
 * runs, so no route can forget the check. The role and revocation are read from the operators
 * topic on every request, so a revoked operator's session ends at once.
 */
import { ErrorCodes, Refusal } from '@hookstream/errors';
import type { Actor, Operator, OperatorDirectory } from '@hookstream/partners';
import type { Request, RequestHandler } from 'express';
import type { ConsoleSessions } from '../../../adapters/signing/console-sessions';
import { refuseForgedWrite } from './partner-auth';

import { bearerToken } from './bearer';
import { operatorSessionHolds } from '../../../domain/session-holds';

export function authenticateOperator(operators: OperatorDirectory, sessions: ConsoleSessions): RequestHandler {
  return (req, res, next) => {
    void (async () => {
      if (!operators.ready)
        throw new Refusal(ErrorCodes.SERVICE_UNAVAILABLE, 'the service is starting; retry later', { retryAfterSeconds: 2 });
      const operator = await operatorOfRequest(req, operators, sessions);
      if (!operator) {
        throw new Refusal(ErrorCodes.INVALID_API_KEY, 'Authorization: Bearer with an operator token is missing, unknown or revoked');
      }
      if (operator.role !== 'operator' && req.method !== 'GET' && req.method !== 'HEAD') {
        throw new Refusal(ErrorCodes.FORBIDDEN, `${operator.name} is a ${operator.role}: reading only`);
      }
      res.locals['operator'] = operator;
    })().then(() => next(), next);
  };
}

async function operatorOfRequest(req: Request, operators: OperatorDirectory, sessions: ConsoleSessions): Promise<Operator | undefined> {
  const authorization = req.get('authorization');
  if (authorization !== undefined) return operators.check(bearerToken(authorization));
  const session = await sessions.read(req.get('cookie'));
  if (session?.kind !== 'operator' || !operatorSessionHolds(session, operators)) return undefined;
  refuseForgedWrite(req, session);
  return operators.get(session.operatorId);
}

/** The operator an authenticated request is from. */
export function operatorOf(locals: Record<string, unknown>): Operator {
  return locals['operator'] as Operator;
}

/** The audit trail's actor of an operator. */
export function operatorActor(operator: Operator): Actor {
  return { type: 'operator', id: operator.operator_id, name: operator.name };
}
