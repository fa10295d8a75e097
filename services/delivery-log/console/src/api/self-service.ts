/*
 * The partner API's self-service calls the console makes (a partner's own endpoints and signing
 * secret; an operator's self-service switch), typed by the routes' own schemas.
 */
import type { z } from 'zod';
import type { EndpointsHealth } from '../../../src/entry/http/schemas/schemas';
import type {
  EndpointCreateBody,
  EndpointUpdateBody,
  OwnEndpoint,
  RotatedSigningSecret,
  SigningSecretStateAnswer,
  SigningSecretStatus,
} from '../../../src/entry/http/schemas/self-service-schemas';
import { api } from '../api';

export type OwnEndpoints = z.infer<typeof EndpointsHealth>;
export type OwnEndpointView = OwnEndpoints['endpoints'][number];
export type SigningSecretView = z.infer<typeof SigningSecretStatus>['data'];
export type RotatedSecret = z.infer<typeof RotatedSigningSecret>['data'];

const BASE = '/api/portal/v1';
const endpointPath = (endpointId: string) => `${BASE}/endpoints/${encodeURIComponent(endpointId)}`;

export const ENDPOINTS_URL = `${BASE}/endpoints`;
export const SIGNING_SECRET_URL = `${BASE}/signing-secret`;

export const addEndpoint = (body: z.input<typeof EndpointCreateBody>) =>
  api.post<{ data: z.infer<typeof OwnEndpoint> }>(ENDPOINTS_URL, body);

export const editEndpoint = (endpointId: string, body: z.input<typeof EndpointUpdateBody>) =>
  api.patch<{ data: z.infer<typeof OwnEndpoint> }>(endpointPath(endpointId), body);

export const deleteEndpoint = (endpointId: string) => api.delete<void>(endpointPath(endpointId));

export const rotateSigningSecret = () => api.post<{ data: RotatedSecret }>(`${SIGNING_SECRET_URL}/rotate`);

export const activateSigningSecret = () =>
  api.post<{ data: z.infer<typeof SigningSecretStateAnswer>['data'] }>(`${SIGNING_SECRET_URL}/activate`);

/** The operator's switch of a partner's self-service (operator API). */
export const setSelfService = (partnerId: string, enabled: boolean, reason: string) =>
  api.post(`/api/admin/v1/partners/${encodeURIComponent(partnerId)}/self-service`, { enabled, reason });
