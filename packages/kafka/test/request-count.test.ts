import { Registry } from 'prom-client';
import { RequestCounts } from '../src/request-count';

async function counted(registry: Registry): Promise<Record<string, number>> {
  const metric = await registry.getSingleMetric('hookstream_kafka_requests_total')!.get();
  return Object.fromEntries(metric.values.map((v) => [String(v.labels.api), v.value]));
}

test('when clients report their statistics, then each request is counted once, summed over the clients', async () => {
  const counts = new RequestCounts();
  const registry = new Registry();
  counts.register(registry);
  const [producer, consumer] = [counts.listener(), counts.listener()];
  producer({ brokers: { 'b1:9092/1': { req: { Produce: 3, Metadata: 1 } } } as never });
  producer({ brokers: { 'b1:9092/1': { req: { Produce: 5, Metadata: 1 } } } as never }); // growth of 2
  consumer({ brokers: { 'b1:9092/1': { req: { Fetch: 4 } }, 'b2:9092/2': { req: { Fetch: 1, Metadata: 2 } } } as never });
  expect(await counted(registry)).toEqual({ Produce: 5, Metadata: 3, Fetch: 5 });
  consumer({ brokers: { 'b1:9092/1': { req: { Fetch: 4 } }, 'b2:9092/2': { req: { Fetch: 1, Metadata: 2 } } } as never });
  expect(await counted(registry)).toEqual({ Produce: 5, Metadata: 3, Fetch: 5 });
});

test('when two clients are made, then their counts are their own: nothing is shared at module level', async () => {
  const [first, second] = [new RequestCounts(), new RequestCounts()];
  const [one, two] = [new Registry(), new Registry()];
  first.register(one);
  second.register(two);
  first.listener()({ brokers: { 'b1:9092/1': { req: { Produce: 2 } } } as never });
  expect(await counted(one)).toEqual({ Produce: 2 });
  expect(await counted(two)).toEqual({});
});
