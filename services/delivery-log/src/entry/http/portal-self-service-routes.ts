/*
 * The partner API's self-service (/api/portal/v1): a partner's own callback endpoints (listed with
 * their health; added, edited, deleted) and its signing secret (rotated with an overlap, an
 * HMAC_SHA256 switch activated early). Reads take a portal link too; every write needs the API key
 * (self-service.ts says why), and is refused while an operator turned self-service off.
 */
import { signingSecretState, type PartnerChanges, type PartnerDirectory } from '@hookstream/partners';
import express, { Router, type Request } from 'express';
import type { PartnerHandle } from './partner-handle';
import { endpointHealthStore } from '../../adapters/store/endpoint-health-store';
import { addEndpoint, deleteEndpoint, editEndpoint, ownEndpoints, type CallbackUrlGuard } from '../../domain/manage-own-endpoints';
import { activateOwnSigningSecret, rotateOwnSigningSecret } from '../../domain/rotate-signing-secret';
import { refuseUnlessKeyHolderMay } from '../../domain/self-service';
import { partnerCallerOf } from './auth/partner-auth';
import { notFound } from './refusals';
import { idParam, parseInput } from './request-input';
import { NoQuery } from './schemas/schemas';
import {
  EndpointCreateBody,
  EndpointDeleteBody,
  EndpointUpdateBody,
  SigningSecretBody,
  SigningSecretRotateBody,
} from './schemas/self-service-schemas';

export interface SelfServiceDeps {
  partners: PartnerDirectory;
  changes: PartnerChanges;
  urlGuard: CallbackUrlGuard;
  /** Changes of its endpoints one partner may make in an hour. */
  endpointChangesPerHour: number;
  /** How long the old signing secret keeps signing, or the new one waits (HMAC_SHA256), in hours. */
  signingSecretOverlapHours: number;
}

/** A partner's own signing-secret rotations in a day: as many as it may rotate its own API key (KEY_LIMITS.partnerIssuesPerDay). */
const SIGNING_SECRET_ROTATIONS_PER_DAY = 5;
const HOUR_MS = 3_600_000;
const body = express.json({ limit: '16kb', type: () => true });
const iso = (at: number | null | undefined) => (at === null || at === undefined ? null : new Date(at).toISOString());

/** `scopeOf`: the caller's handle (partner-handle.ts): its scoped reads and its self-service places. */
export function selfServiceRoutes(deps: SelfServiceDeps, scopeOf: (req: Request) => PartnerHandle): Router {
  const router = Router();
  const partnerOf = (req: Request) => partnerCallerOf(req.res!.locals).partnerId;
  const writer = (req: Request, what: string) => {
    refuseUnlessKeyHolderMay(partnerCallerOf(req.res!.locals).holds, what);
    return partnerOf(req);
  };
  const endpointDeps = (req: Request) => ({
    ...deps,
    places: scopeOf(req).places,
    limit: { kind: 'endpoints' as const, count: deps.endpointChangesPerHour, windowMs: HOUR_MS },
  });
  /** `overlapHours`: the partner's choice (bounded by SigningSecretRotateBody), else the deployment's. */
  const secretDeps = (req: Request, overlapHours = deps.signingSecretOverlapHours) => ({
    ...deps,
    places: scopeOf(req).places,
    limit: { kind: 'signing-secret' as const, count: SIGNING_SECRET_ROTATIONS_PER_DAY, windowMs: 24 * HOUR_MS },
    overlapHours,
  });
  const endpointIdOf = (req: Request) => {
    const id = idParam(req.params['endpointId'] as string | undefined);
    if (!id) throw notFound('endpoint');
    return id;
  };

  router.get('/endpoints', async (req, res) => {
    parseInput(NoQuery, req.query, 'query');
    const partner = deps.partners.get(partnerOf(req));
    if (!partner) throw notFound('partner');
    res.json({ data: await scopeOf(req).read((scoped) => ownEndpoints(endpointHealthStore(scoped), partner)) });
  });

  router.post('/endpoints', body, async (req, res) => {
    const partnerId = writer(req, 'change callback endpoints');
    const { reason, ...input } = parseInput(EndpointCreateBody, req.body ?? {}, 'body');
    res.status(201).json({ data: await addEndpoint(endpointDeps(req), partnerId, input, reason ?? 'added from the partner API') });
  });

  router.patch('/endpoints/:endpointId', body, async (req, res) => {
    const partnerId = writer(req, 'change callback endpoints');
    const endpointId = endpointIdOf(req);
    const { reason, ...input } = parseInput(EndpointUpdateBody, req.body ?? {}, 'body');
    res.json({ data: await editEndpoint(endpointDeps(req), partnerId, endpointId, input, reason ?? 'edited from the partner API') });
  });

  router.delete('/endpoints/:endpointId', body, async (req, res) => {
    const partnerId = writer(req, 'change callback endpoints');
    const endpointId = endpointIdOf(req);
    const { reason } = parseInput(EndpointDeleteBody, req.body ?? {}, 'body');
    await deleteEndpoint(endpointDeps(req), partnerId, endpointId, reason ?? 'deleted from the partner API');
    res.status(204).end();
  });

  router.get('/signing-secret', (req, res) => {
    parseInput(NoQuery, req.query, 'query');
    const partner = deps.partners.get(partnerOf(req));
    if (!partner) throw notFound('partner');
    const state = signingSecretState(partner, Date.now());
    res.json({
      data: {
        method: partner.outbound_auth?.method ?? null,
        rotatable: state !== null,
        previous_secret_until: state?.method === 'STANDARD_WEBHOOKS' ? iso(state.previous_secret_until) : null,
        next_secret_from: state?.method === 'HMAC_SHA256' ? iso(state.next_secret_from) : null,
        self_service: partner.self_service !== false,
      },
    });
  });

  router.post('/signing-secret/rotate', body, async (req, res) => {
    const partnerId = writer(req, 'rotate the signing secret');
    const { reason, overlap_hours } = parseInput(SigningSecretRotateBody, req.body ?? {}, 'body');
    const { secret, state } = await rotateOwnSigningSecret(
      secretDeps(req, overlap_hours),
      partnerId,
      reason ?? 'rotated from the partner API',
    );
    res.status(201).json({ data: { ...stateAnswer(state), secret } });
  });

  router.post('/signing-secret/activate', body, async (req, res) => {
    const partnerId = writer(req, 'activate a signing secret');
    const { reason } = parseInput(SigningSecretBody, req.body ?? {}, 'body');
    res.json({ data: stateAnswer(await activateOwnSigningSecret(secretDeps(req), partnerId, reason ?? 'activated from the partner API')) });
  });

  return router;
}

function stateAnswer(state: ReturnType<typeof signingSecretState> & object) {
  return state.method === 'STANDARD_WEBHOOKS'
    ? { method: state.method, previous_secret_until: iso(state.previous_secret_until) }
    : { method: state.method, next_secret_from: iso(state.next_secret_from) };
}
