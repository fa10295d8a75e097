import { randomBytes } from 'node:crypto';
import { addApiKey, createPartner, revokeApiKey, updatePartner } from '@hookstream/shared';
import { withPartners } from './partner-session';

export const DEMO_PARTNER_ID = 'demo-partner';

/**
 * Makes the demo partner whose callbacks go to the demo endpoint, and returns a fresh API key
 * for it. On a later start the partner is kept, its callback URL follows the endpoint's port,
 * and its earlier keys are revoked (a key is shown only once, so each start issues one).
 */
export async function ensureDemoPartner(env: NodeJS.ProcessEnv, callbackUrl: string): Promise<string> {
  return withPartners(
    true,
    async ({ directory, store, deps }) => {
      const d = deps();
      const existing = directory.get(DEMO_PARTNER_ID);
      if (!existing) {
        const { partner, apiKey } = createPartner(
          {
            partner_id: DEMO_PARTNER_ID,
            name: 'Demo partner',
            callback_endpoints: [{ url: callbackUrl }],
            outbound_auth: {
              method: 'HMAC_SHA256',
              api_key: `demo-${randomBytes(8).toString('hex')}`,
              secret: randomBytes(32).toString('base64'),
            },
          },
          d,
        );
        await store.write(partner);
        return apiKey.key;
      }
      let next = updatePartner(existing, { status: 'ACTIVE', callback_endpoints: [{ url: callbackUrl }] }, d);
      for (const key of next.api_keys) if (key.revoked_at === null) next = revokeApiKey(next, key.key_id, d);
      const { partner, apiKey } = addApiKey(next, d);
      await store.write(partner);
      return apiKey.key;
    },
    env,
  );
}
