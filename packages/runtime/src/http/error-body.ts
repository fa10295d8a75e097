/**
 * The one shape of an error answer of every Hookstream HTTP API: the inbound contract's (spec
 * 2.4), so a partner reads the portal's refusals as it reads the webhook's. `error_code` is the
 * machine-readable reason; `message` says it in words, naming the fields at fault.
 */
export interface ErrorBody<C extends string = string> {
  status: 'failed';
  data: null;
  message: string;
  /** The HTTP status, repeated. */
  code: number;
  error_code: C;
}

export function errorBody<C extends string>(code: number, errorCode: C, message: string): ErrorBody<C> {
  return { status: 'failed', data: null, message, code, error_code: errorCode };
}
