import { Command } from 'commander';
import { cliActor, describePartner, type Partner } from '@hookstream/partners';
import { formatTable, printJson, printLine } from '../output';
import { InputRefused } from '../exit-codes';
import { addSpecOptions, expiryFlag, overlapFlag, specFromFlags, type SpecFlags } from './partner-flags';
import { requirePartner, withPartners } from './partner-session';

interface ReasonFlag {
  reason?: string;
}
const REASON_HELP = 'why, for the audit trail (admin-audit)';
const reasonOf = (flags: ReasonFlag) => flags.reason?.trim() || 'from the CLI';

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
    .option('--id <partnerId>', 'partner id (default: the name in lower case with a random 4-character suffix, e.g. acme-insurance-3f9a)')
    .option('--key-expires-at <iso>', 'expiry of the first API key (default: none)')
    .action(async (flags: SpecFlags & ReasonFlag & { json?: boolean; keyExpiresAt?: string }) => {
      const spec = specFromFlags(flags);
      await withPartners(true, async ({ changes }) => {
        const { partner, apiKey } = await changes.create(spec, cliActor(), reasonOf(flags), {
          keyExpiresAt: expiryFlag(flags.keyExpiresAt),
        });
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
    .action(async (partnerId: string, flags: SpecFlags & ReasonFlag & { json?: boolean }) => {
      const patch = specFromFlags(flags);
      if (Object.keys(patch).length === 0) throw new InputRefused('nothing to change: give --file or flags');
      await withPartners(true, async ({ changes }) => {
        const next = await changes.update(partnerId, patch, cliActor(), reasonOf(flags));
        if (flags.json) printJson(describePartner(next));
        else printLine(`updated ${next.partner_id} (revision ${next.revision})`);
      });
    });

  partners
    .command('add-key')
    .description('issue another API key (rotation: it works beside the old ones until they are revoked)')
    .argument('<partnerId>')
    .option('--expires-at <iso>', 'expiry (default: none)')
    .option('--reason <text>', REASON_HELP)
    .option('--json', 'one JSON document, for scripts')
    .action(async (partnerId: string, flags: ReasonFlag & { expiresAt?: string; json?: boolean }) => {
      const expiresAt = expiryFlag(flags.expiresAt);
      await withPartners(true, async ({ changes }) => {
        const { partner, apiKey } = await changes.addKey(partnerId, cliActor(), reasonOf(flags), { expiresAt });
        if (flags.json) printJson({ partner_id: partner.partner_id, api_key: apiKey.key, key_id: apiKey.keyId });
        else printLine(`API key ${apiKey.keyId} for ${partner.partner_id}, shown only now: ${apiKey.key}`);
      });
    });

  partners
    .command('rotate-key')
    .description('issue a new API key and let every other valid key expire after an overlap (the partner API does the same)')
    .argument('<partnerId>')
    .option('--overlap-hours <hours>', 'how long the old keys keep working (0-720)', '24')
    .option('--expires-at <iso>', 'expiry of the new key (default: none)')
    .option('--reason <text>', REASON_HELP)
    .option('--json', 'one JSON document, for scripts')
    .action(async (partnerId: string, flags: ReasonFlag & { overlapHours: string; expiresAt?: string; json?: boolean }) => {
      const options = { overlapMs: overlapFlag(flags.overlapHours), expiresAt: expiryFlag(flags.expiresAt) };
      await withPartners(true, async ({ changes }) => {
        const { partner, apiKey, retiring } = await changes.rotateKey(partnerId, cliActor(), reasonOf(flags), options);
        const old = retiring.map((k) => ({ key_id: k.key_id, expires_at: new Date(k.expires_at).toISOString() }));
        if (flags.json) printJson({ partner_id: partner.partner_id, api_key: apiKey.key, key_id: apiKey.keyId, retiring: old });
        else {
          printLine(`API key ${apiKey.keyId} for ${partner.partner_id}, shown only now: ${apiKey.key}`);
          for (const k of old) printLine(`${k.key_id} keeps working until ${k.expires_at}`);
        }
      });
    });

  partners
    .command('revoke-key')
    .description('stop accepting one API key')
    .argument('<partnerId>')
    .argument('<keyId>')
    .option('--reason <text>', REASON_HELP)
    .option('--json', 'one JSON document, for scripts')
    .action(async (partnerId: string, keyId: string, flags: ReasonFlag & { json?: boolean }) => {
      await withPartners(false, async ({ changes }) => {
        const next = await changes.revokeKey(partnerId, keyId, cliActor(), reasonOf(flags));
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
      .option('--reason <text>', REASON_HELP)
      .option('--json', 'one JSON document, for scripts')
      .action(async (partnerId: string, flags: ReasonFlag & { json?: boolean }) => {
        await withPartners(false, async ({ changes }) => {
          const next = await changes.setStatus(partnerId, status, cliActor(), reasonOf(flags));
          if (flags.json) printJson(describePartner(next));
          else printLine(`${partnerId} is now ${status} (revision ${next.revision})`);
        });
      });
  }

  partners
    .command('self-service')
    .description("turn off (or on again) the partner's own changes of its endpoints and signing secret through the partner API")
    .argument('<partnerId>')
    .argument('<switch>', 'on | off')
    .option('--reason <text>', REASON_HELP)
    .option('--json', 'one JSON document, for scripts')
    .action(async (partnerId: string, state: string, flags: ReasonFlag & { json?: boolean }) => {
      if (state !== 'on' && state !== 'off') throw new InputRefused(`self-service is "on" or "off", not "${state}"`);
      await withPartners(false, async ({ changes }) => {
        const next = await changes.setSelfService(partnerId, state === 'on', cliActor(), reasonOf(flags));
        if (flags.json) printJson(describePartner(next));
        else printLine(`self-service of ${partnerId} is now ${state} (revision ${next.revision})`);
      });
    });

  return partners;
}
