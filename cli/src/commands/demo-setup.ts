import { randomBytes } from 'node:crypto';
import { cliActor } from '@hookstream/partners';
import { withPartners } from './partner-session';

export const DEMO_PARTNER_ID = 'demo-partner';

/**
 * Makes the demo partner whose callbacks go to the demo endpoint, and returns a fresh API key
 * for it. On a later start the partner is kept, its callback URL follows the endpoint's port,
 * and its earlier keys expire (a key is shown only once, so each start issues one).
 */
export async function ensureDemoPartner(env: NodeJS.ProcessEnv, callbackUrl: string): Promise<string> {
  return withPartners(
    true,
    async ({ directory, changes }) => {
      const reason = 'demo partner of hookstream start';
      if (!directory.get(DEMO_PARTNER_ID)) {
        const { apiKey } = await changes.create(
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
          cliActor(),
          reason,
        );
        return apiKey.key;
      }
      await changes.update(DEMO_PARTNER_ID, { status: 'ACTIVE', callback_endpoints: [{ url: callbackUrl }] }, cliActor(), reason);
      // Overlap 0: the keys of earlier starts stop working now.
      const { apiKey } = await changes.rotateKey(DEMO_PARTNER_ID, cliActor(), reason, { overlapMs: 0 });
      return apiKey.key;
    },
    env,
  );
}
