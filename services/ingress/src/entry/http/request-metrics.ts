import type { Response } from 'express';
import type { IngressMetrics } from '../../metrics';
import { stateOf } from './request-state';

/** Counts a webhook request by its answer, and observes its duration since it reached the route. */
export function recordRequest(metrics: IngressMetrics, res: Response, status: number, errorCode: string | undefined): void {
  const state = stateOf(res);
  const partner = state.partner?.partner_id ?? 'unknown';
  metrics.requests.inc({ partner, status_code: String(status), error_code: errorCode ?? '' });
  if (state.started)
    metrics.duration.observe({ partner, status_code: String(status) }, Number(process.hrtime.bigint() - state.started) / 1e9);
}
