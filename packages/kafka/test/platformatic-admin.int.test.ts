import { createServer, type AddressInfo } from 'node:net';
import { PlatformaticAdmin } from '../src/platformatic-admin';

/*
 * Platformatic's client is an ES module only, loaded by platformatic-admin.ts, the one module that
 * imports it with a plain import(). This loads it as the integration tests run jest (with
 * --experimental-vm-modules; the unit project, without it, cannot) and asks a broker that is not
 * there: its failure comes out in Kafka's terms.
 */
test('when Platformatic’s client is asked and no broker answers, then it loads and fails as a KafkaAdminError', async () => {
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const { port } = closed.address() as AddressInfo;
  await new Promise((resolve) => closed.close(resolve)); // nothing listens on the port now
  const admin = new PlatformaticAdmin({
    clientId: 'test',
    brokers: [`127.0.0.1:${port}`],
    connectionTimeoutMs: 1000,
    requestTimeoutMs: 1000,
  });
  try {
    await expect(admin.describeCluster()).rejects.toMatchObject({ name: 'KafkaAdminError', type: '_TRANSPORT' });
  } finally {
    await admin.close();
  }
});
