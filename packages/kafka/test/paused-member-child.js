// A GroupMember (concurrent mode) that copies `input` to `output` (value `zombie:<value>`), each record
// taking 3 s (a slow delivery). The test pauses the process (SIGSTOP) while a record is in flight,
// so that the group expels it, and lets it go on once its partition has a new owner.
const { GroupMember, createKafkaClient } = require('../dist/index.js');
const { createLogger } = require('@hookstream/runtime');

const [input, output, groupId] = process.argv.slice(2);
const logger = createLogger({ service: 'paused-member', level: 'warn' });
const kafka = createKafkaClient({ brokers: (process.env.KAFKA_BROKERS ?? '').split(','), clientId: 'paused-member', logger });

const member = new GroupMember({
  kafka,
  logger,
  groupId,
  session: { sessionTimeoutMs: 6000, heartbeatIntervalMs: 500 },
  topics: [input],
  fetch: { maxWaitMs: 50 },
  mode: {
    kind: 'concurrent',
    partitionConcurrency: 8,
    handle: async (record) => {
      process.stdout.write(`started ${record.message.value}\n`);
      await new Promise((resolve) => setTimeout(resolve, 3000));
      process.stdout.write(`done ${record.message.value}\n`);
      return [{ topic: output, message: { key: 'k', value: `zombie:${record.message.value}` } }];
    },
  },
});

member.start().catch((error) => {
  console.error(error);
  process.exit(1);
});
