/*
 * The partner API's rate limit: each partner may make DELIVERY_LOG_PARTNER_REQUESTS_PER_SECOND
 * requests a second to each replica, in windows of 10 seconds (so a console's burst of a page and
 * its lists passes), then answers 429 with Retry-After until its window ends. It is per replica on
 * purpose: what it protects is a replica's time (its one event loop and its share of the store's
 * connections), so that one partner's script cannot slow every other partner's answers; N replicas
 * give a partner N times the rate and N times the capacity. Keyed by the authenticated partner
 * (never the address: partners share proxies), so its memory is one counter per active partner.
 */
import { ErrorCodes, Refusal } from '@hookstream/errors';
import { rateLimit } from 'express-rate-limit';
import type { RequestHandler } from 'express';
import { partnerCallerOf } from './partner-auth';

const WINDOW_MS = 10_000;

export function partnerRateLimit(requestsPerSecond: number): RequestHandler {
  return rateLimit({
    windowMs: WINDOW_MS,
    limit: requestsPerSecond * (WINDOW_MS / 1000),
    keyGenerator: (_req, res) => partnerCallerOf(res.locals).partnerId,
    standardHeaders: 'draft-8',
    legacyHeaders: false,
    // The key is the partner id, not an address: the library's IPv6 subnet check does not apply.
    validate: { keyGeneratorIpFallback: false },
    handler: (req, _res, next) => {
      const resetAt = (req as { rateLimit?: { resetTime?: Date } }).rateLimit?.resetTime;
      const retryAfter = Math.max(1, Math.ceil(((resetAt?.getTime() ?? Date.now() + WINDOW_MS) - Date.now()) / 1000));
      next(
        new Refusal(
          ErrorCodes.TOO_MANY_REQUESTS,
          `more than ${requestsPerSecond * (WINDOW_MS / 1000)} requests in ${WINDOW_MS / 1000} s from this partner; retry after ${retryAfter} s`,
          { retryAfterSeconds: retryAfter },
        ),
      );
    },
  });
}
