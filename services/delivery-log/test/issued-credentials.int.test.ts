/**
 * Sessions and portal links in the store, on a real PostgreSQL server: one revoked (with the sessions opened
 * with it) holds no more; one issued before its partner's last disable in the audit trail holds
 * no more, one issued after does; a partner holds at most 50 live portal links; expired rows are
 * pruned. Prints what a lookup costs.
 */
import { createLogger } from '@hookstream/runtime';
import { CREDENTIAL_LIMITS, IssuedCredentials, type NewCredential } from '../src/adapters/store/issued-credentials';
import { Pruner } from '../src/adapters/store/pruner';
import type { DeliveryLogStore } from '../src/adapters/store/database';
import { storesUnderTest } from './support/stores';

const MINUTE = 60_000;
const at = (ms: number) => new Date(Date.now() + ms);
const link = (partnerId: string, issuedAt = at(0)): NewCredential => ({
  kind: 'portal_link',
  partnerId,
  operatorId: 'op_1',
  issuedAt,
  expiresAt: new Date(issuedAt.getTime() + 60 * MINUTE),
});
const by = { actor: 'op_1', reason: 'test' };

for (const [name, store] of storesUnderTest()) {
  describe(`issued credentials on ${name}`, () => {
    let s: DeliveryLogStore;
    let issued: IssuedCredentials;
    beforeAll(async () => {
      s = await store.fresh();
      issued = new IssuedCredentials(s.db);
    });
    afterAll(async () => {
      await s?.close();
      await store.stop();
    });

    test('when a portal link is revoked, then it and the sessions opened with it hold no more, and the list shows who and why', async () => {
      const linkId = await issued.record(link('acme'));
      const sessionId = await issued.record({ ...link('acme'), kind: 'console_session', operatorId: null, portalLinkId: linkId });
      const other = await issued.record(link('acme'));
      expect([await issued.holds(linkId), await issued.holds(sessionId)]).toEqual([true, true]);

      expect(await issued.revoke(linkId, { actor: 'op_2', reason: 'shared in a ticket' })).toBe(true);
      expect([await issued.holds(linkId), await issued.holds(sessionId), await issued.holds(other)]).toEqual([false, false, true]);
      expect(await issued.revoke(linkId, by)).toBe(false);
      const listed = await issued.portalLinks('acme');
      expect(listed.map((l) => l.token_id).sort()).toEqual([linkId, other].sort());
      expect(listed.find((l) => l.token_id === linkId)).toMatchObject({ revoked_by: 'op_2', revoke_reason: 'shared in a ticket' });
      expect(await issued.holds('unknown')).toBe(false);
    });

    test('when a partner was disabled (its audit record), then what it was issued before holds no more, and what after does', async () => {
      const before = await issued.record(link('globex', at(-10 * MINUTE)));
      const operatorSession = await issued.record({
        ...link('x', at(-10 * MINUTE)),
        kind: 'console_session',
        partnerId: null,
        operatorId: 'op_1',
      });
      await s.db
        .insertInto('audit_log')
        .values({
          ...{ audit_id: 'a-1', at: at(-5 * MINUTE), actor_type: 'cli', actor_id: 'cli', actor_name: 'someone' },
          ...{ action: 'partner.disable', subject_type: 'partner', subject_id: 'globex', reason: 'unpaid', detail: '{}' },
        })
        .execute();
      const after = await issued.record(link('globex', at(-MINUTE)));
      expect([await issued.holds(before), await issued.holds(after), await issued.holds(operatorSession)]).toEqual([false, true, true]);

      // The operator API's disable also revokes at once, before the audit record is projected.
      expect(await issued.revokeOfPartner('globex', by)).toBe(2);
      expect(await issued.holds(after)).toBe(false);
    });

    test(`when a partner holds ${CREDENTIAL_LIMITS.portalLinksPerPartner} live portal links, then another is refused until one is revoked`, async () => {
      const ids = [];
      for (let i = 0; i < CREDENTIAL_LIMITS.portalLinksPerPartner; i++) ids.push(await issued.record(link('busy')));
      await expect(issued.record(link('busy'))).rejects.toMatchObject({ httpStatus: 409 });
      // Another partner's are counted apart.
      await expect(issued.record(link('quiet'))).resolves.toEqual(expect.any(String));
      await issued.revoke(ids[0]!, by);
      await expect(issued.record(link('busy'))).resolves.toEqual(expect.any(String));
    });

    test('when one portal link opens its most sessions, then it opens no more, while the partner’s key still signs in; a signed-out session leaves no row', async () => {
      const linkId = await issued.record(link('shared'));
      const session = (portalLinkId: string | null): NewCredential => ({
        kind: 'console_session',
        partnerId: 'shared',
        operatorId: null,
        portalLinkId,
        issuedAt: at(0),
        expiresAt: at(60 * MINUTE),
      });
      const opened = [];
      for (let i = 0; i < CREDENTIAL_LIMITS.sessionsPerPortalLink; i++) opened.push(await issued.record(session(linkId)));
      await expect(issued.record(session(linkId))).rejects.toMatchObject({ httpStatus: 429 });
      await expect(issued.record(session(null))).resolves.toEqual(expect.any(String));

      await issued.end(opened[0]!);
      const left = await s.db.selectFrom('issued_credentials').select('credential_id').where('credential_id', '=', opened[0]!).execute();
      expect(left).toEqual([]);
      expect(await issued.holds(opened[0])).toBe(false);
      await expect(issued.record(session(linkId))).resolves.toEqual(expect.any(String));
    });

    test('when a credential has expired, then it holds no more and the pruner removes its row', async () => {
      const expired = await issued.record({ ...link('initech', at(-120 * MINUTE)) });
      expect(await issued.holds(expired)).toBe(false);
      const pruner = new Pruner({
        db: s.db,
        logger: createLogger({ service: 'test', level: 'silent' }),
        retentionDays: 30,
        intervalMs: 60_000,
      });
      expect((await pruner.prune()).issuedCredentials).toBe(1);
      expect(await s.db.selectFrom('issued_credentials').select('credential_id').where('credential_id', '=', expired).execute()).toEqual(
        [],
      );
    });

    test('a lookup (what each request adds) is timed', async () => {
      const id = await issued.record(link('timed'));
      await issued.holds(id);
      const started = process.hrtime.bigint();
      for (let i = 0; i < 500; i++) await issued.holds(id);
      const ms = Number(process.hrtime.bigint() - started) / 1e6 / 500;
      console.log(`${name}: one credential lookup ${ms.toFixed(3)} ms (mean of 500, this machine, shared)`);
      expect(ms).toBeLessThan(20);
    });
  });
}
