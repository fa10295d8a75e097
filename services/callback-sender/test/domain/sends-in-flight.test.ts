import { SendsInFlight } from '../../src/domain/sends-in-flight';

const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('one check-and-send at a time per delivery', () => {
  test("one delivery's tasks run one after another in the order they came; another delivery's do not wait", async () => {
    const sends = new SendsInFlight();
    const order: string[] = [];
    const task = (name: string, ms: number) => async () => {
      order.push(`${name} starts`);
      await tick(ms);
      order.push(`${name} ends`);
      return name;
    };
    const done = await Promise.all([sends.one('d-1', task('a', 30)), sends.one('d-1', task('b', 1)), sends.one('d-2', task('c', 1))]);
    expect(done).toEqual(['a', 'b', 'c']);
    expect(order).toEqual(['a starts', 'c starts', 'c ends', 'a ends', 'b starts', 'b ends']);
  });

  test('a task that fails rejects its own caller only: the next of its delivery runs', async () => {
    const sends = new SendsInFlight();
    const failing = sends.one('d-1', () => Promise.reject(new Error('store away')));
    const next = sends.one('d-1', () => Promise.resolve('sent'));
    await expect(failing).rejects.toThrow('store away');
    await expect(next).resolves.toBe('sent');
  });
});
