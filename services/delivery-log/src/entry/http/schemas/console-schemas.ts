/*
 * The console's sign-in and session as the OpenAPI document describes them (console-routes.ts).
 */
import { z } from 'zod';
import { timestamp } from './schemas';

/** How a person signs in to the console: exactly one of the three credentials. */
export const SignInBody = z
  .strictObject({
    api_key: z.string().min(1).max(200).optional().meta({ description: 'A partner’s x-api-key' }),
    portal_token: z.string().min(1).max(4000).optional().meta({ description: 'The token of a portal link an operator issued' }),
    operator_token: z.string().min(1).max(200).optional().meta({ description: 'An operator token (hookstream operators create)' }),
  })
  .refine((body) => [body.api_key, body.portal_token, body.operator_token].filter((v) => v !== undefined).length === 1, {
    message: 'give exactly one of api_key, portal_token, operator_token',
  })
  .meta({ id: 'SignInRequest' });

export const ConsoleSessionView = z
  .object({
    kind: z.enum(['partner', 'operator']),
    partner_id: z.string().optional(),
    partner_name: z.string().optional(),
    holds: z.enum(['api_key', 'portal_link']).optional().meta({
      description: 'A partner’s session: opened with its API key, or with a portal link (which changes no key, endpoint or secret)',
    }),
    operator_id: z.string().optional(),
    name: z.string().optional(),
    role: z.enum(['viewer', 'operator']).optional(),
    trace_url: z.string().nullable().optional().meta({
      description: 'An operator’s session: the trace store’s page of one trace, {trace_id} where the id goes; null when none is configured',
    }),
    csrf_token: z.string().meta({ description: 'Send it as x-csrf-token on every write made with the session cookie' }),
    expires_at: timestamp,
  })
  .meta({ id: 'ConsoleSession' });
