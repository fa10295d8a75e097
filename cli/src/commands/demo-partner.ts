import express from 'express';
import { Command, InvalidArgumentError, Option } from 'commander';
import { startHttpServer, type RunningHttpServer } from '@hookstream/runtime';
import { printLine } from '../output';

/** Headers worth showing from a callback; auth values are shown only as present/absent. */
const SHOWN_HEADERS = [
  'content-type',
  'x-timestamp',
  'x-hookstream-delivery-id',
  'x-hookstream-event-id',
  'webhook-id',
  'webhook-timestamp',
];
const SECRET_HEADERS = ['authorization', 'x-api-key', 'x-signature', 'webhook-signature'];

/** A policy number with this in it gets 503 to its first FLAKY_FAILURES sends, then 200: the demo's retries to look at. */
export const FLAKY_MARK = 'FLAKY';
const FLAKY_FAILURES = 2;

/** What the demo partner serves as any document its webhooks link to (GET /documents/…): a one-page PDF. */
const DEMO_DOCUMENT = Buffer.from(
  '%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj 2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj ' +
    '3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 300 144]>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n',
);

/**
 * A stand-in partner for demos: serves its documents (GET /documents/…), accepts callbacks on any
 * other path, logs one line per callback (never printing credentials), and answers 200 so the
 * delivery counts as a success; a delivery of a policy whose number holds FLAKY_MARK is refused
 * twice first (a retrying delivery).
 */
export async function startDemoPartner(settings: { host: string; port: number; log?: (line: string) => void }): Promise<RunningHttpServer> {
  const log = settings.log ?? printLine;
  const app = express();
  app.disable('x-powered-by');
  app.use(express.text({ type: '*/*', limit: '5mb' }));
  const sends = new Map<string, number>();
  app.get('/documents/{*path}', (_req, res) => {
    res.type('application/pdf').send(DEMO_DOCUMENT);
  });
  app.all('/{*path}', (req, res) => {
    const headers: Record<string, string> = {};
    for (const name of SHOWN_HEADERS) if (req.headers[name]) headers[name] = String(req.headers[name]);
    for (const name of SECRET_HEADERS) if (req.headers[name]) headers[name] = '(present)';
    log(
      JSON.stringify({
        at: new Date().toISOString(),
        method: req.method,
        path: req.path,
        headers,
        body: typeof req.body === 'string' ? req.body : '',
      }),
    );
    const body = typeof req.body === 'string' ? req.body : '';
    const delivery = String(req.headers['x-hookstream-delivery-id'] ?? '');
    if (body.includes(FLAKY_MARK) && delivery) {
      const seen = (sends.get(delivery) ?? 0) + 1;
      sends.set(delivery, seen);
      if (seen <= FLAKY_FAILURES) {
        res.status(503).json({ status: 'unavailable', message: `demo: refusing send ${seen} of ${FLAKY_FAILURES}` });
        return;
      }
    }
    res.status(200).json({ status: 'received' });
  });
  return startHttpServer(app, settings);
}

/** A TCP port (0 lets the OS pick one), for commander's argParser. */
function parsePort(value: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value.trim()) || port > 65535) throw new InvalidArgumentError('--port must be a port number (0-65535).');
  return port;
}

export function demoPartnerCommand(): Command {
  return new Command('demo-partner')
    .description('run a demo partner callback endpoint that logs every callback and answers 200')
    .addOption(new Option('--port <port>', 'port to listen on').default(9999).argParser(parsePort))
    .option('--host <host>', 'interface to bind', '127.0.0.1')
    .action(async (opts: { port: number; host: string }) => {
      const server = await startDemoPartner({ host: opts.host, port: opts.port });
      printLine(`demo partner endpoint listening at ${server.url}/callbacks`);
      await new Promise<void>((resolve) => {
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
      });
      await server.close();
    });
}
