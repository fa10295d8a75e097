/*
 * The operator API's partner paths in the OpenAPI document (admin-paths.ts): onboarding, keys,
 * endpoint health and portal tokens.
 */
import { ErrorCodes } from '@hookstream/errors';
import { z } from 'zod';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import {
  NewKey,
  PartnerCreateDoc,
  PartnerUpdateDoc,
  PartnerView,
  PortalLink,
  PortalToken,
  PortalTokenBody,
  ReasonBody,
  SelfServiceBody,
  RotateKeyBody,
} from '../schemas/admin-schemas';
import { badQuery, json, refusal } from './openapi-parts';
import { EventCatalogueAnswer } from '../schemas/event-catalogue-schemas';
import { EVENT_CATALOGUE_DESCRIPTION } from './portal-paths';
import { PartnerListQuery } from '../schemas/operator-view-schemas';
import { ADMIN_BASE } from '../paths';
import { EndpointsHealthAnswer, NoQuery, one } from '../schemas/schemas';

import { notFound, operation, partnerPath, readRefusals, writeRefusals } from './admin-parts';

const PartnerAnswer = one(PartnerView, 'PartnerAnswer');
const NewKeyAnswer = one(NewKey, 'NewKeyAnswer');
const partnerAnswer = (description: string) => ({ description, ...json(PartnerAnswer) });

export const adminPartnerPaths: ZodOpenApiPathsObject = {
  [`${ADMIN_BASE}/partners`]: {
    get: operation('Every partner, secrets masked', {
      operationId: 'adminListPartners',
      requestParams: { query: PartnerListQuery },
      responses: {
        '200': { description: 'The partners', ...json(z.object({ data: z.array(PartnerView) }).meta({ id: 'PartnerList' })) },
        ...readRefusals,
        ...badQuery,
      },
    }),
    post: operation('Onboard a partner (as `hookstream partners create`)', {
      operationId: 'adminCreatePartner',
      description: 'The spec is validated field by field as the CLI validates it; the first API key is in the answer, shown once.',
      requestBody: { required: true, ...json(PartnerCreateDoc) },
      responses: { '201': { description: 'Created, with its first API key', ...json(NewKeyAnswer) }, ...writeRefusals },
    }),
  },
  [`${ADMIN_BASE}/partners/{partnerId}/event-types`]: {
    get: operation('What a partner is called back about, with an example of each callback', {
      operationId: 'adminGetEventTypes',
      requestParams: { ...partnerPath, query: NoQuery },
      description: EVENT_CATALOGUE_DESCRIPTION,
      responses: {
        '200': { description: 'The event catalogue', ...json(EventCatalogueAnswer) },
        ...readRefusals,
        ...badQuery,
        ...notFound('partner'),
      },
    }),
  },
  [`${ADMIN_BASE}/partners/{partnerId}`]: {
    get: operation('One partner, secrets masked', {
      operationId: 'adminGetPartner',
      requestParams: partnerPath,
      responses: { '200': partnerAnswer('The partner'), ...readRefusals, ...notFound('partner') },
    }),
    patch: operation('Change a partner (as `hookstream partners update`)', {
      operationId: 'adminUpdatePartner',
      requestParams: partnerPath,
      requestBody: { required: true, ...json(PartnerUpdateDoc) },
      responses: {
        '200': partnerAnswer('The partner after the change'),
        ...writeRefusals,
        ...notFound('partner'),
        '409': refusal('Changed since the revision given', [ErrorCodes.CONFLICT]),
      },
    }),
  },
  ...Object.fromEntries(
    (['disable', 'enable'] as const).map((action) => [
      `${ADMIN_BASE}/partners/{partnerId}/${action}`,
      {
        post: operation(action === 'disable' ? 'Refuse every key of the partner and send it no callbacks' : 'Accept the partner again', {
          operationId: action === 'disable' ? 'adminDisablePartner' : 'adminEnablePartner',
          requestParams: partnerPath,
          requestBody: { required: true, ...json(ReasonBody) },
          responses: { '200': partnerAnswer('The partner after the change'), ...writeRefusals, ...notFound('partner') },
        }),
      },
    ]),
  ),
  [`${ADMIN_BASE}/partners/{partnerId}/self-service`]: {
    post: operation('Turn the partner’s self-service off, or on again', {
      operationId: 'adminSetSelfService',
      description:
        'While off, the partner’s own changes through the partner API (its callback endpoints, its signing secret) answer 403 ' +
        'saying the insurer turned self-service off; reads still answer. Audited (partner.self-service-off / -on).',
      requestParams: partnerPath,
      requestBody: { required: true, ...json(SelfServiceBody) },
      responses: { '200': partnerAnswer('The partner after the change'), ...writeRefusals, ...notFound('partner') },
    }),
  },
  [`${ADMIN_BASE}/partners/{partnerId}/endpoints`]: {
    get: operation('A partner’s endpoints’ health (as the partner API shows it)', {
      operationId: 'adminGetEndpointsHealth',
      requestParams: partnerPath,
      responses: {
        '200': { description: 'Health of each endpoint', ...json(EndpointsHealthAnswer) },
        ...readRefusals,
        ...notFound('partner'),
      },
    }),
  },
  [`${ADMIN_BASE}/partners/{partnerId}/api-keys/rotate`]: {
    post: operation('Issue a new API key; the others expire after the overlap', {
      operationId: 'adminRotateApiKey',
      requestParams: partnerPath,
      requestBody: { required: true, ...json(RotateKeyBody) },
      responses: {
        '201': { description: 'The new key, shown once', ...json(NewKeyAnswer) },
        ...writeRefusals,
        ...notFound('partner'),
        '409': refusal('The partner would hold more working keys than allowed: revoke one, or rotate with overlap_hours 0', [
          ErrorCodes.CONFLICT,
        ]),
      },
    }),
  },
  [`${ADMIN_BASE}/partners/{partnerId}/api-keys/{keyId}/revoke`]: {
    post: operation('Stop accepting one API key now', {
      operationId: 'adminRevokeApiKey',
      requestParams: { path: z.object({ partnerId: z.string(), keyId: z.string() }) },
      requestBody: { required: true, ...json(ReasonBody) },
      responses: {
        '200': partnerAnswer('The partner after the change'),
        ...writeRefusals,
        ...notFound('partner or API key'),
        '409': refusal('The key is revoked already', [ErrorCodes.CONFLICT]),
      },
    }),
  },
  [`${ADMIN_BASE}/partners/{partnerId}/portal-tokens`]: {
    post: operation('Issue a portal token for the partner’s people', {
      operationId: 'adminIssuePortalToken',
      description: 'A signed token that opens the partner API for this partner only, until it expires (at most 24 hours). Audited.',
      requestParams: partnerPath,
      requestBody: { required: true, ...json(PortalTokenBody) },
      responses: {
        '201': { description: 'The token, shown once', ...json(one(PortalToken, 'PortalTokenAnswer')) },
        ...writeRefusals,
        ...notFound('partner'),
        '409': refusal('The partner has 50 live portal tokens: revoke one first', [ErrorCodes.CONFLICT]),
      },
    }),
    get: operation('The partner’s portal tokens', {
      operationId: 'adminListPortalTokens',
      description: 'Every portal token issued for the partner, live, revoked or expired (until pruned), newest first; never the token.',
      requestParams: partnerPath,
      responses: {
        '200': { description: 'The portal tokens', ...json(z.object({ data: z.array(PortalLink) }).meta({ id: 'PortalLinkList' })) },
        ...readRefusals,
        ...notFound('partner'),
      },
    }),
  },
  [`${ADMIN_BASE}/partners/{partnerId}/portal-tokens/{tokenId}/revoke`]: {
    post: operation('Revoke a portal token', {
      operationId: 'adminRevokePortalToken',
      description:
        'The token, and every console session opened with it, opens nothing from the next request on any replica. Audited ' +
        '(portal-token.revoke); revoking one already revoked or expired changes nothing.',
      requestParams: { path: z.object({ partnerId: z.string(), tokenId: z.string() }) },
      requestBody: { required: true, ...json(ReasonBody) },
      responses: {
        '200': { description: 'The token as it is now', ...json(one(PortalLink, 'PortalLinkAnswer')) },
        ...writeRefusals,
        ...notFound('partner or portal token'),
      },
    }),
  },
};
