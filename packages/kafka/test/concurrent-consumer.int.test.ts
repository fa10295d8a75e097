import { spawn } from 'node:child_process';
import path from 'node:path';
import pino from 'pino';
import { GroupMember } from '../src/group-member/group-member';
import { sleep } from '@hookstream/runtime';
import { createTopics, readTopicToEnd, testKafka, uniqueName, waitFor } from '../../../test/helpers/infrastructure';

/**
 * What a GroupMember's records became in concurrent mode is written in its own transactions with its
 * group's offsets (KIP-447): a member that lost its partitions while a record was in flight writes
 * nothing of it once it goes on.
 */
const kafka = testKafka();

test('when a member is paused with a record in flight and its partition is taken over, then what it writes once it wakes is never read, and the new owner writes the record once', async () => {
  const [input, output, groupId] = [uniqueName('cc-in'), uniqueName('cc-out'), uniqueName('cc-group')];
  await createTopics(kafka, [{ topic: input }, { topic: output }]);
  const producer = kafka.producer();
  await producer.connect();
  await producer.send({ topic: input, messages: [{ key: 'k', value: 'a' }] });
  await producer.disconnect();
  const committed = async () => (await readTopicToEnd(output, kafka)).map((m) => m.value?.toString());

  const child = spawn(process.execPath, [path.join(__dirname, 'paused-member-child.js'), input, output, groupId], {
    env: process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let said = '';
  child.stdout.on('data', (chunk: Buffer) => (said += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (said += chunk.toString()));
  const owner = new GroupMember({
    kafka,
    logger: pino({ level: 'silent' }),
    groupId,
    session: { sessionTimeoutMs: 6000, heartbeatIntervalMs: 500 },
    topics: [input],
    fetch: { maxWaitMs: 50 },
    mode: {
      kind: 'concurrent',
      partitionConcurrency: 8,
      handle: (record) => Promise.resolve([{ topic: output, message: { key: 'k', value: `owner:${record.message.value?.toString()}` } }]),
    },
  });
  try {
    await waitFor(() => said.includes('started a'), 'the first member to start the record', 60_000);
    // Paused: no heartbeat, so the group expels it after its session timeout (6 s).
    child.kill('SIGSTOP');
    await owner.start();
    await waitFor(async () => (await committed()).length === 1, 'the new owner to write the record', 90_000);

    child.kill('SIGCONT');
    await waitFor(() => said.includes('done a'), 'the paused member to finish its record');
    // Its next round (100 ms) would have written it by now; give it a few more seconds all the same.
    await sleep(3000);
    expect(await committed()).toEqual(['owner:a']);
    // How it was kept out: its transaction refused by the coordinator, or the rebalance seen first.
    console.log(
      `the paused member, once woken: ${said.includes('transaction failed') ? 'its transaction was refused' : 'its partition was revoked before its round'}`,
    );
  } finally {
    child.kill('SIGKILL');
    await owner.stop();
  }
}, 150_000);
