import { z } from 'zod';
import { parseSsrfAllowList } from './ssrf-guard';

/**
 * SSRF_ALLOW, for every service that connects to partner-supplied URLs (the callback-sender, the
 * document-fetcher): address ranges those URLs may resolve to although the SSRF guard refuses them
 * (loopback, private, link-local, CGNAT, metadata, …), as CIDRs, comma-separated. Default none.
 * The local demo and the tests allow loopback: 127.0.0.0/8,::1/128.
 */
export const ssrfAllowSetting = {
  SSRF_ALLOW: z
    .string()
    .default('')
    .transform((value, ctx) => {
      try {
        return parseSsrfAllowList(value);
      } catch (error) {
        ctx.addIssue({ code: 'custom', message: (error as Error).message });
        return z.NEVER;
      }
    }),
};
