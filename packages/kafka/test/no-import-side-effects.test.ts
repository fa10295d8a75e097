import pino from 'pino';
import type * as ClientModule from '../src/client';

/*
 * Importing the package changes nothing in the process: libuv's pool is sized when a client is made
 * (client.ts, sizeLibuvThreadPool), not when the module loads.
 */
test('when the package is imported, then process.env is as it was', () => {
  const saved = process.env.UV_THREADPOOL_SIZE;
  delete process.env.UV_THREADPOOL_SIZE;
  try {
    const before = { ...process.env };
    jest.isolateModules(() => {
      require('../src/index');
    });
    expect({ ...process.env }).toEqual(before);
  } finally {
    if (saved === undefined) delete process.env.UV_THREADPOOL_SIZE;
    else process.env.UV_THREADPOOL_SIZE = saved;
  }
});

test('when a client is made, then it sizes libuv’s pool, unless the environment already says', () => {
  const saved = process.env.UV_THREADPOOL_SIZE;
  try {
    jest.isolateModules(() => {
      const { createKafkaClient } = require('../src/client') as typeof ClientModule;
      const settings = { brokers: ['localhost:1'], clientId: 'test', logger: pino({ level: 'silent' }) };
      delete process.env.UV_THREADPOOL_SIZE;
      createKafkaClient(settings);
      expect(process.env.UV_THREADPOOL_SIZE).toBe('16');
      process.env.UV_THREADPOOL_SIZE = '7';
      createKafkaClient(settings);
      expect(process.env.UV_THREADPOOL_SIZE).toBe('7');
    });
  } finally {
    if (saved === undefined) delete process.env.UV_THREADPOOL_SIZE;
    else process.env.UV_THREADPOOL_SIZE = saved;
  }
});
