/*
 * How the console talks to the delivery log: the partner API (/api/portal/v1) or the operator API
 * (/api/admin/v1), through `client`, an openapi-fetch client typed by the served OpenAPI document
 * (generated/openapi.ts, made by console/generate-api.mjs), so a route, parameter or body the
 * service changes breaks the console's type check. What every call needs is added here: the
 * session cookie the sign-in set (same origin; the browser sends it, the page never sees it), the
 * session's CSRF value on every write, a refusal as an ApiFailure with the contract's message and
 * the fields it names (for the forms), a 401 ending the page's session (api-notices.ts), and a read
 * answered 503 asked again (unavailable.ts).
 *
 *   const { data } = await write(client.POST('/api/portal/v1/deliveries/{deliveryId}/resend', { params: { path: { deliveryId } }, body: {} }));
 *   useApi(() => client.GET('/api/admin/v1/partners/{partnerId}', { params: { path: { partnerId } } }), [partnerId]);
 */
import createClient, { type Middleware } from 'openapi-fetch';
import { announceSessionEnded } from './api-notices';
import type { FieldProblem } from './field-placement';
import type { components, paths } from './generated/openapi';
import { whileUnavailable } from './unavailable';

/** A schema of the OpenAPI document by name: `Schema<'DeliverySummary'>`. */
export type Schema<Name extends keyof components['schemas']> = components['schemas'][Name];
export type Session = Schema<'ConsoleSession'>;

export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly errorCode: string,
    message: string,
    /** The answer's Retry-After, when it had one (a 503 or 429). */
    readonly retryAfterSeconds?: number,
    /** A 400's fields at fault, by path (the error body's `fields`). */
    readonly fieldProblems: FieldProblem[] = [],
  ) {
    super(message);
  }
}

let csrfToken = '';

/** Where signing in is asked: its 401 is a wrong key or token, not a session that ended. */
const SIGN_IN = '/console/session';

/** What each call needs beside its own parameters: the CSRF value on a write, the end of the session on a 401. */
const sessionMiddleware: Middleware = {
  onRequest({ request }) {
    if (request.method !== 'GET') request.headers.set('x-csrf-token', csrfToken);
    return request;
  },
  async onResponse({ response, schemaPath }) {
    if (response.status === 401 && schemaPath !== SIGN_IN) {
      csrfToken = '';
      const body = (await response
        .clone()
        .json()
        .catch(() => ({}))) as { error_code?: string };
      announceSessionEnded(body.error_code === 'PARTNER_DISABLED_ERR' ? 'partner_disabled' : 'ended');
    }
    return response;
  },
};

/** A query string of the set values: an empty filter is no filter, as the forms mean it; a list is comma-separated. */
function querySerializer(params: Record<string, unknown>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    const text = Array.isArray(value)
      ? value.join(',')
      : typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean'
        ? String(value)
        : '';
    if (text !== '') search.set(name, text);
  }
  return search.toString();
}

export const client = createClient<paths>({
  credentials: 'same-origin',
  headers: { accept: 'application/json' },
  querySerializer,
});
client.use(sessionMiddleware);

/** What a call of `client` resolves to. */
interface Answered {
  data?: unknown;
  error?: unknown;
  response: Response;
}
/** The answer's body on success. */
export type AnswerOf<R extends Answered> = Exclude<R['data'], undefined>;

/** The answer's body, or the refusal as an ApiFailure. */
async function answer<R extends Answered>(pending: Promise<R>): Promise<AnswerOf<R>> {
  const { data, error, response } = await pending;
  if (response.ok) return data as AnswerOf<R>;
  const body = (error ?? {}) as { message?: string; error_code?: string; fields?: FieldProblem[] };
  const retryAfter = Number(response.headers.get('retry-after') ?? Number.NaN);
  throw new ApiFailure(
    response.status,
    body.error_code ?? 'UNKNOWN',
    body.message ?? `HTTP ${response.status}`,
    Number.isFinite(retryAfter) ? retryAfter : undefined,
    body.fields ?? [],
  );
}

/** A read: asked again while the service answers 503 (it changes nothing). */
export function read<R extends Answered>(call: () => Promise<R>): Promise<AnswerOf<R>> {
  return whileUnavailable(() => answer(call()));
}

/** A write: asked once; a 503 is shown, never repeated behind the person's back. */
export function write<R extends Answered>(call: Promise<R>): Promise<AnswerOf<R>> {
  return answer(call);
}

/** The session the cookie holds, or null when not signed in. */
export async function currentSession(): Promise<Session | null> {
  const { data } = await read(() => client.GET(SIGN_IN));
  csrfToken = data?.csrf_token ?? '';
  return data;
}

/** Signs in; while the service starts (503) it is asked again, as a read is: it changes nothing until it succeeds. */
export async function signIn(body: Schema<'SignInRequest'>): Promise<Session> {
  const { data } = await read(() => client.POST(SIGN_IN, { body }));
  csrfToken = data.csrf_token;
  return data;
}

export async function signOut(): Promise<void> {
  await write(client.DELETE(SIGN_IN));
  csrfToken = '';
}

/** The query parameters a GET of `path` takes. */
export type QueryOf<Path extends keyof paths> = paths[Path] extends { get: { parameters: { query?: infer Q } } } ? NonNullable<Q> : never;

/**
 * A view's filters, read from its address (#/deliveries?status=…), as the query of `path`: the
 * address is the person's (or a shared link's) text, so it is checked where it is checked for every
 * caller, by the API, whose refusal names the parameter at fault.
 */
export function filtersAs<Path extends keyof paths>(_path: Path, filters: Record<string, string | number | undefined>): QueryOf<Path> {
  return filters as QueryOf<Path>;
}
