/*
 * How the console talks to the delivery log: the partner API (/api/portal/v1) or the operator API
 * (/api/admin/v1), with the session cookie the sign-in set (same origin; the browser sends it, the
 * page never sees it) and the session's CSRF value on every write. A refusal becomes an ApiFailure
 * with the contract's message; the fields it names are picked out for the forms.
 */
import type { z } from 'zod';
import type { ConsoleSessionView } from '../../src/api/schemas';

export type Session = z.infer<typeof ConsoleSessionView>;

export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly errorCode: string,
    message: string,
  ) {
    super(message);
  }

  /** The message's problems by field path ("callback_endpoints[0].url: must use http or https; name: …"). */
  get fieldProblems(): Record<string, string> {
    const problems: Record<string, string> = {};
    const list = this.message.replace(/^invalid (body|query): /, '');
    for (const part of list.split('; ')) {
      const at = part.indexOf(': ');
      if (at > 0) problems[part.slice(0, at)] = part.slice(at + 2);
    }
    return problems;
  }
}

let csrfToken = '';

async function call<T>(method: string, url: string, body?: unknown): Promise<T> {
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
  const json = (await response.json().catch(() => ({}))) as { message?: string; error_code?: string };
  if (!response.ok) throw new ApiFailure(response.status, json.error_code ?? 'UNKNOWN', json.message ?? `HTTP ${response.status}`);
  return json as T;
}

export const api = {
  get: <T>(url: string) => call<T>('GET', url),
  post: <T>(url: string, body?: unknown) => call<T>('POST', url, body ?? {}),
  patch: <T>(url: string, body: unknown) => call<T>('PATCH', url, body),
};

/** The session the cookie holds, or null when not signed in. */
export async function currentSession(): Promise<Session | null> {
  const { data } = await call<{ data: Session | null }>('GET', '/console/session');
  csrfToken = data?.csrf_token ?? '';
  return data;
}

export async function signIn(credential: { api_key: string } | { portal_token: string } | { operator_token: string }): Promise<Session> {
  const { data } = await call<{ data: Session }>('POST', '/console/session', credential);
  csrfToken = data.csrf_token;
  return data;
}

export async function signOut(): Promise<void> {
  await call('DELETE', '/console/session');
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
