/*
 * Who is calling the operator API: an operator, by the token `hookstream operators create` gave
 * (Authorization: Bearer hso_…). Anything else answers 401 with the same words whatever the
 * reason. A viewer may read (GET); a write by a viewer answers 403 before any route runs, so no
 * route can forget the check.
 */
import type { Actor, Operator, OperatorDirectory } from '@hookstream/shared';
import type { RequestHandler } from 'express';
import { ApiError, ApiErrorCodes } from './api-errors';

const BEARER = /^Bearer (\S+)$/;

export function authenticateOperator(operators: OperatorDirectory): RequestHandler {
  return (req, res, next) => {
    if (!operators.ready) {
      next(new ApiError(503, ApiErrorCodes.UNAVAILABLE, 'the service is starting; retry later', 2));
      return;
    }
    const operator = operators.check(BEARER.exec(req.get('authorization') ?? '')?.[1]);
    if (!operator) {
      next(new ApiError(401, ApiErrorCodes.UNAUTHENTICATED, 'Authorization: Bearer with an operator token is missing, unknown or revoked'));
      return;
    }
    if (operator.role !== 'operator' && req.method !== 'GET' && req.method !== 'HEAD') {
      next(new ApiError(403, ApiErrorCodes.FORBIDDEN, `${operator.name} is a ${operator.role}: reading only`));
      return;
    }
    res.locals['operator'] = operator;
    next();
  };
}

/** The operator an authenticated request is from. */
export function operatorOf(locals: Record<string, unknown>): Operator {
  return locals['operator'] as Operator;
}

/** The audit trail's actor of an operator. */
export function operatorActor(operator: Operator): Actor {
  return { type: 'operator', id: operator.operator_id, name: operator.name };
}
