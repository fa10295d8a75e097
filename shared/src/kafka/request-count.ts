import { Counter, type Registry } from 'prom-client';

/**
 * Every request this process sends to Kafka, by API (Fetch, Produce, EndTxn, Metadata, ...), as
 * `hookstream_kafka_requests_total{api}`: what a rate of events costs the brokers (each
 * policy-status transaction is five requests), and a request storm at a glance (a reader asking
 * for the metadata before every fetch, say).
 *
 * Counted where kafkajs writes each request, on its (internal) Connection: the clusters that
 * TopicReader and PartitionProbe make have no instrumentation events, and the producers and
 * consumers each have their own. Wrapped once per process; a kafkajs without that method is left
 * alone, and the counter then has no series.
 */
const sent = new Map<string, number>();
let wrapped: boolean | undefined;

interface KafkajsConnection {
  /** A function property, not a method: it is taken off the prototype and called with its connection. */
  send: (this: KafkajsConnection, options: { request: { apiName: string } }) => Promise<unknown>;
}

function wrapConnectionSend(): void {
  if (wrapped !== undefined) return;
  // require(): kafkajs's internals have no typed entry point.
  const Connection = require('kafkajs/src/network/connection') as { prototype: KafkajsConnection };
  const send = Connection.prototype.send;
  wrapped = typeof send === 'function';
  if (!wrapped) return;
  Connection.prototype.send = function countedSend(this: KafkajsConnection, options) {
    const api = options.request.apiName;
    sent.set(api, (sent.get(api) ?? 0) + 1);
    return send.call(this, options);
  };
}

/** Registers `hookstream_kafka_requests_total` on `registry`: the requests since the process's first registration. */
export function registerKafkaRequestCounter(registry: Registry): void {
  wrapConnectionSend();
  const reported = new Map<string, number>();
  new Counter({
    name: 'hookstream_kafka_requests_total',
    help: 'Requests this process sent to Kafka, by API',
    labelNames: ['api'],
    registers: [registry],
    collect() {
      for (const [api, total] of sent) {
        const delta = total - (reported.get(api) ?? 0);
        if (delta > 0) this.inc({ api }, delta);
        reported.set(api, total);
      }
    },
  });
}
