import { Counter, type Registry } from 'prom-client';
import type { ClientStatistics } from './types';

/**
 * Every request one Kafka client (client.ts) sends to Kafka, by API (Fetch, Produce, EndTxn,
 * Metadata, ...), as `hookstream_kafka_requests_total{api}`: what a rate of events costs the
 * brokers (each policy-status transaction is five requests), and a request storm at a glance (a
 * reader asking for the metadata before every fetch, say).
 *
 * The counts are librdkafka's own: each of its clients (producers, consumers, group-less readers,
 * admins) reports its requests per broker connection in its statistics every second
 * (`brokers[].req`). What is written here is only the sum over the clients, each report's growth
 * counted once; the state lives in the instance the Kafka client owns, nothing at module level.
 * Platformatic's client (platformatic-admin.ts) keeps no such counts, so its few admin requests
 * are not in the figure.
 */
export class RequestCounts {
  /** Requests by API, summed over the clients made so far. */
  private readonly sent = new Map<string, number>();

  /**
   * A statistics listener for one new librdkafka client: adds what its report says it sent since its
   * last one (each handle's `req` counts only grow: a client's brokers, its bootstrap and coordinator
   * connections). Its last report is kept in the listener, so it goes when the client does.
   */
  listener(): (stats: Pick<ClientStatistics, 'brokers'>) => void {
    const seen = new Map<string, number>();
    return ({ brokers }) => {
      for (const [broker, { req }] of Object.entries(brokers)) {
        for (const [api, total] of Object.entries(req ?? {})) {
          const key = `${broker}\u0000${api}`;
          const delta = total - (seen.get(key) ?? 0);
          if (delta <= 0) continue;
          seen.set(key, total);
          this.sent.set(api, (this.sent.get(api) ?? 0) + delta);
        }
      }
    };
  }

  /** Registers `hookstream_kafka_requests_total` on `registry`: every request of the client's, from its first. */
  register(registry: Registry): void {
    const reported = new Map<string, number>();
    const sent = this.sent;
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
}
