import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CallbackHttpClient } from '../../../src/adapters/http/http-delivery';

/**
 * The client against a real HTTP server on loopback: what it keeps of each answer while reading no
 * more than maxResponseBytes of it.
 */
const MAX_RESPONSE_BYTES = 64 * 1024;
let server: Server;
let base: string;
let client: CallbackHttpClient;

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      switch (req.url) {
        case '/json':
          return res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"nomor polis — tidak ada"}');
        case '/empty':
          return res.writeHead(204).end();
        case '/long':
          // Chunked, in pieces: the excerpt is the start whatever the chunking.
          res.writeHead(200, { 'content-type': 'text/plain' });
          for (let i = 0; i < 10; i++) res.write('x'.repeat(500));
          return res.end();
        case '/declared-long':
          return res.writeHead(200, { 'content-length': String(2 * MAX_RESPONSE_BYTES) }).end('z'.repeat(2 * MAX_RESPONSE_BYTES));
        case '/endless': {
          // Written for as long as the client reads: only the cap ends the attempt before its timeout.
          res.writeHead(200, { 'content-type': 'text/plain' });
          const more = () => {
            while (!res.destroyed) if (!res.write('y'.repeat(16 * 1024))) return res.once('drain', more);
          };
          return more();
        }
        default:
          return res.writeHead(404).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  client = new CallbackHttpClient({
    connectTimeoutMs: 1_000,
    connectionsPerOrigin: 2,
    maxResponseBytes: MAX_RESPONSE_BYTES,
    ssrf: { allow: ['127.0.0.0/8'] },
  });
});

afterAll(async () => {
  await client.close();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const post = (path: string) =>
  client.post(`${base}${path}`, { headers: { 'content-type': 'application/json' }, secretHeaderNames: [], body: Buffer.from('{}') }, 5_000);

describe("the partner's answer: its status and the start of its body", () => {
  test('an error answer keeps its body as the excerpt', async () => {
    expect(await post('/json')).toMatchObject({ kind: 'response', status: 500, responseExcerpt: '{"error":"nomor polis — tidak ada"}' });
  });

  test('an answer without a body has an empty excerpt', async () => {
    expect(await post('/empty')).toMatchObject({ kind: 'response', status: 204, responseExcerpt: '' });
  });

  test('a long answer is cut to its first 1,024 bytes', async () => {
    expect(await post('/long')).toMatchObject({ kind: 'response', status: 200, responseExcerpt: 'x'.repeat(1024) });
  });

  test('an answer declared longer than maxResponseBytes is dropped: its excerpt is what came with the headers, if anything', async () => {
    expect(await post('/declared-long')).toMatchObject({
      kind: 'response',
      status: 200,
      responseExcerpt: expect.stringMatching(/^z{0,1024}$/),
    });
  });

  test('an endless answer is dropped past maxResponseBytes (no timeout), its start kept', async () => {
    expect(await post('/endless')).toMatchObject({ kind: 'response', status: 200, responseExcerpt: 'y'.repeat(1024) });
  });
});
