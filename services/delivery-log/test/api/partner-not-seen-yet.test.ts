/**
 * An operator's request naming a partner this replica has not read yet (onboarded a moment ago
 * through another replica or the CLI): the route reads partner-config to its end before it answers
 * 404. It answered 404 at once before, and a write right after an onboarding failed (seen in CI).
 */
import type { AddressInfo } from 'node:net';
import express, { type ErrorRequestHandler } from 'express';
import type { Partner, PartnerDirectory } from '@hookstream/partners';
import { refusalOf } from '../../src/entry/http/api-router';
import { adminPartnerRoutes } from '../../src/entry/http/admin-partner-routes';

/** A directory that knows `known` only once it has been asked to catch up, as a replica whose view lags. */
function laggingDirectory(known: Partner) {
  let caughtUp = false;
  const directory = {
    caughtUps: 0,
    get: (id: string) => (caughtUp && id === known.partner_id ? known : undefined),
    caughtUp: async () => {
      directory.caughtUps += 1;
      caughtUp = true;
    },
  };
  return directory;
}

async function serve(directory: ReturnType<typeof laggingDirectory>) {
  const app = express();
  // The route under test lists the partner's portal links: a store that has none.
  const issuedCredentials = { portalLinks: async () => [] };
  app.use(
    adminPartnerRoutes({ partners: directory as unknown as PartnerDirectory, issuedCredentials } as unknown as Parameters<
      typeof adminPartnerRoutes
    >[0]),
  );
  const onError: ErrorRequestHandler = (error, _req, res, _next) => void res.status(refusalOf(error, () => {}).httpStatus).end();
  app.use(onError);
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() };
}

const partner = {
  partner_id: 'just-onboarded',
  name: 'Just Onboarded',
  status: 'ACTIVE',
  api_keys: [],
  callback_endpoints: [],
} as unknown as Partner;

test('when the partner is not in this replica’s view yet, then the view is read to its end and the partner found', async () => {
  const directory = laggingDirectory(partner);
  const served = await serve(directory);
  try {
    const answer = await fetch(`${served.url}/partners/just-onboarded/portal-tokens`);
    expect(answer.status).toBe(200);
    expect(directory.caughtUps).toBe(1);
  } finally {
    served.close();
  }
});

test('when the partner is not there after reading to the end, then 404', async () => {
  const directory = laggingDirectory(partner);
  const served = await serve(directory);
  try {
    expect((await fetch(`${served.url}/partners/nobody/portal-tokens`)).status).toBe(404);
    expect(directory.caughtUps).toBe(1);
  } finally {
    served.close();
  }
});
