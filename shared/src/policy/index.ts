export { DETAIL_MAP_BRANCH, INSURED_DETAIL_BRANCHES, policyNotificationType, policyStatusEventType } from './avro-form';
export { parseIsoDateTime, type IsoDateTime } from './iso-date-time';
export { POLICY_EVENT_INVALID, PolicyEventError, type PolicyEventProblem } from './policy-event-error';
export {
  type BenefitValue,
  type DocumentValue,
  type InsuredDetailValue,
  type InsuredValue,
  type PolicyNotificationValue,
  type PolicyStatus,
  type PolicyStatusEventValue,
  type ProductValue,
  type SimplifiedPolicyValue,
} from './policy-event-value';
export { parsePolicyEventJson, type ParsePolicyEventOptions } from './parse-policy-event';
export { CALLBACK_BODY_INVALID, CallbackBodyError } from './callback-body-error';
export { POLICY_BODY_FIELD_ORDER, buildCallbackBody } from './callback-body';
export { formatDateTime } from './format-date-time';
