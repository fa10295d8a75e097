/*
 * The callback retry schedule as a setting: one delay per retry tier (the contract: up to 8 retries
 * with exponential backoff). The callback-sender waits by it; the delivery log shows a failing
 * delivery what is left of it. One definition, so that the two never read it differently.
 */
import { z } from 'zod';

/**
 * Delay of each callback retry tier in ms, comma-separated, one per tier (spec 8: up to 8 retries,
 * exponential backoff): the callback-sender's schedule, and what the delivery log shows is left of
 * it. Default 5 s, 30 s, 2 min, 10 min, 30 min, 1 h, 3 h, 6 h: about 10 h 42 min in all.
 */
export const callbackRetryDelaysSetting = (tierCount: number) => ({
  CALLBACK_RETRY_DELAYS_MS: z
    .string()
    .default('5000,30000,120000,600000,1800000,3600000,10800000,21600000')
    .transform((value, ctx) => {
      const delays = value.split(',').map((part) => Number(part.trim()));
      if (delays.length !== tierCount || delays.some((d) => !Number.isInteger(d) || d < 0)) {
        ctx.addIssue({ code: 'custom', message: `must list ${tierCount} whole numbers of milliseconds, one per retry tier` });
        return z.NEVER;
      }
      return delays;
    }),
});
