/*
 * The names endpoints have now, for views whose records carry only the endpoint's id (deliveries:
 * a delivery keeps the id it was planned for, and a name may change after). A partner reads its own
 * endpoints; an operator the partners'. Until they are read, or for an endpoint since removed,
 * the id stands alone.
 */
import { client, type Session } from '../api';
import { endpointLabel } from '../format';
import { useApi } from '../use-api';

/** `label(partnerId, endpointId)`: "Claims system (ep-2)", or the id. */
export function useEndpointNames(session: Session): (partnerId: string, endpointId: string) => string {
  const own = useApi(session.kind === 'partner' ? () => client.GET('/api/portal/v1/endpoints') : null, [session.kind]);
  const all = useApi(session.kind === 'operator' ? () => client.GET('/api/admin/v1/partners') : null, [session.kind]);
  const names = new Map<string, string | null | undefined>();
  for (const e of own.data?.data.endpoints ?? []) names.set(`${session.partner_id ?? ''}/${e.endpoint_id}`, e.name);
  for (const p of all.data?.data ?? []) for (const e of p.callback_endpoints) names.set(`${p.partner_id}/${e.endpoint_id}`, e.name);
  return (partnerId, endpointId) => endpointLabel({ endpoint_id: endpointId, name: names.get(`${partnerId}/${endpointId}`) });
}
