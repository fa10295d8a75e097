/**
 * The notifications' sender on a real PostgreSQL server and a real HTTP receiver on loopback:
 * signed as the partner's callbacks are (checked with the official standardwebhooks verifier),
 * delivered only by a 200, retried on anything else then given up, refused by the SSRF guard when
 * the deployment does not allow the address, and never sent once an operator switched them off.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import type { DeliveryLogStore } from '../../src/adapters/store/database';
import { notificationPoster, type NotificationPoster } from '../../src/adapters/http/notification-post';
import { notificationSigner } from '../../src/adapters/signing/notification-signer';
import { notificationOutbox } from '../../src/adapters/store/notification-outbox';
import { operatorNotifications, subscriptionStore } from '../../src/adapters/store/notification-subscriptions';
import { ownerTransactions } from '../../src/adapters/store/partner-scope';
import { notificationBody } from '../../src/domain/notification-events';
import { sendDueNotifications, type SenderDeps } from '../../src/domain/send-notifications';
import { storesUnderTest } from '../support/stores';
import { acme, box, whsec } from './partner-fixture';

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

for (const [name, server] of storesUnderTest()) {
  describe(`sending notifications on ${name}`, () => {
    let s: DeliveryLogStore;
    let receiver: Server;
    let url: string;
    let received: Received[];
    /** What the receiver answers, one status per request (the last one repeats). */
    let answers: number[];
    const posters: NotificationPoster[] = [];
    const counted: string[] = [];

    const senderOn = (allow: string[], directoryReady = true): SenderDeps => {
      const poster = notificationPoster({ allow, timeoutMs: 2_000 });
      posters.push(poster);
      return {
        sending: notificationOutbox(s.db, 20),
        partners: { ready: directoryReady, get: (id) => (directoryReady && id === 'acme' ? acme() : undefined) },
        sign: notificationSigner(box),
        post: poster.post,
        retryDelaysMs: [0, 0],
        counted: (type, outcome) => counted.push(`${type} ${outcome}`),
        now: () => new Date(),
      };
    };
    /** Enqueues one endpoint.failing notification of acme's, as the evaluator does. */
    const enqueue = async (id: string) => {
      const occurredAt = new Date();
      await s.db
        .insertInto('notifications')
        .values({
          notification_id: id,
          partner_id: 'acme',
          type: 'endpoint.failing',
          body: notificationBody({ type: 'endpoint.failing', id, occurredAt, partnerId: 'acme', data: { endpoint_id: 'main' } }),
          occurred_at: occurredAt,
          state: 'pending',
          next_attempt_at: occurredAt,
        })
        .execute();
    };
    const row = (id: string) =>
      s.db
        .selectFrom('notifications')
        .select(['state', 'attempts', 'last_http_status', 'last_error'])
        .where('notification_id', '=', id)
        .executeTakeFirstOrThrow();

    beforeAll(async () => {
      receiver = createServer((req, res) => {
        let body = '';
        req.on('data', (chunk: Buffer) => (body += chunk.toString()));
        req.on('end', () => {
          received.push({ headers: req.headers, body });
          res.statusCode = answers.length > 1 ? answers.shift()! : answers[0]!;
          res.end('ok');
        });
      });
      await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
      url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/notifications`;
    });
    beforeEach(async () => {
      s = await server.fresh();
      received = [];
      answers = [200];
      counted.length = 0;
      await subscriptionStore(ownerTransactions(s.db)).put('acme', { url, events: ['endpoint.failing'] }, new Date());
    });
    afterEach(() => s?.close());
    afterAll(async () => {
      await Promise.all(posters.map((p) => p.close()));
      await new Promise((resolve) => receiver.close(resolve));
      await server.stop();
    });

    test('when the partner answers 200, then the notification is delivered, signed as its callbacks are, with no secret in it', async () => {
      await enqueue('n-1');

      await sendDueNotifications(senderOn(['127.0.0.0/8']), 60_000);

      expect(received).toHaveLength(1);
      const [request] = received;
      const verified = new Webhook(whsec).verify(request!.body, {
        'webhook-id': String(request!.headers['webhook-id']),
        'webhook-timestamp': String(request!.headers['webhook-timestamp']),
        'webhook-signature': String(request!.headers['webhook-signature']),
      });
      expect(verified).toEqual({
        type: 'endpoint.failing',
        id: 'n-1',
        occurred_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        partner_id: 'acme',
        data: { endpoint_id: 'main' },
      });
      expect(request!.headers['webhook-id']).toBe('n-1');
      expect(request!.body).not.toContain(whsec.slice('whsec_'.length));
      expect(await row('n-1')).toEqual({ state: 'delivered', attempts: 1, last_http_status: 200, last_error: null });
      expect(counted).toEqual(['endpoint.failing delivered']);
    });

    test('when the partner answers 500, then it is tried again with the same id, and given up after the last attempt', async () => {
      answers = [500, 201, 500];
      await enqueue('n-2');
      const sender = senderOn(['127.0.0.0/8']);

      for (let pass = 0; pass < 5; pass++) await sendDueNotifications(sender, 60_000);

      // Three attempts (two delays), a 201 no better than a 500: only 200 counts.
      expect(received.map((r) => [r.headers['webhook-id'], r.headers['x-hookstream-attempt']])).toEqual([
        ['n-2', '1'],
        ['n-2', '2'],
        ['n-2', '3'],
      ]);
      expect(await row('n-2')).toEqual({ state: 'given_up', attempts: 3, last_http_status: 500, last_error: 'answered 500, not 200' });
      expect(counted).toEqual(['endpoint.failing failed', 'endpoint.failing failed', 'endpoint.failing given_up']);
    });

    test('when the URL is on loopback and the deployment does not allow it, then the SSRF guard refuses it and it is given up unsent', async () => {
      await enqueue('n-3');

      await sendDueNotifications(senderOn([]), 60_000);

      expect(received).toEqual([]);
      expect(await row('n-3')).toEqual({ state: 'given_up', attempts: 1, last_http_status: null, last_error: 'SSRF_REFUSED' });
    });

    test('when an operator switched notifications off, then nothing is sent, and what was due is dropped', async () => {
      await enqueue('n-4');

      await operatorNotifications(s.db).setOperatorOff('acme', true, new Date());
      await sendDueNotifications(senderOn(['127.0.0.0/8']), 60_000);

      expect(received).toEqual([]);
      expect(await row('n-4')).toEqual(expect.objectContaining({ state: 'suppressed', attempts: 0 }));
    });

    test('when the partner directory has not loaded yet (a replica starting), then nothing is claimed and what is due stays to send', async () => {
      await enqueue('n-6');

      await sendDueNotifications(senderOn(['127.0.0.0/8'], false), 60_000);

      expect(received).toEqual([]);
      expect(await row('n-6')).toEqual(expect.objectContaining({ state: 'pending', attempts: 0 }));
      await sendDueNotifications(senderOn(['127.0.0.0/8']), 60_000);
      expect(await row('n-6')).toEqual(expect.objectContaining({ state: 'delivered', attempts: 1 }));
    });

    test('when a notification is claimed, then another sender skips it while its lease runs', async () => {
      await enqueue('n-5');
      const outbox = notificationOutbox(s.db, 20);

      const [first, second] = await Promise.all([outbox.claimDue(new Date(), 10, 60_000), outbox.claimDue(new Date(), 10, 60_000)]);

      expect([...first, ...second].map((n) => n.notificationId)).toEqual(['n-5']);
    });
  });
}
