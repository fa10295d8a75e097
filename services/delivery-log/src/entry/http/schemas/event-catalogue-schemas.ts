/*
 * The event catalogue as the OpenAPI document describes it (domain/event-catalogue.ts): each policy
 * status a partner is called back about, the endpoints that receive it and an example callback.
 */
import { POLICY_STATUSES } from '@hookstream/partners';
import { z } from 'zod';
import { one } from './schemas';
import { Verification } from './verification-schema';

const EventType = z
  .object({
    status: z.enum(POLICY_STATUSES),
    description: z.string().meta({ description: 'What the status means' }),
    endpoints: z
      .array(
        z.object({
          endpoint_id: z.string(),
          name: z.string().nullable(),
          product_codes: z.array(z.string()).meta({ description: 'Only policies of these products reach it; empty: every product' }),
        }),
      )
      .meta({ description: 'The partner’s enabled endpoints whose statuses let this one through; empty: none receives it' }),
    example_body: z.string().nullable().meta({
      description:
        'The body of its callback exactly as this partner gets it (its body mapping applied to the contract’s sample policy, policy number EXAMPLE-0001); null when the mapping cannot build one',
    }),
    problem: z.string().nullable().meta({ description: 'Why there is no example body; null when there is one' }),
  })
  .meta({ id: 'EventType' });

export const EventCatalogue = z
  .object({
    partner_id: z.string(),
    event_types: z.array(EventType),
    headers: z
      .array(z.object({ name: z.string(), value: z.string() }))
      .meta({ description: 'Every header a callback carries, by name, with what its value is; a credential’s value is "[redacted]"' }),
    verification: Verification.nullable().meta({
      description:
        'How to verify a callback: the steps and the headers they read (signed_string is null: no send is behind an example); null when callbacks carry no authentication',
    }),
  })
  .meta({ id: 'EventCatalogue' });

export const EventCatalogueAnswer = one(EventCatalogue, 'EventCatalogueAnswer');
