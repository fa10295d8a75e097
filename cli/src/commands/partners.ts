import { Command } from 'commander';
import { addApiKey, createPartner, describePartner, revokeApiKey, setPartnerStatus, updatePartner, type Partner } from '@hookstream/shared';
import { formatTable, printJson, printLine } from '../output';
import { InputRefused } from '../refusals';
import { addSpecOptions, expiryFlag, specFromFlags, type SpecFlags } from './partner-flags';
import { requirePartner, withPartners } from './partner-session';

function printPartner(partner: Partner): void {
  const view = describePartner(partner);
  printLine(
    `${partner.partner_id}  ${partner.name}  (${partner.status}, revision ${partner.revision}, updated ${String(view.updated_at)})`,
  );
  printLine(JSON.stringify(view, null, 2));
}

export function partnersCommand(): Command {
  const partners = new Command('partners').description(
    'onboard partners: inbound API keys, callback endpoints, outbound auth (stored in the partner-config topic)',
  );

  addSpecOptions(partners.command('create').description('create a partner and its first API key (shown once)'))
    .option('--id <partnerId>', 'partner id (default: from the name)')
    .option('--key-expires-at <iso>', 'expiry of the first API key (default: none)')
    .action(async (flags: SpecFlags & { json?: boolean; keyExpiresAt?: string }) => {
      const spec = specFromFlags(flags);
      await withPartners(true, async ({ directory, store, deps }) => {
        const { partner, apiKey } = createPartner(spec, deps(), { keyExpiresAt: expiryFlag(flags.keyExpiresAt) });
        if (directory.get(partner.partner_id)) throw new InputRefused(`partner_id: "${partner.partner_id}" exists already`);
        await store.write(partner);
        if (flags.json) {
          printJson({ partner_id: partner.partner_id, api_key: apiKey.key, key_id: apiKey.keyId, partner: describePartner(partner) });
        } else {
          printLine(`created partner ${partner.partner_id} (revision ${partner.revision})`);
          printLine(`API key ${apiKey.keyId}, shown only now; give it to the partner: ${apiKey.key}`);
        }
      });
    });

  partners
    .command('list')
    .description('every partner, one line each')
    .option('--json', 'one JSON document, for scripts')
    .action(async (flags: { json?: boolean }) => {
      await withPartners(false, ({ directory }) => {
        const all = directory.list();
        if (flags.json) {
          printJson(all.map(describePartner));
          return Promise.resolve();
        }
        if (all.length === 0) {
          printLine('no partners');
          return Promise.resolve();
        }
        printLine(
          formatTable([
            ['partner', 'name', 'status', 'active keys', 'callbacks', 'auth', 'revision'],
            ...all.map((p) => [
              p.partner_id,
              p.name,
              p.status,
              String(p.api_keys.filter((k) => k.revoked_at === null && (k.expires_at === null || k.expires_at > Date.now())).length),
              String(p.callback_endpoints.length),
              p.outbound_auth?.method ?? '-',
              String(p.revision),
            ]),
          ]),
        );
        return Promise.resolve();
      });
    });

  partners
    .command('show')
    .description('one partner, secrets masked')
    .argument('<partnerId>')
    .option('--json', 'one JSON document, for scripts')
    .action(async (partnerId: string, flags: { json?: boolean }) => {
      await withPartners(false, ({ directory }) => {
        const partner = requirePartner(directory, partnerId);
        if (flags.json) printJson(describePartner(partner));
        else printPartner(partner);
        return Promise.resolve();
      });
    });

  addSpecOptions(partners.command('update').description('change a partner: each field given replaces the current one'))
    .argument('<partnerId>')
    .action(async (partnerId: string, flags: SpecFlags & { json?: boolean }) => {
      const patch = specFromFlags(flags);
      if (Object.keys(patch).length === 0) throw new InputRefused('nothing to change: give --file or flags');
      await withPartners(true, async ({ directory, store, deps }) => {
        const next = updatePartner(requirePartner(directory, partnerId), patch, deps());
        await store.write(next);
        if (flags.json) printJson(describePartner(next));
        else printLine(`updated ${next.partner_id} (revision ${next.revision})`);
      });
    });

  partners
    .command('add-key')
    .description('issue another API key (rotation: it works beside the old ones until they are revoked)')
    .argument('<partnerId>')
    .option('--expires-at <iso>', 'expiry (default: none)')
    .option('--json', 'one JSON document, for scripts')
    .action(async (partnerId: string, flags: { expiresAt?: string; json?: boolean }) => {
      const expiresAt = expiryFlag(flags.expiresAt);
      await withPartners(true, async ({ directory, store, deps }) => {
        const { partner, apiKey } = addApiKey(requirePartner(directory, partnerId), deps(), { expiresAt });
        await store.write(partner);
        if (flags.json) printJson({ partner_id: partner.partner_id, api_key: apiKey.key, key_id: apiKey.keyId });
        else printLine(`API key ${apiKey.keyId} for ${partner.partner_id}, shown only now: ${apiKey.key}`);
      });
    });

  partners
    .command('revoke-key')
    .description('stop accepting one API key')
    .argument('<partnerId>')
    .argument('<keyId>')
    .option('--json', 'one JSON document, for scripts')
    .action(async (partnerId: string, keyId: string, flags: { json?: boolean }) => {
      await withPartners(false, async ({ directory, store }) => {
        const next = revokeApiKey(requirePartner(directory, partnerId), keyId, {});
        await store.write(next);
        if (flags.json) printJson(describePartner(next));
        else printLine(`revoked ${keyId} of ${partnerId} (revision ${next.revision})`);
      });
    });

  for (const [name, status, what] of [
    ['disable', 'DISABLED', 'refuse every API key of the partner and send it no callbacks'],
    ['enable', 'ACTIVE', 'accept the partner again'],
  ] as const) {
    partners
      .command(name)
      .description(what)
      .argument('<partnerId>')
      .option('--json', 'one JSON document, for scripts')
      .action(async (partnerId: string, flags: { json?: boolean }) => {
        await withPartners(false, async ({ directory, store }) => {
          const next = setPartnerStatus(requirePartner(directory, partnerId), status, {});
          await store.write(next);
          if (flags.json) printJson(describePartner(next));
          else printLine(`${partnerId} is now ${status} (revision ${next.revision})`);
        });
      });
  }

  return partners;
}
