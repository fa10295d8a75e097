import type { Kafka } from '@hookstream/kafka';
import { createTopics, testKafka, uniqueName } from './helpers/infrastructure';

/**
 * A keyed record goes to the partition the Java producer's default partitioner picks for its key
 * (`toPositive(Utils.murmur2(keyBytes)) % numPartitions`), so Java and Hookstream producers agree
 * on where a key lives.
 *
 * The table was made once by the Java client itself: a single-file Java program run as
 * `java -cp kafka-clients-4.3.1.jar:slf4j-api-1.7.36.jar Murmur2Table.java` (OpenJDK 17, the jars
 * of the local stack's Kafka 4.3.1) printed, for each key's UTF-8 bytes and 3, 6 and 12 partitions,
 * `Utils.toPositive(Utils.murmur2(bytes)) % n`, checked equal to
 * `BuiltInPartitioner.partitionForKey(bytes, n)`. librdkafka's own default (consistent_random,
 * CRC32) puts most of these keys elsewhere.
 */
const JAVA_PARTITIONS: Array<[key: string, of3: number, of6: number, of12: number]> = [
  ['', 0, 3, 9],
  [' ', 0, 3, 9],
  ['a', 1, 4, 4],
  ['0', 2, 2, 8],
  ['key', 1, 1, 1],
  ['partner-1', 2, 5, 11],
  ['partner-42', 1, 4, 4],
  ['webhook:evt_01HZX3Q9', 0, 3, 3],
  ['Hello, World!', 1, 4, 10],
  ['the quick brown fox jumps over the lazy dog', 1, 4, 4],
  ['12345678', 0, 0, 6],
  ['tab\tand\nnewline', 1, 1, 1],
  ['\u00e9', 0, 3, 3],
  ['\u65e5\u672c\u8a9e\u306e\u30ad\u30fc', 2, 2, 2],
  ['\u0395\u03bb\u03bb\u03b7\u03bd\u03b9\u03ba\u03ac', 1, 1, 1],
  ['emoji-\ud83d\ude80-rocket', 0, 3, 9],
  ['\u00c5\u00c4\u00d6-\u00e5\u00e4\u00f6', 2, 5, 11],
  ['a'.repeat(300), 0, 0, 6],
  ['0123456789abcdefghijklmnopqrstuvwxyz'.repeat(10), 1, 1, 1],
];

/** The key of one NUL byte (Java: 2, 2, 8). */
const NUL_KEY: [key: string, of3: number, of6: number, of12: number] = ['\u0000', 2, 2, 8];

const PARTITION_COUNTS = [3, 6, 12] as const;

describe('the producer partitioner', () => {
  let kafka: Kafka;
  /** A topic of each partition count, made once. */
  const topics = new Map<number, string>();

  beforeAll(async () => {
    kafka = testKafka();
    for (const count of PARTITION_COUNTS) topics.set(count, uniqueName(`partitioner-${count}`));
    await createTopics(
      kafka,
      PARTITION_COUNTS.map((count) => ({ topic: topics.get(count)!, partitions: count })),
    );
  });

  /** The partition each key's record landed on, in `topic`; one send per record, so its metadata names that record's partition. */
  async function produce(topic: string, keys: Array<string | Buffer>): Promise<number[]> {
    const producer = kafka.producer();
    await producer.connect();
    try {
      return await Promise.all(
        keys.map(async (key) => {
          const metadata = await producer.send({ topic, messages: [{ key, value: 'v' }] });
          expect(metadata).toHaveLength(1);
          return metadata[0]!.partition;
        }),
      );
    } finally {
      await producer.disconnect();
    }
  }

  test.each(PARTITION_COUNTS.map((count, column) => [count, column] as const))(
    'when keyed records are produced to a topic of %i partitions, then each lands on the partition the Java client picks for its key',
    async (count, column) => {
      const landed = await produce(
        topics.get(count)!,
        JAVA_PARTITIONS.map(([key]) => key),
      );
      expect(JAVA_PARTITIONS.map(([key], i) => [key, landed[i]])).toEqual(JAVA_PARTITIONS.map((row) => [row[0], row[1 + column]]));
    },
  );

  test('when the key is a Buffer holding a NUL byte, then its record lands where the Java client puts that key', async () => {
    const [key, ...expected] = NUL_KEY;
    const landed = await Promise.all(PARTITION_COUNTS.map((count) => produce(topics.get(count)!, [Buffer.from(key)])));
    expect(landed.flat()).toEqual(expected);
  });

  // The binding copies a string key into librdkafka as a C string, cut at its first NUL; Hookstream's
  // producer sends text keys as their bytes (packages/kafka/src/producer.ts), so this holds.
  test('when the key is a string holding a NUL byte, then its record lands where the Java client puts that key', async () => {
    const [key, ...expected] = NUL_KEY;
    const landed = await Promise.all(PARTITION_COUNTS.map((count) => produce(topics.get(count)!, [key])));
    expect(landed.flat()).toEqual(expected);
  });
});
