/* Which URLs a retrieval may follow: http and https only, each redirect resolved against the URL it answered. */
import { FailureReasons, failureOf, type FetchFailure } from '../../domain/fetch-failure';

/** Statuses whose Location the fetcher follows (each hop judged again by the SSRF guard when it connects). */
export const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

/** `text` as an http or https URL, or why it cannot be retrieved (never retryable). */
export function httpUrlOf(text: string): URL | FetchFailure {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return failureOf(FailureReasons.invalidUrl, `not a URL: ${text.slice(0, 200)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return failureOf(FailureReasons.unsupportedScheme, `${url.protocol.replace(/:$/, '')} is not http or https: ${text.slice(0, 200)}`);
  }
  return url;
}

/** Where a redirect from `from` leads (a relative Location resolved against it), or why it cannot be followed. */
export function redirectTarget(from: URL, location: string | string[] | undefined): URL | FetchFailure {
  const text = Array.isArray(location) ? location[0] : location;
  if (!text) return failureOf(FailureReasons.invalidUrl, `a redirect from ${from.href} without a Location`);
  let resolved: string;
  try {
    resolved = new URL(text, from).href;
  } catch {
    return failureOf(FailureReasons.invalidUrl, `a redirect from ${from.href} to an unreadable Location: ${text.slice(0, 200)}`);
  }
  return httpUrlOf(resolved);
}

export function isFailure(value: URL | FetchFailure): value is FetchFailure {
  return !(value instanceof URL);
}
