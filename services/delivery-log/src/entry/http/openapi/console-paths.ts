/*
 * The console's sign-in in the OpenAPI document (openapi.ts): what turns a credential into the
 * session cookie the console's requests carry.
 */
import { ErrorCodes } from '@hookstream/errors';
import { z } from 'zod';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { badBody, json, refusal } from './openapi-parts';
import { one } from '../schemas/schemas';
import { ConsoleSessionView, SignInBody } from '../schemas/console-schemas';

const SessionAnswer = one(ConsoleSessionView, 'ConsoleSessionAnswer');
const unauthenticated = { '401': refusal('Unknown, revoked or expired; or not signed in', [ErrorCodes.INVALID_API_KEY]) };

export const consolePaths: ZodOpenApiPathsObject = {
  '/console/session': {
    post: {
      summary: 'Sign in to the console',
      tags: ['console'],
      operationId: 'consoleSignIn',
      description:
        'Exchanges a partner’s API key, a portal link’s token or an operator token for a session cookie (HttpOnly, SameSite=Strict, ' +
        'Secure over TLS; at most 8 hours, or the portal token’s expiry). Writes made with the cookie must send the answer’s ' +
        'csrf_token as x-csrf-token.',
      requestBody: { required: true, ...json(SignInBody) },
      responses: {
        '201': { description: 'Signed in; Set-Cookie carries the session', ...json(SessionAnswer) },
        ...unauthenticated,
        ...badBody,
        '403': refusal('Sent from another site (Sec-Fetch-Site: cross-site)', [ErrorCodes.FORBIDDEN]),
        '429': refusal(
          'Too many sessions open: 20 of one portal link, or 200 of the partner’s key or the operator; sign out of one, or retry after Retry-After',
          [ErrorCodes.TOO_MANY_REQUESTS],
        ),
        '503': refusal('Starting; retry after Retry-After', [ErrorCodes.SERVICE_UNAVAILABLE]),
      },
    },
    get: {
      summary: 'The current session',
      tags: ['console'],
      operationId: 'consoleSession',
      responses: {
        '503': refusal('Starting; retry after Retry-After', [ErrorCodes.SERVICE_UNAVAILABLE]),
        '200': {
          description: 'Who is signed in; data is null when nobody is',
          ...json(z.object({ data: ConsoleSessionView.nullable() }).meta({ id: 'CurrentSessionAnswer' })),
        },
      },
    },
    delete: {
      summary: 'Sign out',
      tags: ['console'],
      operationId: 'consoleSignOut',
      responses: {
        '204': { description: 'Signed out; the cookie is cleared and the session ended on every replica' },
        '403': refusal('From another origin, or x-csrf-token missing or wrong', [ErrorCodes.FORBIDDEN]),
      },
    },
  },
};
