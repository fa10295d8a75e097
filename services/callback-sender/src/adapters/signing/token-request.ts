import { request, type Dispatcher } from 'undici';
import { valueAtPath } from '@hookstream/contract';
import { ErrorCodes } from '@hookstream/errors';
import { CallbackSigningError } from './signing-error';

/** The partner's token request, secrets included: built once, held only by its fetcher. */
export interface TokenRequest {
  partnerId: string;
  url: string;
  method: 'GET' | 'POST';
  /** Lower-case names; content-type and accept already decided. */
  headers: Record<string, string>;
  body: string | undefined;
  /** Dotted path of the token in the JSON answer. */
  tokenPath: string;
}

export interface FetchedToken {
  token: string;
  /** The answer's `expires_in`, when it holds a positive number of seconds. */
  expiresInSeconds: number | undefined;
}

/** More than any token answer needs; a bigger one is refused rather than buffered. */
export const MAX_TOKEN_RESPONSE_BYTES = 64 * 1024;

/** A token as issued, "Bearer " tolerated in front: visible ASCII without spaces, so it cannot break the header. */
const TOKEN = /^(?:bearer\s+)?([\x21-\x7e]+)$/i;

type Fail = (reason: string, status?: number, cause?: unknown) => CallbackSigningError;

/**
 * Asks the partner's token endpoint for a bearer token; redirects are not followed. Every
 * failure is a retryable TOKEN_FETCH_FAILED naming the partner and the HTTP status, never
 * the request's secrets or the answer's content.
 */
export async function requestToken(tokenRequest: TokenRequest, dispatcher: Dispatcher, timeoutMs: number): Promise<FetchedToken> {
  const { partnerId } = tokenRequest;
  const fail: Fail = (reason, status, cause) =>
    new CallbackSigningError(ErrorCodes.TOKEN_FETCH_FAILED, `partner "${partnerId}": token fetch failed: ${reason}`, {
      cause,
      details: { partnerId, status },
    });
  const { status, text } = await fetchAnswer(tokenRequest, dispatcher, timeoutMs, fail);
  return tokenFromAnswer(status, text, tokenRequest.tokenPath, fail);
}

/** A 2xx answer's text, bounded in time and size. */
async function fetchAnswer(
  tokenRequest: TokenRequest,
  dispatcher: Dispatcher,
  timeoutMs: number,
  fail: Fail,
): Promise<{ status: number; text: string }> {
  let status: number;
  let text: string | undefined;
  try {
    const response = await request(tokenRequest.url, {
      method: tokenRequest.method,
      headers: tokenRequest.headers,
      body: tokenRequest.body,
      dispatcher,
      signal: AbortSignal.timeout(timeoutMs),
    });
    status = response.statusCode;
    if (status < 200 || status > 299) {
      // Read and discard (bounded) rather than destroy: destroying emits an error nobody listens to.
      await response.body.dump({ limit: MAX_TOKEN_RESPONSE_BYTES }).catch(() => undefined);
      throw fail(`the token endpoint answered HTTP ${status}`, status);
    }
    text = await readAtMost(response.body, MAX_TOKEN_RESPONSE_BYTES);
  } catch (error) {
    if (error instanceof CallbackSigningError) throw error;
    const what = errorName(error);
    throw fail(what === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : `the request failed (${what})`, undefined, error);
  }
  if (text === undefined) throw fail(`the HTTP ${status} answer is larger than ${MAX_TOKEN_RESPONSE_BYTES / 1024} KiB`, status);
  return { status, text };
}

function tokenFromAnswer(status: number, text: string, tokenPath: string, fail: Fail): FetchedToken {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw fail(`the HTTP ${status} answer is not JSON`, status);
  }
  const token = valueAtPath(json, tokenPath);
  const match = typeof token === 'string' ? TOKEN.exec(token) : null;
  if (!match?.[1]) throw fail(`the HTTP ${status} answer has no usable token at "${tokenPath}"`, status);
  return { token: match[1], expiresInSeconds: positiveSeconds(valueAtPath(json, 'expires_in')) };
}

/** `expires_in` as OAuth 2.0 servers send it: a number, or from some a numeric string. */
function positiveSeconds(value: unknown): number | undefined {
  const seconds = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  return typeof seconds === 'number' && Number.isFinite(seconds) && seconds > 0 ? seconds : undefined;
}

/** The body as text, or undefined once it passes `maxBytes` (leaving the loop destroys the stream). */
async function readAtMost(body: Dispatcher.ResponseData['body'], maxBytes: number): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * What went wrong, without echoing data: the code (ECONNREFUSED, UND_ERR_SOCKET) or the name
 * (TimeoutError). Duck-typed: errors from other realms (undici internals, test VMs) fail `instanceof Error`.
 */
function errorName(error: unknown): string {
  const { name, code } = (typeof error === 'object' && error !== null ? error : {}) as { name?: unknown; code?: unknown };
  return typeof code === 'string' ? code : typeof name === 'string' ? name : 'unknown error';
}
