export {
  AvroInvalidError,
  ConfigError,
  describeError,
  ErrorCodes,
  hasErrorCode,
  HookstreamError,
  isRetryable,
  KafkaUnavailableError,
  RegistryUnavailableError,
  SchemaIncompatibleError,
  StackError,
  StoreUnavailableError,
} from './errors';
export { type FieldProblem, FieldProblemsError } from './field-problems';
