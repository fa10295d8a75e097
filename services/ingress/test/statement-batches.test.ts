import { StatementBatches } from '../src/adapters/store/statement-batches';

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

const refusal = (why: string) => new Error(`refused: ${why}`);
const later = () => Date.now() + 60_000;
const turn = () => new Promise((resolve) => setImmediate(resolve));

test('when the store is idle, then a request goes alone at once; while statements run, the requests meanwhile share the next one', async () => {
  const { batches, settle, statement } = manualStatement();
  const batched = new StatementBatches(statement, refusal, 1);
  const first = batched.submit(1, later());
  await turn();
  expect(batches).toEqual([[1]]);
  const rest = [2, 3, 4].map((i) => batched.submit(i, later()));
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
  const batched = new StatementBatches(statement, refusal, 1);
  const failing = [batched.submit(1, later())];
  await turn();
  failing.push(batched.submit(2, later()));
  settle[0]!(new Error('store away'));
  await expect(failing[0]).rejects.toThrow('store away');
  await turn();
  settle[1]!(new Error('still away'));
  await expect(failing[1]).rejects.toThrow('still away');
  const afterwards = batched.submit(3, later());
  await turn();
  settle[2]!();
  expect(await afterwards).toBe(30);
});

test('a statement carries at most maxItems, and at most maxInFlight run at once', async () => {
  const { batches, settle, statement } = manualStatement();
  const batched = new StatementBatches(statement, refusal, 2, 3);
  const all = Array.from({ length: 8 }, (_, i) => batched.submit(i, later()));
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

test('when the store is slow, then items past their deadline are refused rather than written, and a full queue refuses at once', async () => {
  const { batches, settle, statement } = manualStatement();
  const batched = new StatementBatches(statement, refusal, 1, 500, 2);
  const running = batched.submit(1, later());
  await turn();
  const expiring = batched.submit(2, Date.now() + 20);
  const waiting = batched.submit(3, later());
  await expect(batched.submit(4, later())).rejects.toThrow('refused: 2 writes are waiting');
  await new Promise((resolve) => setTimeout(resolve, 40));
  settle[0]!();
  await expect(expiring).rejects.toThrow('refused: the store did not take the write in time');
  await turn();
  expect(batches).toEqual([[1], [3]]);
  settle[1]!();
  expect([await running, await waiting]).toEqual([10, 30]);
});
