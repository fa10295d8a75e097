import { type z } from 'zod';
import {
  ApiKeyHasher,
  PartnerChanges,
  PartnerDirectory,
  policyBodyFieldPaths,
  type Partner,
  type PartnerAdminDeps,
} from '@hookstream/partners';
import { SecretBox, apiKeyPeppersSetting, kafkaSettingsSchema, loadConfig, secretsKeysSetting } from '@hookstream/runtime';
import { TopicNames, defaultSchemasDir } from '@hookstream/kafka';
import { environmentWithStackEnv } from '../paths';
import { NotFoundError } from '@hookstream/errors';
import { withAdminConnection } from './admin-connection';

/** What a `hookstream partners` command works with: every partner read from partner-config, and the audited changes. */
export interface PartnerSession {
  directory: PartnerDirectory;
  changes: PartnerChanges;
}

/**
 * Connects to Kafka and the registry, reads every partner from partner-config, runs `work`,
 * and disconnects. The secrets settings are read only by the commands that need them.
 */
export async function withPartners<T>(
  needsSecrets: boolean,
  work: (session: PartnerSession) => Promise<T>,
  env: NodeJS.ProcessEnv = environmentWithStackEnv(),
): Promise<T> {
  const config = loadConfig(
    needsSecrets ? kafkaSettingsSchema.extend({ ...secretsKeysSetting, ...apiKeyPeppersSetting }) : kafkaSettingsSchema,
    env,
  );
  return withAdminConnection(config, [TopicNames.partnerConfig], env, async ({ kafka, codec, logger, writer, topic }) => {
    const directory = new PartnerDirectory({ kafka, codec, topic: topic(TopicNames.partnerConfig), logger });
    const deps = (): PartnerAdminDeps => {
      if (!needsSecrets) throw new Error('this partners command was opened without the secrets settings');
      const secrets = config as unknown as z.infer<z.ZodObject<typeof secretsKeysSetting & typeof apiKeyPeppersSetting>>;
      return {
        box: new SecretBox(secrets.HOOKSTREAM_SECRETS_KEYS),
        hasher: new ApiKeyHasher(secrets.HOOKSTREAM_API_KEY_PEPPERS),
        policyPaths: policyBodyFieldPaths(defaultSchemasDir(env)),
      };
    };
    try {
      await directory.start();
      return await work({ directory, changes: new PartnerChanges(directory, writer, deps) });
    } finally {
      await directory.stop();
    }
  });
}

/** The partner `partnerId`, or a refusal naming it (exit 3). */
export function requirePartner(directory: PartnerDirectory, partnerId: string): Partner {
  const partner = directory.get(partnerId);
  if (!partner) throw new NotFoundError('partner', `no partner "${partnerId}" (see \`hookstream partners list\`)`);
  return partner;
}
