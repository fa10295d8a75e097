/*
 * How the console talks to the delivery log: the partner API (/api/portal/v1) or the operator API
 * (/api/admin/v1), with the session cookie the sign-in set (same origin; the browser sends it, the
 * page never sees it) and the session's CSRF value on every write. A refusal becomes an ApiFailure
 * with the contract's message; the fields it names are picked out for the forms. A 401 ends the
 * page's session (api-notices.ts); a read answered 503 is asked again (unavailable.ts).
 */
import type { z } from 'zod';
import type { ConsoleSessionView } from '../../src/entry/http/schemas/schemas';
import { announceSessionEnded } from './api-notices';
import type { FieldProblem } from './field-placement';
import { whileUnavailable } from './unavailable';

export type Session = z.infer<typeof ConsoleSessionView>;

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

function call<T>(method: string, url: string, body?: unknown): Promise<T> {
  return method === 'GET' ? whileUnavailable(() => once<T>(method, url)) : once<T>(method, url, body);
}

async function once<T>(method: string, url: string, body?: unknown): Promise<T> {
  const response = await fetch(url, {
    method,
    credentials: 'same-origin',
    headers: {
      accept: 'application/json',
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(method === 'GET' ? {} : { 'x-csrf-token': csrfToken }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (response.status === 204) return undefined as T;
  const json = (await response.json().catch(() => ({}))) as {
    message?: string;
    error_code?: string;
    fields?: FieldProblem[];
  };
  if (response.status === 401 && url !== SIGN_IN) {
    csrfToken = '';
    announceSessionEnded();
  }
  if (!response.ok) {
    const retryAfter = Number(response.headers.get('retry-after') ?? Number.NaN);
    throw new ApiFailure(
      response.status,
      json.error_code ?? 'UNKNOWN',
      json.message ?? `HTTP ${response.status}`,
      Number.isFinite(retryAfter) ? retryAfter : undefined,
      json.fields ?? [],
    );
  }
  return json as T;
}

export const api = {
  get: <T>(url: string) => call<T>('GET', url),
  post: <T>(url: string, body?: unknown) => call<T>('POST', url, body ?? {}),
  patch: <T>(url: string, body: unknown) => call<T>('PATCH', url, body),
  delete: <T>(url: string, body?: unknown) => call<T>('DELETE', url, body ?? {}),
};

/** The session the cookie holds, or null when not signed in. */
export async function currentSession(): Promise<Session | null> {
  const { data } = await call<{ data: Session | null }>('GET', SIGN_IN);
  csrfToken = data?.csrf_token ?? '';
  return data;
}

/** Signs in; while the service starts (503) it is asked again, as a read is: it changes nothing until it succeeds. */
export async function signIn(credential: { api_key: string } | { portal_token: string } | { operator_token: string }): Promise<Session> {
  const { data } = await whileUnavailable(() => once<{ data: Session }>('POST', SIGN_IN, credential));
  csrfToken = data.csrf_token;
  return data;
}

export async function signOut(): Promise<void> {
  await call('DELETE', SIGN_IN);
  csrfToken = '';
}

/** The API a session reads: a partner its own, an operator every partner's. */
export function apiBase(session: Session): string {
  return session.kind === 'partner' ? '/api/portal/v1' : '/api/admin/v1';
}

/** A query string of the set values. */
export function query(params: Record<string, string | number | undefined | null>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params))
    if (value !== undefined && value !== null && value !== '') search.set(name, String(value));
  const text = search.toString();
  return text ? `?${text}` : '';
}
