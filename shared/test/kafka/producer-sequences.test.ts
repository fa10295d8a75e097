import { ProducerSequences, producerSequencesOf, type SequencedProducer } from '../../src/kafka/producer-sequences';

function producer(options: { transactional?: boolean; initialized?: boolean; failRenewals?: number } = {}) {
  let failures = options.failRenewals ?? 0;
  const renewals: string[] = [];
  const eos: SequencedProducer = {
    isInitialized: () => options.initialized ?? true,
    isTransactional: () => options.transactional ?? false,
    initProducerId: async () => {
      if (failures > 0) {
        failures -= 1;
        throw new Error('Connection error: connect ECONNREFUSED');
      }
      renewals.push('renewed');
    },
  };
  return { eos, renewals };
}

describe('ProducerSequences', () => {
  test('when a send fails with a write in doubt, then the next send waits for a new producer id', async () => {
    const { eos, renewals } = producer();
    const sequences = new ProducerSequences(eos);
    await sequences.beginSend();
    sequences.endSend(true);
    expect(renewals).toEqual([]);
    await sequences.beginSend();
    expect(renewals).toEqual(['renewed']);
    sequences.endSend(false);
    await sequences.beginSend();
    expect(renewals).toEqual(['renewed']); // once
  });

  test('when a send fails with nothing in doubt, then the producer id is kept', async () => {
    const { eos, renewals } = producer();
    const sequences = new ProducerSequences(eos);
    await sequences.beginSend();
    sequences.endSend(false);
    await sequences.beginSend();
    expect(renewals).toEqual([]);
  });

  test('when other sends are under way, then the renewal waits for them to end (they hold the locks it replaces)', async () => {
    const { eos, renewals } = producer();
    const sequences = new ProducerSequences(eos);
    await sequences.beginSend(); // still under way
    await sequences.beginSend();
    sequences.endSend(true);
    let next = false;
    const waiting = sequences.beginSend().then(() => (next = true));
    await new Promise((r) => setImmediate(r));
    expect([renewals, next]).toEqual([[], false]);
    sequences.endSend(false);
    await waiting;
    expect(renewals).toEqual(['renewed']);
  });

  test('when concurrent sends wait for a renewal, then the producer id is renewed once', async () => {
    const { eos, renewals } = producer();
    const sequences = new ProducerSequences(eos);
    await sequences.beginSend();
    sequences.endSend(true);
    await Promise.all([sequences.beginSend(), sequences.beginSend(), sequences.beginSend()]);
    expect(renewals).toEqual(['renewed']);
  });

  test('when the renewal fails (Kafka unreachable), then that send fails and the next one renews', async () => {
    const { eos, renewals } = producer({ failRenewals: 1 });
    const sequences = new ProducerSequences(eos);
    await sequences.beginSend();
    sequences.endSend(true);
    await expect(sequences.beginSend()).rejects.toThrow('ECONNREFUSED');
    await sequences.beginSend();
    expect(renewals).toEqual(['renewed']);
  });

  test.each([
    ['transactional (its caller aborts and replaces it)', { transactional: true }],
    ['not idempotent (no sequence numbers)', { initialized: false }],
  ])('when the producer is %s, then it is never renewed here', async (_name, options) => {
    const { eos, renewals } = producer(options);
    const sequences = new ProducerSequences(eos);
    await sequences.beginSend();
    sequences.endSend(true);
    await sequences.beginSend();
    expect(renewals).toEqual([]);
  });

  test('when asked twice for the same producer, then the same ProducerSequences answers', () => {
    const { eos } = producer();
    expect(producerSequencesOf(eos)).toBe(producerSequencesOf(eos));
    expect(producerSequencesOf(producer().eos)).not.toBe(producerSequencesOf(eos));
  });
});
