/*
 * The console's calls of the operator's views across partners and of a partner's recovery (the
 * operator API's /failing-endpoints, /partners?search=, /dead-letters/replay; the partner API's
 * /dead-letters/recover), typed by the schemas the service validates and documents them with.
 */
import type { z } from 'zod';
import type { FailingEndpointsPage, Recovery } from '../../../src/entry/http/schemas/operator-view-schemas';
import { api, query } from '../api';

export type FailingEndpoints = z.infer<typeof FailingEndpointsPage>;
export type FailingEndpoint = FailingEndpoints['data'][number];
export type RecoveryAnswer = z.infer<typeof Recovery>;

export const failingEndpointsUrl = (offset: number, limit: number) => `/api/admin/v1/failing-endpoints${query({ offset, limit })}`;

export interface PartnerMatch {
  partner_id: string;
  name: string;
  status: string;
}

/** Partners whose id or name contains `text`, whatever its case. */
export async function searchPartners(text: string): Promise<PartnerMatch[]> {
  const { data } = await api.get<{ data: PartnerMatch[] }>(`/api/admin/v1/partners${query({ search: text })}`);
  return data;
}

export interface RecoverRequest {
  since: string;
  endpoint_id?: string;
  dry_run: boolean;
  reason?: string;
}

export async function recover(request: RecoverRequest): Promise<RecoveryAnswer> {
  const { data } = await api.post<{ data: RecoveryAnswer }>('/api/portal/v1/dead-letters/recover', request);
  return data;
}

export interface ReplayDecision {
  outcome: string;
  detail: string;
  partition: number;
  offset: string;
  delivery_id: string | null;
  event_id: string | null;
  partner_id: string | null;
  policy_number: string | null;
}

export interface ReplayAnswer {
  dry_run: boolean;
  replay_id: string | null;
  counts: Record<string, number>;
  decisions: ReplayDecision[];
}

export function replay(request: Record<string, unknown>): Promise<ReplayAnswer> {
  return api.post<ReplayAnswer>('/api/admin/v1/dead-letters/replay', request);
}
