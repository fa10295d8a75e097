import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A partner's document server on loopback: every GET of /doc/<name> answers 200 with a small PDF-like body. */
export interface DocumentHost {
  /** `count` (default: 1 or 2) new documents of a webhook's `documents[]`, each at a URL of its own here. */
  documents: (count?: number) => Array<{ type: string; url: string; filename: string }>;
  /** Documents served so far (repeats included). */
  served: () => number;
  close: () => Promise<void>;
}

export async function startDocumentHost(): Promise<DocumentHost> {
  let served = 0;
  let named = 0;
  const server = createServer((request, response) => {
    if (request.method !== 'GET' || !request.url?.startsWith('/doc/')) return void response.writeHead(404).end();
    served += 1;
    response.writeHead(200, { 'content-type': 'application/pdf' }).end(`%PDF-1.4 ${request.url}\n`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    documents: (count = 1 + (named % 2)) =>
      Array.from({ length: count }, () => {
        const name = `d${++named}-${Math.random().toString(36).slice(2, 8)}.pdf`;
        return { type: 'POLICY_CERTIFICATE', url: `${url}/doc/${name}`, filename: name };
      }),
    served: () => served,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
