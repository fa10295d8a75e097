/*
 * The partner API's self-service paths in the OpenAPI document: a partner's own endpoints and
 * signing secret (portal-self-service-routes.ts).
 */
import { ErrorCodes } from '@hookstream/errors';
import { z } from 'zod';
import type { ZodOpenApiOperationObject, ZodOpenApiPathsObject } from 'zod-openapi';
import { badBody, badQuery, json, refusal } from './openapi-parts';
import { PORTAL_BASE } from '../paths';
import { EndpointsHealthAnswer, NoQuery } from '../schemas/schemas';
import {
  EndpointCreateBody,
  EndpointDeleteBody,
  EndpointUpdateBody,
  OwnEndpointAnswer,
  RotatedSigningSecret,
  SigningSecretBody,
  SigningSecretRotateBody,
  SigningSecretStateAnswer,
  SigningSecretStatus,
} from '../schemas/self-service-schemas';
import { operation, partnerRefusals } from './portal-paths';

const forbidden = () => ({
  '403': refusal(
    'A portal token (or a console session opened with one): changes need the API key; or the insurer turned the partner’s ' +
      'self-service off; or a console write from another origin or without its x-csrf-token',
    [ErrorCodes.FORBIDDEN],
  ),
});
const writeRefusals = () => ({ ...partnerRefusals, ...badBody, ...forbidden() });
const endpointPath = { path: z.object({ endpointId: z.string() }) };
const AUDIT = 'Audited with the partner as the actor (the fields set, the URL without its query, never a secret).';
const LIMITED = 'At most DELIVERY_LOG_ENDPOINT_CHANGES_PER_HOUR (default 30) endpoint changes an hour (429 with Retry-After).';

export const selfServicePaths: ZodOpenApiPathsObject = {
  [`${PORTAL_BASE}/endpoints`]: {
    get: operation('The partner’s endpoints: their configuration and health', {
      operationId: 'getEndpointsHealth',
      requestParams: { query: NoQuery },
      description:
        'Per callback endpoint, its name and description, its configuration now (URL, timeout, statuses, disabled…), the share of requests the partner answered ' +
        'with 200 and the 95th percentile of their latency, over the last hour and the last day; and the partner’s circuit as the ' +
        'sender last recorded it. An endpoint since removed keeps its health, with name, description, url and configuration null.',
      responses: {
        '200': { description: 'Health of each endpoint', ...json(EndpointsHealthAnswer) },
        ...partnerRefusals,
        ...badQuery,
      },
    }),
    post: {
      ...op('Add a callback endpoint', 'addEndpoint'),
      description:
        'Validated as at onboarding (at most 10 endpoints, a name of at most 80 characters and a description of at most 300, an ' +
        'http(s) URL of at most 2000 characters, a timeout of 100-120000 ms, known statuses) and by the SSRF guard; each refusal a 400 ' +
        'naming the field (fields[].field: name, description, url, timeout_ms, statuses[0]…). ' +
        `${AUDIT} ${LIMITED}`,
      requestBody: { required: true, ...json(EndpointCreateBody) },
      responses: {
        '201': { description: 'The endpoint added, with its id', ...json(OwnEndpointAnswer) },
        ...writeRefusals(),
        '409': refusal('The partner has the most endpoints allowed', [ErrorCodes.CONFLICT]),
      },
    },
  },
  [`${PORTAL_BASE}/endpoints/{endpointId}`]: {
    patch: {
      ...op('Edit a callback endpoint (name, description, URL, timeout, statuses, disabled)', 'updateEndpoint'),
      description:
        'Sets the fields given, validated as POST does. A disabled endpoint receives no new callback; those already queued for it are ' +
        `still sent and retried. ${AUDIT} ${LIMITED}`,
      requestParams: endpointPath,
      requestBody: { required: true, ...json(EndpointUpdateBody) },
      responses: {
        '200': { description: 'The endpoint after the change', ...json(OwnEndpointAnswer) },
        ...writeRefusals(),
        '404': refusal('No such endpoint among the caller’s own', [ErrorCodes.NOT_FOUND]),
      },
    },
    delete: {
      ...op('Delete a callback endpoint', 'deleteEndpoint'),
      description:
        'Callbacks already queued for it are dead-lettered (UNKNOWN_ENDPOINT) when their turn comes. The last endpoint cannot be ' +
        `deleted (409): disable it instead. ${AUDIT} ${LIMITED}`,
      requestParams: endpointPath,
      requestBody: { required: false, ...json(EndpointDeleteBody) },
      responses: {
        '204': { description: 'Deleted' },
        ...writeRefusals(),
        '404': refusal('No such endpoint among the caller’s own', [ErrorCodes.NOT_FOUND]),
        '409': refusal('It is the partner’s last endpoint', [ErrorCodes.CONFLICT]),
      },
    },
  },
  [`${PORTAL_BASE}/signing-secret`]: {
    get: {
      ...op('How callbacks are signed, and any rotation under way', 'getSigningSecret'),
      requestParams: { query: NoQuery },
      responses: {
        '200': { description: 'The method and the overlap, never a secret', ...json(SigningSecretStatus) },
        ...partnerRefusals,
        ...badQuery,
      },
    },
  },
  [`${PORTAL_BASE}/signing-secret/rotate`]: {
    post: {
      ...op('Rotate the signing secret, with an overlap', 'rotateSigningSecret'),
      description:
        'STANDARD_WEBHOOKS: the new secret signs at once and, until previous_secret_until (overlap_hours from now: 1 hour to 7 days, ' +
        'the partner’s choice; absent, 24 hours unless the insurer configured another), webhook-signature also carries a signature ' +
        'with the previous one. HMAC_SHA256 (one X-Signature): the current secret keeps signing until next_secret_from (overlap_hours ' +
        'from now), then the new one (sooner with /signing-secret/activate); accept either meanwhile. During an overlap, a rotation ' +
        'keeps that overlap’s end (Standard Webhooks) and drops the secret the last rotation showed at once. An overlap_hours out of ' +
        'bounds is 400 naming the field. ' +
        'The new secret is shown only in this answer. Other methods: 409 saying why. API key only; at most 5 rotations a day (429). ' +
        'Audited without the secret.',
      requestBody: { required: false, ...json(SigningSecretRotateBody) },
      responses: {
        '201': { description: 'The new secret (shown once) and the overlap', ...json(RotatedSigningSecret) },
        ...writeRefusals(),
        '409': refusal('Callbacks to the partner are authenticated by a method without a secret it rotates here', [ErrorCodes.CONFLICT]),
      },
    },
  },
  [`${PORTAL_BASE}/signing-secret/activate`]: {
    post: {
      ...op('HMAC_SHA256: sign with the rotated secret from now on', 'activateSigningSecret'),
      description: 'Brings the switch forward once the partner’s verifier accepts the new secret. Audited.',
      requestBody: { required: false, ...json(SigningSecretBody) },
      responses: {
        '200': { description: 'No switch pending any more', ...json(SigningSecretStateAnswer) },
        ...writeRefusals(),
        '409': refusal('No rotated secret is waiting, or the method has nothing to activate', [ErrorCodes.CONFLICT]),
      },
    },
  },
};

function op(summary: string, operationId: string): Pick<ZodOpenApiOperationObject, 'summary' | 'operationId' | 'tags' | 'security'> {
  return { summary, operationId, tags: ['partner'], security: [{ partnerApiKey: [] }, { portalToken: [] }] };
}
