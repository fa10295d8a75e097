/**
 * The durable floor of the ingress benchmark: the least any durable ingress must do. An express 5
 * route that parses the JSON body and writes it (the bytes as received, keyed by its
 * transaction_number, as the ingress keys partner events) with one acks=all produce through the
 * RecordWriter (@hookstream/kafka) on the project's producer settings, and answers once the broker has
 * acknowledged it. No auth, no validation, no dedupe, no Avro.
 *
 * Its topic is its first argument, the brokers KAFKA_BROKERS; prints its URL on stdout once its
 * producer is connected.
 */
import type { IncomingMessage } from 'node:http';
import express from 'express';
import { RecordWriter, createKafkaClient } from '@hookstream/kafka';
import { createLogger } from '@hookstream/runtime';

/** A request with the body's bytes as they came, kept by the JSON parser on the way (no second serialisation). */
type WithRawBody = IncomingMessage & { rawBody?: Buffer };

async function serve(topic: string): Promise<void> {
  const logger = createLogger({ service: 'bench-durable-floor', level: 'warn' });
  const kafka = createKafkaClient({ brokers: (process.env.KAFKA_BROKERS ?? '').split(','), clientId: 'bench-durable-floor', logger });
  const producer = kafka.producer();
  await producer.connect();
  const batching = new RecordWriter(producer);

  const app = express();
  app.use(
    express.json({
      limit: '1mb',
      verify: (req: WithRawBody, _res, body) => {
        req.rawBody = body;
      },
    }),
  );
  app.post('/api/integration/partner/webhook', (req, res) => {
    const body = req.body as { transaction_number?: unknown } | undefined;
    const key = typeof body?.transaction_number === 'string' ? body.transaction_number : null;
    const value = (req as WithRawBody).rawBody;
    // A request without a JSON body must not count as a cheap durable write.
    if (!value) return void res.status(400).json({ status: 'error', code: 400 });
    batching.send({ topic, key, value }).then(
      () => res.json({ status: 'success', code: 200 }),
      (error: unknown) => {
        logger.warn({ err: error }, 'durable floor: write failed');
        res.status(503).json({ status: 'error', code: 503 });
      },
    );
  });
  const server = app.listen(0, '127.0.0.1', () => {
    const address = server.address();
    if (address && typeof address === 'object') console.log(`http://127.0.0.1:${address.port}`);
  });
  process.on('SIGTERM', () =>
    server.close(
      () =>
        void batching
          .flush()
          .then(() => producer.disconnect())
          .finally(() => process.exit(0)),
    ),
  );
}

serve(process.argv[2] ?? '').catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
