import type { Dispatcher } from 'undici';
import type { OutboundAuth } from '@hookstream/partners';
import type { SecretBox } from '@hookstream/runtime';
import { authSecrets, checkHeaderValue } from './reveal-secret';
import { requestToken, type TokenRequest } from './token-request';

export type BearerFetchedAuth = Extract<OutboundAuth, { method: 'BEARER_FETCHED' }>;

export interface BearerTokenFetcherOptions {
  /** Partner the auth belongs to: binds each secret's decryption context. */
  partnerId: string;
  /** The partner's BEARER_FETCHED auth, secrets encrypted. */
  auth: BearerFetchedAuth;
  /** Decrypts secret_headers and request_body_secret, once, in the constructor. */
  secrets: SecretBox;
  /**
   * Agent for the token requests: the sender's SSRF-guarded one in production. Required, with no
   * default: the token URL is the partner's to set, and undici's global dispatcher would fetch it
   * unguarded (loopback, the cloud's metadata address, the private network).
   */
  dispatcher: Dispatcher;
  /** Clock in epoch milliseconds, for the cache's expiry. Default: Date.now. */
  now?: () => number;
  /** Bound on one token request, answer included. Default: 10000 ms. */
  timeoutMs?: number;
}

/** How long a token is used when neither cache_seconds nor the answer's expires_in says. */
export const DEFAULT_TOKEN_LIFETIME_SECONDS = 300;
/** A token is refreshed this long before it expires: 10 % of its lifetime, at most 30 s. */
function refreshMarginSeconds(lifetimeSeconds: number): number {
  return Math.min(30, lifetimeSeconds * 0.1);
}

const DEFAULT_TIMEOUT_MS = 10_000;

/**
 * BEARER_FETCHED (spec 5.1): the token fetched from the partner's auth endpoint, cached and
 * shared by the partner's signers. A cached token is used until shortly before it expires:
 * for cache_seconds when set (taken as is), else for the answer's expires_in, else for
 * DEFAULT_TOKEN_LIFETIME_SECONDS, each less its refresh margin. Concurrent callers share one
 * request in flight. Secrets live in private fields only.
 */
export class BearerTokenFetcher {
  readonly #tokenRequest: TokenRequest;
  readonly #dispatcher: Dispatcher;
  readonly #now: () => number;
  readonly #timeoutMs: number;
  readonly #cacheSeconds: number | null;
  #cached: { token: string; refreshAt: number } | undefined;
  #inFlight: Promise<string> | undefined;

  constructor(options: BearerTokenFetcherOptions) {
    // Checked at run time too: a caller outside the type checker must not get undici's unguarded default.
    if (!options.dispatcher) throw new Error(`partner "${options.partnerId}": a token fetcher needs a dispatcher (the SSRF-guarded one)`);
    this.#tokenRequest = buildTokenRequest(options);
    this.#dispatcher = options.dispatcher;
    this.#now = options.now ?? Date.now;
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.#cacheSeconds = options.auth.cache_seconds;
  }

  /** The cached token while fresh, else the one being fetched. Throws CallbackSigningError TOKEN_FETCH_FAILED. */
  token(): Promise<string> {
    const cached = this.#cached;
    if (cached && this.#now() < cached.refreshAt) return Promise.resolve(cached.token);
    this.#inFlight ??= this.#fetch().finally(() => {
      this.#inFlight = undefined;
    });
    return this.#inFlight;
  }

  /**
   * Drops the cached token (the partner answered 401 to it), so the next call fetches anew.
   * A fetch already in flight is kept: it brings a token other than the refused one.
   */
  invalidate(): void {
    this.#cached = undefined;
  }

  async #fetch(): Promise<string> {
    // The lifetime counts from the request, not from the answer.
    const requestedAt = this.#now();
    const { token, expiresInSeconds } = await requestToken(this.#tokenRequest, this.#dispatcher, this.#timeoutMs);
    this.#cached = { token, refreshAt: requestedAt + secondsToUse(this.#cacheSeconds, expiresInSeconds) * 1000 };
    return token;
  }
}

/** cache_seconds as configured; else the token's lifetime (expires_in or the default) less the refresh margin. */
function secondsToUse(cacheSeconds: number | null, expiresInSeconds: number | undefined): number {
  if (cacheSeconds !== null) return cacheSeconds;
  const lifetime = expiresInSeconds ?? DEFAULT_TOKEN_LIFETIME_SECONDS;
  return lifetime - refreshMarginSeconds(lifetime);
}

/**
 * The request the auth describes: request_headers, then the decrypted secret_headers, with
 * names in lower case (a secret header wins a clash); the decrypted body with a content-type
 * guessed from it (JSON if it parses, else form-urlencoded) unless request_headers set one.
 */
function buildTokenRequest({ partnerId, auth, secrets }: BearerTokenFetcherOptions): TokenRequest {
  const revealed = authSecrets(secrets, partnerId);
  const headers: Record<string, string> = { accept: 'application/json' };
  for (const [name, value] of Object.entries(auth.request_headers)) {
    headers[name.toLowerCase()] = checkHeaderValue(partnerId, `request_headers.${name}`, value);
  }
  for (const [name, secret] of Object.entries(auth.secret_headers)) {
    headers[name.toLowerCase()] = revealed.revealHeaderValue(`secret_headers.${name}`, secret);
  }
  const body = auth.request_body_secret ? revealed.reveal('request_body_secret', auth.request_body_secret) : undefined;
  if (body !== undefined && headers['content-type'] === undefined) {
    headers['content-type'] = parsesAsJson(body) ? 'application/json' : 'application/x-www-form-urlencoded';
  }
  return {
    partnerId,
    url: auth.token_url,
    method: auth.request_method === 'GET' ? 'GET' : 'POST',
    headers,
    body,
    tokenPath: auth.token_path,
  };
}

function parsesAsJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
