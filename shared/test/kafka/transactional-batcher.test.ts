import type { Kafka } from 'kafkajs';
import { KafkaUnavailableError, TransactionalBatcher, createLogger } from '@hookstream/shared';

/** Fake kafkajs producers whose transactions commit when the test says. */
function fakeKafka() {
  const transactions: Array<{ producerId: string; topics: Array<[string, number]>; commit: (error?: unknown) => void; aborted: boolean }> =
    [];
  const created: string[] = [];
  const kafka = {
    producer: ({ transactionalId }: { transactionalId: string }) => {
      created.push(transactionalId);
      return {
        connect: () => Promise.resolve(),
        disconnect: () => Promise.resolve(),
        transaction: () => {
          let settle: (error?: unknown) => void = () => undefined;
          const done = new Promise<void>((resolve, reject) => (settle = (error) => (error ? reject(error) : resolve())));
          const entry = { producerId: transactionalId, topics: [] as Array<[string, number]>, commit: settle, aborted: false };
          transactions.push(entry);
          return Promise.resolve({
            sendBatch: ({ topicMessages }: { topicMessages: Array<{ topic: string; messages: unknown[] }> }) => {
              entry.topics = topicMessages.map((t) => [t.topic, t.messages.length]);
              return Promise.resolve([]);
            },
            commit: () => done,
            abort: () => {
              entry.aborted = true;
              return Promise.resolve();
            },
          });
        },
      };
    },
  } as unknown as Kafka;
  return { kafka, transactions, created };
}

const tick = () => new Promise((r) => setTimeout(r, 5));
const write = (topic: string) => [{ topic, message: { key: 'k', value: Buffer.from('v') } }];
const logger = createLogger({ service: 'test', level: 'silent' });

describe('TransactionalBatcher', () => {
  test('writes that arrive while a transaction is in flight share the next one, and each settles with its own transaction', async () => {
    const { kafka, transactions } = fakeKafka();
    const batcher = new TransactionalBatcher({ kafka, transactionalId: 'tx', logger });
    const first = batcher.commit(write('a'));
    await tick();
    const later = [batcher.commit(write('a')), batcher.commit([...write('a'), ...write('b')])];
    await tick();
    expect(transactions).toHaveLength(1);
    transactions[0]!.commit();
    await first;
    await tick();
    expect(transactions).toHaveLength(2);
    expect(transactions[1]!.topics).toEqual([
      ['a', 2],
      ['b', 1],
    ]);
    transactions[1]!.commit();
    await Promise.all(later);
    expect(batcher.stats).toEqual({ transactions: 2, writes: 3, failures: 0 });
  });

  test('with several producers, transactions run side by side under distinct transactional ids', async () => {
    const { kafka, transactions, created } = fakeKafka();
    const batcher = new TransactionalBatcher({ kafka, transactionalId: 'tx', logger, producers: 2 });
    const a = batcher.commit(write('a'));
    const b = batcher.commit(write('b'));
    await tick();
    expect(transactions.map((t) => t.producerId).sort()).toEqual(['tx-0', 'tx-1']);
    expect(created.sort()).toEqual(['tx-0', 'tx-1']);
    for (const t of transactions) t.commit();
    await Promise.all([a, b]);
  });

  test('when a transaction fails, then only its writes are rejected, it is aborted, and its producer is replaced', async () => {
    const { kafka, transactions, created } = fakeKafka();
    const batcher = new TransactionalBatcher({ kafka, transactionalId: 'tx', logger });
    const failing = batcher.commit(write('a'));
    await tick();
    transactions[0]!.commit(Object.assign(new Error('Connection error'), { name: 'KafkaJSConnectionError' }));
    await expect(failing).rejects.toBeInstanceOf(KafkaUnavailableError);
    expect(transactions[0]!.aborted).toBe(true);
    const next = batcher.commit(write('a'));
    await tick();
    expect(created).toEqual(['tx', 'tx']);
    transactions[1]!.commit();
    await expect(next).resolves.toBeUndefined();
  });
});
