/**
 * The ingress benches' load: autocannon posting policy webhooks, each with a request_id of its own
 * (so that every one is new to the ledger), with the same body and headers in every ingress bench.
 */
import autocannon from 'autocannon';

/** The partner webhook route of the ingress (and of its baselines). */
export const WEBHOOK_PATH = '/api/integration/partner/webhook';

export interface WebhookLoad {
  connections: number;
  seconds: number;
  /** Webhooks per second offered in all (autocannon's overallRate); as fast as answered when unset. */
  overallRate?: number;
}

/** A webhook body, unique by its request_id. */
function webhookBody(id: number): string {
  return JSON.stringify({
    request_id: `bench-${process.pid}-${Date.now()}-${id}`,
    transaction_number: `TRX-${id % 1000}`,
    transaction_type: 'POLICY',
    status: 'POLICY_ACTIVE',
    documents: [{ type: 'POLICY_CERTIFICATE', url: 'https://docs.example/c.pdf', filename: 'c.pdf' }],
  });
}

/** Posts webhooks to `url` (with `apiKey` as x-api-key when given) for `load.seconds`. */
export function offerWebhooks(url: string, apiKey: string | undefined, load: WebhookLoad): Promise<autocannon.Result> {
  let n = 0;
  return autocannon({
    url,
    connections: load.connections,
    duration: load.seconds,
    ...(load.overallRate ? { overallRate: load.overallRate } : {}),
    requests: [
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(apiKey ? { 'x-api-key': apiKey } : {}) },
        setupRequest: (request) => ({ ...request, body: webhookBody(n++) }),
      },
    ],
  });
}
