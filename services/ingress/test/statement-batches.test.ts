import { StatementBatches } from '../src/idempotency/statement-batches';

/** A statement the test settles by hand, recording the batches it was given. */
function manualStatement() {
  const batches: number[][] = [];
  const settle: Array<(fail?: Error) => void> = [];
  const statement = (items: readonly number[]) =>
    new Promise<number[]>((resolve, reject) => {
      batches.push([...items]);
      settle.push((fail) => (fail ? reject(fail) : resolve(items.map((i) => i * 10))));
    });
  return { batches, settle, statement };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

test('when the store is idle, then a request goes alone at once; while statements run, the requests meanwhile share the next one', async () => {
  const { batches, settle, statement } = manualStatement();
  const batched = new StatementBatches(statement, 1);
  const first = batched.submit(1);
  await turn();
  expect(batches).toEqual([[1]]);
  const rest = [2, 3, 4].map((i) => batched.submit(i));
  await turn();
  expect(batches).toEqual([[1]]);
  settle[0]!();
  expect(await first).toBe(10);
  await turn();
  expect(batches).toEqual([[1], [2, 3, 4]]);
  settle[1]!();
  expect(await Promise.all(rest)).toEqual([20, 30, 40]);
});

test('when a statement fails, then each of its requests fails with its error and later ones go on', async () => {
  const { settle, statement } = manualStatement();
  const batched = new StatementBatches(statement, 1);
  const failing = [batched.submit(1)];
  await turn();
  failing.push(batched.submit(2));
  settle[0]!(new Error('store away'));
  await expect(failing[0]).rejects.toThrow('store away');
  await turn();
  settle[1]!(new Error('still away'));
  await expect(failing[1]).rejects.toThrow('still away');
  const later = batched.submit(3);
  await turn();
  settle[2]!();
  expect(await later).toBe(30);
});

test('a statement carries at most maxItems, and at most maxInFlight run at once', async () => {
  const { batches, settle, statement } = manualStatement();
  const batched = new StatementBatches(statement, 2, 3);
  const all = Array.from({ length: 8 }, (_, i) => batched.submit(i));
  await turn();
  // The first two find a free slot each; the rest wait for one.
  expect(batches).toEqual([[0], [1]]);
  settle[0]!();
  await turn();
  expect(batches).toEqual([[0], [1], [2, 3, 4]]);
  settle[1]!();
  await turn();
  expect(batches).toEqual([[0], [1], [2, 3, 4], [5, 6, 7]]);
  settle[2]!();
  settle[3]!();
  expect(await Promise.all(all)).toEqual([0, 10, 20, 30, 40, 50, 60, 70]);
});
