import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createLogger, freePort } from '@hookstream/runtime';
import { DocumentDownload } from '../../../src/adapters/http/document-download';
import { Spool } from '../../../src/adapters/storage/spool';

/**
 * A retrieval that gets no answer is named as the callback-sender names it (@hookstream/runtime's
 * outbound failures): a refused connection and a reset one are told apart, both worth a retry.
 */
let dir: string;
let download: DocumentDownload;
let resetting: Server;
let resettingPort: number;

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'document-download-'));
  const spool = new Spool(dir, createLogger({ service: 'test', level: 'silent' }));
  await spool.open(60_000);
  download = new DocumentDownload(
    {
      connectTimeoutMs: 2_000,
      totalTimeoutMs: 5_000,
      maxBytes: 1024,
      maxRedirects: 2,
      connectionsPerOrigin: 2,
      ssrf: { allow: ['127.0.0.0/8'] },
    },
    spool,
  );
  // Accepts, then resets the connection without a byte of answer.
  resetting = createServer((socket) => socket.resetAndDestroy());
  await new Promise<void>((resolve) => resetting.listen(0, '127.0.0.1', resolve));
  resettingPort = (resetting.address() as { port: number }).port;
});

afterAll(async () => {
  await download.close();
  await new Promise((resolve) => resetting.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

test('when nothing listens on the port, then the retrieval fails CONNECTION_REFUSED, retryable', async () => {
  const port = await freePort();
  const retrieval = await download.retrieve(`http://127.0.0.1:${port}/doc.pdf`);
  expect(retrieval).toMatchObject({ kind: 'failed', failure: { reason: 'CONNECTION_REFUSED', retryable: true, httpStatus: null } });
});

test('when the host resets the connection, then the retrieval fails CONNECTION_RESET, retryable', async () => {
  const retrieval = await download.retrieve(`http://127.0.0.1:${resettingPort}/doc.pdf`);
  expect(retrieval).toMatchObject({ kind: 'failed', failure: { reason: 'CONNECTION_RESET', retryable: true, httpStatus: null } });
});
