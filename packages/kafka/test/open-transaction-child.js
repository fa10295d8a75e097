// A group member that writes its first batch and the batch's offsets in a transaction, says
// "open", and never commits: the test kills it so that its transaction stays open.
const { createKafkaClient } = require('../dist/index.js');
const { createLogger } = require('@hookstream/runtime');

const [input, output, groupId] = process.argv.slice(2);
const kafka = createKafkaClient({
  brokers: (process.env.KAFKA_BROKERS ?? '').split(','),
  clientId: 'open-transaction',
  logger: createLogger({ service: 'open-transaction', level: 'silent' }),
});

async function main() {
  const producer = kafka.producer({ transactionalId: `${groupId}-dying`, transactionTimeoutMs: 5000, deliveryTimeoutMs: 5000 });
  await producer.connect();
  const consumer = kafka.consumer({ groupId, fromBeginning: true, sessionTimeoutMs: 6000, heartbeatIntervalMs: 500 });
  await consumer.connect();
  await consumer.subscribe({ topics: [input] });
  await consumer.run({
    eachBatch: async ({ batch }) => {
      const transaction = await producer.transaction();
      await transaction.send({ topic: output, messages: batch.messages.map((m) => ({ key: 'k', value: `dead:${m.value}` })) });
      const next = String(BigInt(batch.messages[batch.messages.length - 1].offset) + 1n);
      await transaction.sendOffsets({ consumer, topics: [{ topic: input, partitions: [{ partition: batch.partition, offset: next }] }] });
      process.stdout.write('open\n');
      await new Promise(() => undefined);
    },
  });
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
