/*
 * Onboarding through the operator API: the partner use cases `hookstream partners` runs
 * (PartnerChanges: same validation, same audit, field by field the same spec), and portal tokens
 * for a partner's people, listed and revoked one by one. Every write names its reason; the
 * operator is the audit's actor.
 */
import { describePartner, type PartnerChanges, type PartnerDirectory, type AuditedWriter } from '@hookstream/partners';
import type { PolicyStatusEventValue } from '@hookstream/contract';
import { describeError, KafkaUnavailableError } from '@hookstream/errors';
import express, { Router, type Request } from 'express';
import { notFound } from './refusals';
import { issuePortalLink, revokePortalLink } from '../../domain/portal-links';
import { setPartnerStatus } from '../../domain/set-partner-status';
import { PartnerCreateBody, PartnerUpdateBody, PortalTokenBody, ReasonBody, RotateKeyBody, SelfServiceBody } from './schemas/admin-schemas';
import { operatorActor, operatorOf } from './auth/operator-auth';
import type { IssuedCredentials } from '../../adapters/store/issued-credentials';
import type { PortalTokens } from '../../adapters/signing/portal-tokens';
import { idParam, parseInput } from './request-input';
import { PartnerListQuery } from './schemas/operator-view-schemas';
import { NoQuery } from './schemas/schemas';
import { eventCatalogue } from '../../domain/event-catalogue';

export interface AdminPartnerDeps {
  partners: PartnerDirectory;
  changes: PartnerChanges;
  portalTokens: PortalTokens;
  issuedCredentials: IssuedCredentials;
  audit: AuditedWriter;
  /** The contract's sample policy: what the event catalogue's examples are built from. */
  samplePolicy: PolicyStatusEventValue['policy'];
}

const body = express.json({ limit: '256kb', type: () => true });
const actorOf = (req: Request) => operatorActor(operatorOf(req.res!.locals));

/** How long a request waits for partner-config to be read to its end before it names a partner unknown (503 past it). */
const CATCH_UP_MS = 5_000;

export function adminPartnerRoutes({ partners, changes, portalTokens, issuedCredentials, audit, samplePolicy }: AdminPartnerDeps): Router {
  const router = Router();
  const stores = { portalTokens, issuedCredentials, audit };
  /**
   * The partner named in the path; 404 when there is none. One this replica does not know yet is
   * looked for again after reading partner-config to its end: created a moment ago through another
   * replica or the CLI, it is found (a write right after an onboarding got 404 before).
   */
  const partnerIdOf = async (req: Request) => {
    const id = idParam(req.params['partnerId'] as string | undefined);
    if (id && !partners.get(id)) {
      await partners.caughtUp(CATCH_UP_MS).catch((error: unknown) => {
        throw new KafkaUnavailableError(`partner-config could not be read up to its end (${describeError(error)})`, error);
      });
    }
    if (!id || !partners.get(id)) throw notFound('partner');
    return id;
  };

  router.get('/partners', (req, res) => {
    const { search } = parseInput(PartnerListQuery, req.query, 'query');
    const wanted = search?.toLowerCase();
    const found = partners.list().filter((p) => !wanted || `${p.partner_id}\n${p.name}`.toLowerCase().includes(wanted));
    res.json({ data: found.map(describePartner) });
  });

  router.get('/partners/:partnerId', async (req, res) => {
    res.json({ data: describePartner(partners.get(await partnerIdOf(req))!) });
  });

  router.get('/partners/:partnerId/event-types', async (req, res) => {
    parseInput(NoQuery, req.query, 'query');
    res.json({ data: eventCatalogue(partners.get(await partnerIdOf(req))!, samplePolicy) });
  });

  router.post('/partners', body, async (req, res) => {
    const input = parseInput(PartnerCreateBody, req.body, 'body');
    const { partner, apiKey } = await changes.create(input.partner, actorOf(req), input.reason);
    res
      .status(201)
      .json({ data: { partner_id: partner.partner_id, key_id: apiKey.keyId, api_key: apiKey.key, partner: describePartner(partner) } });
  });

  router.patch('/partners/:partnerId', body, async (req, res) => {
    const partnerId = await partnerIdOf(req);
    const input = parseInput(PartnerUpdateBody, req.body, 'body');
    res.json({ data: describePartner(await changes.update(partnerId, input.changes, actorOf(req), input.reason, input.revision)) });
  });

  for (const [action, status] of [
    ['disable', 'DISABLED'],
    ['enable', 'ACTIVE'],
  ] as const) {
    router.post(`/partners/:partnerId/${action}`, body, async (req, res) => {
      const partnerId = await partnerIdOf(req);
      const input = parseInput(ReasonBody, req.body, 'body');
      const partner = await setPartnerStatus(changes, issuedCredentials, { partnerId, status, actor: actorOf(req), reason: input.reason });
      res.json({ data: describePartner(partner) });
    });
  }

  // The partner's own changes of its endpoints and signing secret (the partner API), on or off.
  router.post('/partners/:partnerId/self-service', body, async (req, res) => {
    const partnerId = await partnerIdOf(req);
    const input = parseInput(SelfServiceBody, req.body, 'body');
    res.json({ data: describePartner(await changes.setSelfService(partnerId, input.enabled, actorOf(req), input.reason)) });
  });

  router.post('/partners/:partnerId/api-keys/rotate', body, async (req, res) => {
    const partnerId = await partnerIdOf(req);
    const input = parseInput(RotateKeyBody, req.body, 'body');
    const rotated = await changes.rotateKey(partnerId, actorOf(req), input.reason, {
      // Whole milliseconds, as the CLI's --overlap-hours: a fraction of one cannot be an Avro long (expires_at).
      overlapMs: Math.round(input.overlap_hours * 3_600_000),
      expiresAt: input.expires_at ? Date.parse(input.expires_at) : null,
    });
    res.status(201).json({ data: { ...newKeyAnswer(rotated), partner: describePartner(rotated.partner) } });
  });

  router.post('/partners/:partnerId/api-keys/:keyId/revoke', body, async (req, res) => {
    const partnerId = await partnerIdOf(req);
    const input = parseInput(ReasonBody, req.body, 'body');
    const keyId = idParam(req.params.keyId) ?? '';
    res.json({ data: describePartner(await changes.revokeKey(partnerId, keyId, actorOf(req), input.reason)) });
  });

  router.post('/partners/:partnerId/portal-tokens', body, async (req, res) => {
    const partnerId = await partnerIdOf(req);
    const input = parseInput(PortalTokenBody, req.body, 'body');
    const issued = await issuePortalLink(stores, {
      partnerId,
      validSeconds: input.ttl_minutes * 60,
      actor: actorOf(req),
      reason: input.reason,
    });
    const expiresAt = issued.expiresAt.toISOString();
    res.status(201).json({ data: { token: issued.token, token_id: issued.id, partner_id: partnerId, expires_at: expiresAt } });
  });

  router.get('/partners/:partnerId/portal-tokens', async (req, res) => {
    res.json({ data: await issuedCredentials.portalLinks(await partnerIdOf(req)) });
  });

  router.post('/partners/:partnerId/portal-tokens/:tokenId/revoke', body, async (req, res) => {
    const partnerId = await partnerIdOf(req);
    const input = parseInput(ReasonBody, req.body, 'body');
    const revocation = { partnerId, tokenId: idParam(req.params.tokenId), actor: actorOf(req), reason: input.reason };
    res.json({ data: await revokePortalLink(stores, revocation) });
  });

  return router;
}

/** A rotated key as both APIs answer it: the new key (shown once) and until when the others keep working. */
export function newKeyAnswer(rotated: Awaited<ReturnType<PartnerChanges['rotateKey']>>) {
  return {
    partner_id: rotated.partner.partner_id,
    key_id: rotated.apiKey.keyId,
    api_key: rotated.apiKey.key,
    retiring: rotated.retiring.map((k) => ({ key_id: k.key_id, expires_at: new Date(k.expires_at).toISOString() })),
  };
}
