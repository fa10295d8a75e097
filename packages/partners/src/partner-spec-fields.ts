import { z } from 'zod';

/**
 * Field schemas that several parts of a partner spec share (the partner, its endpoints, its
 * outbound auth): forgiving where an operator may type a symbol either way, strict where a value
 * reaches the network (URLs, header names).
 */

/** Accepts "latest-wins", "LATEST_WINS", "Latest_Wins": the enum symbol in upper snake case. */
export const symbol = <T extends readonly [string, ...string[]]>(values: T) =>
  z.preprocess((v) => (typeof v === 'string' ? v.trim().toUpperCase().replace(/-/g, '_') : v), z.enum(values));

/** A partner or endpoint id, shaped like a DNS label. */
export const slug = z
  .string()
  .regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'must be 1-63 lower-case letters, digits or "-", starting with a letter or digit');

/** An absolute http(s) URL without credentials in it (credentials belong in outbound_auth). */
export const httpUrl = z
  .string()
  .trim()
  .superRefine((value, ctx) => {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      ctx.addIssue({ code: 'custom', message: 'must be an absolute http or https URL' });
      return;
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      ctx.addIssue({ code: 'custom', message: `must use http or https, not ${url.protocol.replace(':', '')}` });
    else if (!url.hostname) ctx.addIssue({ code: 'custom', message: 'must name a host' });
    if (url.username || url.password) ctx.addIssue({ code: 'custom', message: 'must not carry credentials: put them in outbound_auth' });
  });

/** An HTTP header name (an RFC 9110 token). */
export const headerName = z.string().regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/, 'must be a valid HTTP header name');
