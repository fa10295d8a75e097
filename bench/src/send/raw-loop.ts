/**
 * outbound-send's baseline: a raw undici loop posting the same bodies with the same header shape
 * as the sender's requests to the same receiver, the signing work left out: the ceiling that the
 * sender's rate is held against.
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';
import { CALLBACK_PATH } from '../outbound/outbound-stack';
import { cpuSeconds } from '../support/cpu-usage';
import { PARTNER_AUTH } from './callback-requests';

/** The raw loop's client, as the issue measured it: 32 keep-alive connections, 64 requests in flight. */
export const RAW_CONNECTIONS = 32;
export const RAW_IN_FLIGHT = 64;

export interface RawLoopFigures {
  perSecond: number;
  failed: number;
  requests: number;
  /** CPU seconds of this process (the client) and of the receiver over the measured run. */
  clientCpu: number;
  receiverCpu: number | undefined;
}

/** A second of warm-up (JIT, connections), then `seconds` measured. */
export async function rawLoop(url: string, bodies: string[], receiverPid: number | undefined, seconds: number): Promise<RawLoopFigures> {
  const pool = new Pool(url, { connections: RAW_CONNECTIONS, pipelining: 1, keepAliveTimeout: 30_000 });
  const headers = () => ({
    'content-type': 'application/json',
    'X-API-Key': PARTNER_AUTH.api_key,
    'X-Timestamp': new Date().toISOString(),
    'X-Signature': 'n4bQgYhMfWWaL+qgxVrQFaO/TxsrC4Is0V1sFbDwCgg=',
    'x-hookstream-delivery-id': randomUUID(),
    'x-hookstream-event-id': randomUUID(),
    'x-hookstream-attempt': '1',
  });
  const run = async (durationMs: number): Promise<RawLoopFigures> => {
    let done = 0;
    let failed = 0;
    const end = performance.now() + durationMs;
    const started = performance.now();
    const clientCpu = process.cpuUsage();
    const receiverCpu = cpuSeconds(receiverPid);
    await Promise.all(
      Array.from({ length: RAW_IN_FLIGHT }, async () => {
        while (performance.now() < end) {
          const i = done + failed;
          const response = await pool.request({
            path: CALLBACK_PATH,
            method: 'POST',
            headers: headers(),
            body: Buffer.from(bodies[i % bodies.length]!, 'utf8'),
          });
          await response.body.dump();
          if (response.statusCode === 200) done++;
          else failed++;
        }
      }),
    );
    const cpu = process.cpuUsage(clientCpu);
    const receiverNow = cpuSeconds(receiverPid);
    return {
      perSecond: done / ((performance.now() - started) / 1000),
      failed,
      requests: done + failed,
      clientCpu: (cpu.user + cpu.system) / 1e6,
      receiverCpu: receiverNow === undefined || receiverCpu === undefined ? undefined : receiverNow - receiverCpu,
    };
  };
  try {
    await run(1_000); // warm-up: JIT, connections
    return await run(seconds * 1000);
  } finally {
    await pool.close();
  }
}
