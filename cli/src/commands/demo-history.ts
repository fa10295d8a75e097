/*
 * Something to look at in the console after `npm start`: the demo partner gets a few policy
 * status callbacks (one of them refused twice by the demo endpoint first, so it retries), an
 * accepted webhook with a document (sent twice, so the second is a replay) and a refused one; and
 * an operator token for the local demo signs in to the console as an operator. Each start adds to
 * the history (versions rise with the clock).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { cliActor } from '@hookstream/partners';
import { parsePolicyEventJson } from '@hookstream/contract';
import { REPO_ROOT } from '../paths';
import { withOperators } from './operators';
import { FLAKY_MARK } from './demo-partner';
import { DEMO_PARTNER_ID } from './demo-setup';
import { publishPolicyEvents } from './policy';

const DEMO_OPERATOR = 'Local demo operator';

/**
 * Publishes the demo partner's callbacks and posts its webhooks (its document served by the demo
 * endpoint at `documentsUrl`); resolves once the ingress answered each as the demo means it to,
 * and rejects naming the one it did not, so that a demo without its history is noticed.
 */
export async function seedDemoHistory(env: NodeJS.ProcessEnv, ingressUrl: string, apiKey: string, documentsUrl: string): Promise<void> {
  const example = JSON.parse(readFileSync(path.join(REPO_ROOT, 'examples/events/demo-policy-active.json'), 'utf8')) as {
    policy: Record<string, unknown>;
  };
  const base = Math.floor(Date.now() / 1000);
  const event = (policyNumber: string, status: string, version: number) =>
    parsePolicyEventJson({
      ...example,
      partner_id: DEMO_PARTNER_ID,
      version,
      policy: { ...example.policy, policy_number: policyNumber, status },
    });
  await publishPolicyEvents(
    [
      event('HS-DEMO-000001', 'POLICY_ISSUING', base),
      event('HS-DEMO-000001', 'POLICY_ACTIVE', base + 1),
      event(`HS-DEMO-${FLAKY_MARK}-2`, 'POLICY_ACTIVE', base),
      event('HS-DEMO-000003', 'POLICY_CANCELLED', base),
    ],
    env,
  );
  const post = async (body: Record<string, unknown>, expected: number) => {
    const answer = await fetch(ingressUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
      body: JSON.stringify(body),
    });
    if (answer.status !== expected) {
      throw new Error(`demo history: the ingress answered ${answer.status} to ${String(body['request_id'])}: ${await answer.text()}`);
    }
  };
  const webhook = {
    request_id: `demo-${base}`,
    transaction_number: `TRX-DEMO-${base}`,
    transaction_type: 'POLICY',
    status: 'POLICY_ISSUED',
    documents: [{ type: 'POLICY_CERTIFICATE', url: `${documentsUrl}/policy-certificate.pdf`, filename: 'policy-certificate.pdf' }],
  };
  await post(webhook, 200);
  // Sent again as a partner retrying would: answered as the first time, shown as replayed.
  await post(webhook, 200);
  // Refused: a document without its url, named in the answer and kept in the log's refused webhooks.
  await post({ ...webhook, request_id: `demo-${base}-bad`, documents: [{ type: 'POLICY_CERTIFICATE', filename: 'certificate.pdf' }] }, 400);
}

/** A fresh operator token for the local demo (the earlier demo operators are revoked: a token is shown once). */
export function demoOperatorToken(env: NodeJS.ProcessEnv): Promise<string> {
  return withOperators(async ({ directory, changes }) => {
    const reason = 'operator of the local demo (hookstream start)';
    for (const earlier of directory.list()) {
      if (earlier.name === DEMO_OPERATOR && earlier.revoked_at === null) await changes.revoke(earlier.operator_id, cliActor(), reason);
    }
    return (await changes.create({ name: DEMO_OPERATOR, role: 'operator' }, cliActor(), reason)).token.token;
  }, env);
}
