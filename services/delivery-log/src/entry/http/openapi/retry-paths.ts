/* Retry now (both APIs) and test events (partner API) in the OpenAPI document (openapi.ts). */
import { ErrorCodes } from '@hookstream/errors';
import { z } from 'zod';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { badBody, json, refusal } from './openapi-parts';
import { ADMIN_BASE, PORTAL_BASE } from '../paths';
import { one } from '../schemas/schemas';
import { MAX_RETRIED_PER_REQUEST } from '../../../domain/retry-failing-deliveries';
import {
  AdminRetryBody,
  FailingRetry,
  RetryAccepted,
  RetryBody,
  RetryFailingBody,
  TestEventBody,
  TestEventResult,
} from '../schemas/retry-schemas';
import { csrfRefusal, oneRefusals, operation, partnerRefusals } from './portal-paths';
import { notFound, operation as adminOperation, writeRefusals } from './admin-parts';

const retryDescription =
  'Attempts a failing delivery once more within seconds, under the same delivery_id (one attempt: it goes even while the partner’s ' +
  'circuit is open, as its probe; a newer status of the policy still supersedes it). The retry already scheduled keeps its time ' +
  'and sends nothing once this attempt was delivered (its outcome ALREADY_DELIVERED); if this attempt fails, the schedule goes on. ' +
  'Counted with resends in the partner’s hourly limit (429 past it) and audited. 409 with the reason unless the delivery is failing, ' +
  'and while another retry now of it is in flight (one at a time per delivery: until its attempt is in the log, or the endpoint’s ' +
  'timeout and 30 s, whichever comes first); a refused one sends nothing and takes no place of the hour.';
const RetryAnswer = one(RetryAccepted, 'RetryAnswer');
const conflict = {
  '409': refusal('Not failing (pending, delivered, dead-lettered, superseded), or a retry now of it in flight: the message says why', [
    ErrorCodes.CONFLICT,
  ]),
};
const deliveryPath = { path: z.object({ deliveryId: z.string() }) };

export const portalRetryPaths: ZodOpenApiPathsObject = {
  [`${PORTAL_BASE}/deliveries/{deliveryId}/retry`]: {
    post: operation('Retry a failing delivery now', {
      operationId: 'retryDelivery',
      description: retryDescription,
      requestParams: deliveryPath,
      requestBody: { required: false, ...json(RetryBody) },
      responses: {
        '202': { description: 'Queued: the attempt follows within seconds', ...json(RetryAnswer) },
        ...oneRefusals,
        ...badBody,
        ...conflict,
        ...csrfRefusal,
      },
    }),
  },
  [`${PORTAL_BASE}/endpoints/{endpointId}/retry-failing`]: {
    post: operation('Retry every failing delivery of one endpoint now, a dry run unless dry_run is false', {
      operationId: 'retryFailingDeliveries',
      description:
        `Takes the endpoint's deliveries in state failing, the oldest first, at most ${MAX_RETRIED_PER_REQUEST} per request (more says ` +
        'whether others wait), and retries each now exactly as a single retry now does: one attempt each, one place of the hourly ' +
        'resends each, audited each. With dry_run (the default) nothing is written and the answer lists what would be retried within ' +
        'the places left this hour. With dry_run false the answer says what was retried and what was not, each with why: a retry now ' +
        'already in flight, no longer failing, or beyond the hour’s places (the rest are then not tried). An endpoint id that is not ' +
        'one of the partner’s answers 404.',
      requestParams: { path: z.object({ endpointId: z.string() }) },
      requestBody: { required: false, ...json(RetryFailingBody) },
      responses: {
        '200': {
          description: 'What was (or would be) retried now, and what not and why',
          ...json(one(FailingRetry, 'FailingRetryAnswer')),
        },
        ...partnerRefusals,
        '404': refusal('No such endpoint among the partner’s', [ErrorCodes.NOT_FOUND]),
        ...badBody,
        ...csrfRefusal,
      },
    }),
  },
  [`${PORTAL_BASE}/endpoints/{endpointId}/test`]: {
    post: operation('Send a test event to one of the partner’s endpoints', {
      operationId: 'sendTestEvent',
      description:
        'Sends a sample callback of the chosen status (the sample policy, numbered TEST-…, through the partner’s body mapping), ' +
        'signed exactly as real callbacks, and answers with the endpoint’s answer. One attempt: never retried or dead-lettered, ' +
        'outside the ordering of real callbacks and the circuit. In the log as a delivery test_… with test: true. At most 10 a minute ' +
        'per partner unless the insurer configured another (429), audited.',
      requestParams: { path: z.object({ endpointId: z.string() }) },
      requestBody: { required: true, ...json(TestEventBody) },
      responses: {
        '200': { description: 'The attempt and the endpoint’s answer', ...json(one(TestEventResult, 'TestEventAnswer')) },
        '202': {
          description: 'Sent, but its attempt was not in the log within the endpoint’s timeout and a few seconds: poll the delivery',
          ...json(one(TestEventResult, 'TestEventPending')),
        },
        ...partnerRefusals,
        '404': refusal('No such endpoint among the partner’s', [ErrorCodes.NOT_FOUND]),
        ...badBody,
        '409': refusal('The partner is disabled, or its body mapping cannot build a callback', [ErrorCodes.CONFLICT]),
        ...csrfRefusal,
      },
    }),
  },
};

export const adminRetryPaths: ZodOpenApiPathsObject = {
  [`${ADMIN_BASE}/deliveries/{deliveryId}/retry`]: {
    post: adminOperation('Retry a failing delivery now', {
      operationId: 'adminRetryDelivery',
      description: `${retryDescription} The operator is the audit's actor; the partner's hourly limit counts it too.`,
      requestParams: deliveryPath,
      requestBody: { required: true, ...json(AdminRetryBody) },
      responses: {
        '202': { description: 'Queued: the attempt follows within seconds', ...json(RetryAnswer) },
        ...writeRefusals,
        ...notFound('delivery'),
        ...conflict,
        '429': refusal('The partner’s resends and retries of the hour are used up; retry after Retry-After', [
          ErrorCodes.TOO_MANY_REQUESTS,
        ]),
      },
    }),
  },
};
