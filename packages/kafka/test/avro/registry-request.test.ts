/**
 * Registering a schema against a registry that does not answer a request once (its connection cut
 * mid-request, as a stalled or restarting registry does): the request is sent again and the
 * registration goes through; a registry that never answers is still reported unreachable, naming
 * how many tries were made. A local HTTP server plays the registry's two endpoints.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { registerSubjectSchema } from '../../src/avro/registry-codec';
import { RegistryUnavailableError } from '@hookstream/errors';

let server: Server;
let baseUrl: string;
/** Requests to cut before answering, and every request seen ("PUT /config/s" …). */
let toCut = 0;
const seen: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    if (toCut > 0) {
      toCut -= 1;
      req.socket.destroy();
      return;
    }
    res.setHeader('content-type', 'application/vnd.schemaregistry.v1+json');
    res.end(req.method === 'PUT' ? '{"compatibility":"BACKWARD"}' : '{"id":7}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

beforeEach(() => {
  seen.length = 0;
});

test('a request whose connection is cut is sent again, and the registration goes through', async () => {
  toCut = 1;
  await expect(registerSubjectSchema(baseUrl, 's-value', '"string"')).resolves.toBe(7);
  expect(seen).toEqual(['PUT /config/s-value', 'PUT /config/s-value', 'POST /subjects/s-value/versions']);
});

test('a registry that never answers is reported unreachable after three tries', async () => {
  toCut = 10;
  const registering = registerSubjectSchema(baseUrl, 's-value', '"string"');
  await expect(registering).rejects.toThrow(RegistryUnavailableError);
  await expect(registering).rejects.toThrow(/unreachable: .*\(3 tries\)/);
  expect(seen).toEqual(['PUT /config/s-value', 'PUT /config/s-value', 'PUT /config/s-value']);
  toCut = 0;
});
