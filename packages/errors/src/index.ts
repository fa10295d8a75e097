// @hookstream/errors: the one list of error codes and the classes that carry them.
export { ERROR_CATALOGUE, ErrorCodes, factsOf, type CodeFacts, type ErrorCode, type RefusalCode } from './codes';
export {
  AvroInvalidError,
  ConfigError,
  describeError,
  hasErrorCode,
  HookstreamError,
  isRetryable,
  KafkaUnavailableError,
  NotFoundError,
  Refusal,
  RegistryUnavailableError,
  SchemaIncompatibleError,
  StackError,
  StoreUnavailableError,
  type RefusalOptions,
} from './errors';
export { FieldProblemsError, type FieldProblem } from './field-problems';
