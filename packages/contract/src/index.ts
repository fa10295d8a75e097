// @hookstream/contract: the interface contract's records (README.md). What other packages use, and nothing else.
export { CallbackRequestHeaders, type CallbackRequestValue, type CallbackTrigger, CallbackTriggers } from './callbacks/callback-request';
export { EmittedPolicyVersions } from './callbacks/emitted-versions';
export { callbackRetryDelaysSetting } from './callbacks/retry-delays';
export { SecretPlaceholders, signedStringOfRequest } from './callbacks/signed-request';
export {
  DeliveryHeaders,
  hmacSha256SignedString,
  md5ReadsBody,
  md5SignedString,
  StandardWebhooksHeaders,
  standardWebhooksSignedString,
  valueAtPath,
} from './callbacks/signed-string';
export { type DocumentFetchRequestValue, DocumentHeaders, type PartnerDocumentValue } from './documents/document-records';
export { documentIdOf, type PartnerEventValue, webhookIdOf } from './documents/webhook-identity';
export { CREDENTIAL_HEADER_PARTS, type InboundRejectionValue } from './inbound/inbound-rejection';
export { type InboundReplayValue } from './inbound/inbound-replay';
export { policyStatusEventType } from './policy/avro-form';
export { CallbackBodyError } from './policy/callback-body-error';
export { buildCallbackBody } from './policy/callback-body';
export { parsePolicyEventJson } from './policy/parse-policy-event';
export { PolicyEventError } from './policy/policy-event-error';
export { type PolicyStatusEventValue } from './policy/policy-event-value';
