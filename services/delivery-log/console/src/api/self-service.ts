/*
 * The self-service calls the console makes (a partner's own endpoints and signing secret; an
 * operator's self-service switch), through the typed client (api.ts).
 */
import { client, write, type Schema } from '../api';

export type OwnEndpoints = Schema<'EndpointsHealth'>;
export type OwnEndpointView = OwnEndpoints['endpoints'][number];
export type SigningSecretView = Schema<'SigningSecretStatus'>['data'];
export type RotatedSecret = Schema<'RotatedSigningSecretAnswer'>['data'];

const endpointPath = (endpointId: string) => ({ params: { path: { endpointId } } });

export const endpointsCall = () => client.GET('/api/portal/v1/endpoints');
export const signingSecretCall = () => client.GET('/api/portal/v1/signing-secret');

export const addEndpoint = (body: Schema<'EndpointCreateRequest'>) => write(client.POST('/api/portal/v1/endpoints', { body }));

export const editEndpoint = (endpointId: string, body: Schema<'EndpointUpdateRequest'>) =>
  write(client.PATCH('/api/portal/v1/endpoints/{endpointId}', { ...endpointPath(endpointId), body }));

export const deleteEndpoint = (endpointId: string) =>
  write(client.DELETE('/api/portal/v1/endpoints/{endpointId}', { ...endpointPath(endpointId), body: {} }));

/** `overlapHours`: how long the secrets overlap (1 hour to 7 days). */
export const rotateSigningSecret = (overlapHours: number) =>
  write(client.POST('/api/portal/v1/signing-secret/rotate', { body: { overlap_hours: overlapHours } }));

export const activateSigningSecret = () => write(client.POST('/api/portal/v1/signing-secret/activate', { body: {} }));

/** The operator's switch of a partner's self-service (operator API). */
export const setSelfService = (partnerId: string, enabled: boolean, reason: string) =>
  write(client.POST('/api/admin/v1/partners/{partnerId}/self-service', { params: { path: { partnerId } }, body: { enabled, reason } }));
