import { PartnerLimiter } from '../../src/http/partner-limiter';

/** A task the test settles by hand, recording when it starts. */
function deferredTask<T = string>(started: string[], name: string) {
  let settle!: { resolve: (value: T) => void; reject: (error: Error) => void };
  const done = new Promise<T>((resolve, reject) => (settle = { resolve, reject }));
  const task = () => {
    started.push(name);
    return done;
  };
  return { task, ...settle };
}

/** Lets queued promise callbacks (slot hand-overs) run. */
const settled = () => new Promise((resolve) => setImmediate(resolve));

describe('PartnerLimiter', () => {
  it('when more tasks than perPartner are run for one partner, then at most perPartner are in flight, in FIFO order', async () => {
    const limiter = new PartnerLimiter({ perPartner: 3 });
    let inFlight = 0;
    let most = 0;
    const order: number[] = [];
    const runs = Array.from({ length: 20 }, (_, i) =>
      limiter.run('acme', async () => {
        order.push(i);
        most = Math.max(most, ++inFlight);
        await new Promise((resolve) => setTimeout(resolve, 1 + (i % 4)));
        inFlight -= 1;
        return i;
      }),
    );

    await expect(Promise.all(runs)).resolves.toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(most).toBe(3);
    expect(order).toEqual(Array.from({ length: 20 }, (_, i) => i));
  });

  it('when one partner is saturated, then another partner is not delayed', async () => {
    const limiter = new PartnerLimiter({ perPartner: 1 });
    const started: string[] = [];
    const slow = deferredTask(started, 'acme-1');
    const acmeFirst = limiter.run('acme', slow.task);
    const queued = deferredTask(started, 'acme-2');
    const acmeSecond = limiter.run('acme', queued.task);

    await expect(limiter.run('globex', async () => 'globex done')).resolves.toBe('globex done');
    expect(started).toEqual(['acme-1']);

    slow.resolve('acme-1 done');
    await expect(acmeFirst).resolves.toBe('acme-1 done');
    await settled();
    expect(started).toEqual(['acme-1', 'acme-2']);
    queued.resolve('acme-2 done');
    await expect(acmeSecond).resolves.toBe('acme-2 done');
  });

  it('when a task throws, then its error reaches the caller and its slot goes to the next task', async () => {
    const limiter = new PartnerLimiter({ perPartner: 1 });
    const started: string[] = [];
    const failing = deferredTask(started, 'failing');
    const first = limiter.run('acme', failing.task);
    const second = limiter.run('acme', async () => 'second done');

    failing.reject(new Error('partner answered 500'));

    await expect(first).rejects.toThrow('partner answered 500');
    await expect(second).resolves.toBe('second done');
  });

  it('when a task throws synchronously, then its slot is released too', async () => {
    const limiter = new PartnerLimiter({ perPartner: 1 });
    const throwing = (): Promise<string> => {
      throw new Error('bad request');
    };

    await expect(limiter.run('acme', throwing)).rejects.toThrow('bad request');
    await expect(limiter.run('acme', async () => 'next')).resolves.toBe('next');
  });

  it('when no option is given, then 16 run at once per partner', async () => {
    const limiter = new PartnerLimiter();
    const started: string[] = [];
    const tasks = Array.from({ length: 17 }, (_, i) => deferredTask(started, `t${i}`));
    const runs = tasks.map(({ task }) => limiter.run('acme', task));
    await settled();

    expect(started).toHaveLength(16);
    tasks.forEach(({ resolve }) => resolve('done'));
    await Promise.all(runs);
    expect(started).toHaveLength(17);
  });

  it.each([0, -1, 2.5])('when perPartner is %p, then construction throws', (perPartner) => {
    expect(() => new PartnerLimiter({ perPartner })).toThrow(RangeError);
  });
});
