import { randomBytes } from 'node:crypto';
import { secretContext, type Partner } from '@hookstream/partners';
import { SecretBox } from '@hookstream/runtime';

/** The secrets' box of the notification tests, and a Standard Webhooks secret of the partner's. */
export const box = new SecretBox([{ id: 'k1', key: randomBytes(32) }]);
export const whsec = `whsec_${randomBytes(24).toString('base64')}`;

/** Acme: one endpoint it uses (main), one it disabled (spare), signing with Standard Webhooks. */
export function acme(change: Partial<Partner> = {}): Partner {
  return {
    partner_id: 'acme',
    name: 'Acme',
    status: 'ACTIVE',
    revision: 1,
    updated_at: 0,
    api_keys: [],
    callback_endpoints: [
      {
        endpoint_id: 'main',
        name: 'Claims',
        url: 'https://acme.example/cb',
        timeout_ms: 10_000,
        statuses: [],
        product_codes: [],
        ordering: 'LATEST_WINS',
      },
      {
        endpoint_id: 'spare',
        url: 'https://acme.example/spare',
        timeout_ms: 10_000,
        statuses: [],
        product_codes: [],
        ordering: 'LATEST_WINS',
        disabled: true,
      },
    ],
    outbound_auth: { method: 'STANDARD_WEBHOOKS', secret: box.encrypt(whsec, secretContext('acme', 'secret')) },
    body_mapping: { shape: 'FULL', rules: [], signature_field: null, absent_fields: 'OMIT' },
    ...change,
  };
}
