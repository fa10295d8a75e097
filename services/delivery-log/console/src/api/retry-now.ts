/* The console's calls for a retry now and a test event (POST /deliveries/{id}/retry, POST /endpoints/{id}/test), on api.ts's helper. */
import type { z } from 'zod';
import type { RetryAccepted, TestEventResult } from '../../../src/entry/http/schemas/retry-schemas';
import { api, apiBase, type Session } from '../api';

export type TestEvent = z.infer<typeof TestEventResult>;

/** Asks for one more attempt of a failing delivery now: a partner its own, an operator any. */
export async function retryNow(session: Session, deliveryId: string): Promise<z.infer<typeof RetryAccepted>> {
  const reason = 'retried now from the console';
  return (
    await api.post<{ data: z.infer<typeof RetryAccepted> }>(`${apiBase(session)}/deliveries/${encodeURIComponent(deliveryId)}/retry`, {
      reason,
    })
  ).data;
}

/** Sends a sample callback of `status` to one of the partner's endpoints; resolves with its attempt (answered false: not in the log in time). */
export async function sendTestEvent(endpointId: string, status: string): Promise<TestEvent> {
  return (await api.post<{ data: TestEvent }>(`/api/portal/v1/endpoints/${encodeURIComponent(endpointId)}/test`, { status })).data;
}
