import { Counter, type Registry } from 'prom-client';

/**
 * Every request this process sends to Kafka, by API (Fetch, Produce, EndTxn, Metadata, ...), as
 * `hookstream_kafka_requests_total{api}`: what a rate of events costs the brokers (each
 * policy-status transaction is five requests), and a request storm at a glance (a reader asking
 * for the metadata before every fetch, say).
 *
 * Each librdkafka client (producers, consumers, group-less readers) reports its own in its
 * statistics every second (`countLibrdkafkaRequests`).
 */
const sent = new Map<string, number>();
/** Per librdkafka client and broker handle, the request counts its last statistics reported. */
const reportedByClient = new Map<string, Map<string, number>>();

/**
 * Adds what one librdkafka client's statistics say it sent since its last report (each handle's
 * `req` counts only grow: a client's brokers, its bootstrap and coordinator connections).
 */
export function countLibrdkafkaRequests(client: string, brokers: Record<string, { req?: Record<string, number> }>): void {
  let seen = reportedByClient.get(client);
  if (!seen) reportedByClient.set(client, (seen = new Map<string, number>()));
  for (const [broker, { req }] of Object.entries(brokers)) {
    for (const [api, total] of Object.entries(req ?? {})) {
      const key = `${broker}\u0000${api}`;
      const delta = total - (seen.get(key) ?? 0);
      if (delta <= 0) continue;
      seen.set(key, total);
      sent.set(api, (sent.get(api) ?? 0) + delta);
    }
  }
}

/** Forgets a closed client's last report (its counts stay in the totals). */
export function forgetLibrdkafkaClient(client: string): void {
  reportedByClient.delete(client);
}
/** Registers `hookstream_kafka_requests_total` on `registry`: the requests since the process's first registration. */
export function registerKafkaRequestCounter(registry: Registry): void {
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
