/**
 * The case whole: the delivery log projects from a local stack of its own, the stack is
 * stopped, wiped (its state dir deleted; the log's store, a database outside the stack, left in
 * place, as `stack wipe` leaves a DELIVERY_LOG_DATABASE_URL of the environment's own) and started again, and new records reuse the positions of the old ones. The
 * log must find them. Starts two real stacks one after the other (about a minute).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createKafkaClient } from '@hookstream/kafka';
import { createLogger } from '@hookstream/runtime';
import { defaultCacheDir, startStack, stopStack } from '@hookstream/cli/stack';
import type { DeliveryLogStore } from '../../src/adapters/store/database';
import { storeAt } from '../support/stores';
import { ensureTopics } from '../../../../test/helpers/ingress';
import { uniqueName } from '../../../../test/helpers/infrastructure';
import { freshStateDatabase, stopStateServer, type StateDatabase } from '../../../../test/helpers/state-database';
import { LogUnderReset } from '../support/log-under-reset';

const stateDir = mkdtempSync(path.join(os.tmpdir(), 'hookstream-wipe-'));
let storeDatabase: StateDatabase | undefined;
const prefix = `${uniqueName('log-wipe')}.`;
let store: DeliveryLogStore | undefined;

afterAll(async () => {
  await store?.close();
  await stopStack(stateDir);
  rmSync(stateDir, { recursive: true, force: true });
  await storeDatabase?.drop();
  await stopStateServer();
});

/** A fresh stack in the state dir, its topics made as `hookstream start` makes them, and a client of it. */
async function freshStack() {
  const stack = await startStack({ stateDir, cacheDir: defaultCacheDir(), ports: 'random' });
  const { settings } = stack.info;
  await ensureTopics(prefix, { ...process.env, ...settings, ...stack.secrets });
  const kafka = createKafkaClient({
    brokers: [settings.KAFKA_BROKERS],
    clientId: 'wipe-test',
    logger: createLogger({ service: 'test', level: 'silent' }),
  });
  return { stack, kafka, registryUrl: settings.SCHEMA_REGISTRY_URL };
}

test('when the stack is wiped and started again under a kept log, then the log projects the new records at the old positions', async () => {
  // A database outside the stack, kept, and opened again after the wipe as a restarted service would.
  storeDatabase = await freshStateDatabase();
  store = await storeAt(storeDatabase.url);
  const first = await freshStack();
  let log = new LogUnderReset(store.db, prefix, first.registryUrl);
  await log.produce(first.kafka, ['d-old-1', 'd-old-2'], 'acme');
  await log.project(first.kafka, () => log.waitForRows(2, "the first stack's records"));
  await store.close();
  await first.stack.stop();
  rmSync(stateDir, { recursive: true, force: true });

  store = await storeAt(storeDatabase.url);
  const second = await freshStack();
  log = new LogUnderReset(store.db, prefix, second.registryUrl);
  await log.produce(second.kafka, ['d-new-1', 'd-new-2'], 'acme');
  await log.project(second.kafka, () => log.waitForRows(4, "the new stack's records at the old positions", 60_000));

  const deliveries = await store.db.selectFrom('deliveries').select(['delivery_id', 'attempt_count']).orderBy('delivery_id').execute();
  expect(deliveries).toEqual(['d-new-1', 'd-new-2', 'd-old-1', 'd-old-2'].map((delivery_id) => ({ delivery_id, attempt_count: 1 })));
  const refused = await store.db
    .selectFrom('rejected_webhooks')
    .select(['rejection_id', 'source_generation'])
    .orderBy('rejection_id')
    .execute();
  expect(refused).toEqual([
    { rejection_id: 'r-d-new-1', source_generation: 1 },
    { rejection_id: 'r-d-new-2', source_generation: 1 },
    { rejection_id: 'r-d-old-1', source_generation: 0 },
    { rejection_id: 'r-d-old-2', source_generation: 0 },
  ]);
  await second.stack.stop();
}, 300_000);
