/*
 * The console's calls of the operator's views across partners and of a partner's recovery (the
 * operator API's /failing-endpoints, /partners?search=, /dead-letters/replay; the partner API's
 * /dead-letters/recover), through the client typed by the served OpenAPI document (api.ts).
 */
import { client, read, write, type Schema } from '../api';

export type FailingEndpoint = Schema<'FailingEndpoint'>;
export type RecoveryAnswer = Schema<'Recovery'>;
export type RecoverRequest = Schema<'RecoverRequest'>;
export type ReplayAnswer = Schema<'ReplayAnswer'>;
export type ReplayRequest = Schema<'ReplayRequest'>;
export type PartnerMatch = Pick<Schema<'Partner'>, 'partner_id' | 'name' | 'status'>;

/** A page of the failing endpoints, `limit` of them from `offset`. */
export const failingEndpoints = (offset: number, limit: number) => () =>
  client.GET('/api/admin/v1/failing-endpoints', { params: { query: { offset, limit } } });

/** Partners whose id or name contains `text`, whatever its case (every partner for none). */
export async function searchPartners(text: string): Promise<PartnerMatch[]> {
  const { data } = await read(() => client.GET('/api/admin/v1/partners', { params: { query: { search: text } } }));
  return data;
}

export async function recover(body: RecoverRequest): Promise<RecoveryAnswer> {
  const { data } = await write(client.POST('/api/portal/v1/dead-letters/recover', { body }));
  return data;
}

export function replay(body: ReplayRequest): Promise<ReplayAnswer> {
  return write(client.POST('/api/admin/v1/dead-letters/replay', { body }));
}
