// @hookstream/partners: partners and operators, and every change to them with its audit (README.md). What other packages use, and nothing else.
export { type Actor, type AdminAuditEntry, type AuditedChange, cliActor } from './admin/audit-entry';
export { AuditedWriter } from './admin/audited-writer';
export { OperatorChanges } from './admin/operator-changes';
export { PartnerChanges } from './admin/partner-changes';
export { ApiKeyHasher } from './api-keys';
export { addOwnEndpoint, deleteOwnEndpoint, editOwnEndpoint, type OwnEndpointInput } from './endpoint-changes';
export { endpointWants } from './endpoint-subscription';
export { isLive, PartnerChangeRefused } from './key-limits';
export {
  type AuthMethod,
  type BodyMapping,
  type CallbackEndpoint,
  type FieldFormat,
  type FieldRule,
  type JwtAlgorithm,
  type Md5Part,
  type OutboundAuth,
  type Partner,
  partnerFromRecord,
  POLICY_STATUSES,
  secretContext,
} from './model';
export { OperatorDirectory } from './operators/operator-directory';
export { describeOperator, type Operator, OPERATOR_ROLES } from './operators/operator';
export { AUTH_METHODS } from './outbound-auth-spec';
export { addApiKey, createPartner, describePartner, type PartnerAdminDeps, revokeApiKey, setPartnerStatus } from './partner-admin';
export { PartnerDirectory } from './partner-directory';
export { bodyMappingFromSpec } from './partner-from-spec';
export { PartnerSpecError } from './partner-spec-error';
export { ENDPOINT_LIMITS, partnerSpecSchema } from './partner-spec-schema';
export { parsePartnerSpec } from './partner-spec';
export { PartnerStore } from './partner-store';
export { activateSigningSecret, rotateSigningSecret, signingSecretState, type SigningSecretState } from './signing-secret';
export { policyBodyFieldPaths, SIMPLIFIED_POLICIES_FIELDS } from './policy-fields';
export { publicOutboundAuth, type PublicOutboundAuth } from './public-auth';
