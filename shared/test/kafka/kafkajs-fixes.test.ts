import { applyKafkajsFixes, type KafkajsRequestQueue } from '../../src/kafka/kafkajs-fixes';

/** kafkajs's own request queue class (internal), the one every broker connection uses. */
const RequestQueue = require('kafkajs/src/network/requestQueue') as new (options: object) => KafkajsRequestQueue & { destroy(): void };

const silent = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

function newQueue() {
  return new RequestQueue({ maxInFlightRequests: null, requestTimeout: 30_000, clientId: 'test', broker: 'b:1', logger: silent });
}

/** How many times the queue checks its pending requests over `ms` after one check. */
async function checksAfterOneCheck(queue: KafkajsRequestQueue, ms: number): Promise<number> {
  let checks = 0;
  const check = queue.checkPendingRequests.bind(queue);
  queue.checkPendingRequests = () => {
    checks += 1;
    check();
  };
  queue.checkPendingRequests(); // what kafkajs does after every response
  await new Promise((resolve) => setTimeout(resolve, ms));
  return checks;
}

test('given kafkajs 2.2.4, then the fix is in force', () => {
  expect(applyKafkajsFixes()).toBe(true);
});

test('given an idle queue (nothing pending, no throttle), then a check arms no timer: no 1 ms loop', async () => {
  applyKafkajsFixes();
  const queue = newQueue();
  try {
    // Unfixed, the check re-arms a 1 ms timer every time: about 100 checks in 100 ms.
    expect(await checksAfterOneCheck(queue, 100)).toBe(1);
    expect(queue.throttleCheckTimeoutId).toBeNull();
  } finally {
    queue.destroy();
  }
});

test('given a throttled queue with a request pending, then it is checked again when the throttle ends', async () => {
  applyKafkajsFixes();
  const queue = newQueue();
  try {
    queue.throttledUntil = Date.now() + 50;
    queue.pending.push({ pendingSince: Date.now() }); // checkPendingRequests sends nothing while throttled
    queue.scheduleCheckPendingRequests();
    expect(queue.throttleCheckTimeoutId).not.toBeNull();
    queue.pending.length = 0; // nothing to send when the timer fires
    const checked = new Promise<void>((resolve) => {
      queue.checkPendingRequests = () => resolve();
    });
    await checked;
  } finally {
    queue.destroy();
  }
});

test('given a queue with a request pending and no throttle (in-flight limit reached), then a check is armed at kafkajs own interval', () => {
  applyKafkajsFixes();
  const queue = newQueue();
  try {
    queue.pending.push({});
    queue.scheduleCheckPendingRequests();
    expect(queue.throttleCheckTimeoutId).not.toBeNull();
  } finally {
    queue.destroy();
  }
});
