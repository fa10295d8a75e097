/* The baseline: the same GETs with undici, `concurrency` at a time, each body hashed and written to a file, as the fetcher spools it. */
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Agent, request } from 'undici';

/** Downloads `urls`, `concurrency` at a time, into files under `dir` (each removed after); resolves with the seconds taken. */
export async function rawDownload(urls: string[], concurrency: number, dir: string): Promise<number> {
  const agent = new Agent({ connections: concurrency });
  const started = performance.now();
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < urls.length; i = next++) {
      const file = path.join(dir, `raw-${i}`);
      const hash = createHash('sha256');
      const response = await request(urls[i]!, { dispatcher: agent });
      const hashing = new Transform({ transform: (chunk: Buffer, _e, done) => (hash.update(chunk), done(null, chunk)) });
      await pipeline(response.body, hashing, createWriteStream(file));
      hash.digest('hex');
      await rm(file);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const seconds = (performance.now() - started) / 1000;
  await agent.close();
  return seconds;
}
