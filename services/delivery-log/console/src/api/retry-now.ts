/* The console's calls for a retry now, a retry of an endpoint's failing deliveries and a test event (POST /deliveries/{id}/retry, /endpoints/{id}/retry-failing, /endpoints/{id}/test), on api.ts's typed client. */
import { client, write, type Schema, type Session } from '../api';

export type TestEvent = Schema<'TestEventResult'>;

/** Asks for one more attempt of a failing delivery now: a partner its own, an operator any (with the reason its writes name). */
export async function retryNow(session: Session, deliveryId: string): Promise<Schema<'RetryAccepted'>> {
  const reason = 'retried now from the console';
  const params = { path: { deliveryId } };
  const answer =
    session.kind === 'partner'
      ? await write(client.POST('/api/portal/v1/deliveries/{deliveryId}/retry', { params, body: { reason } }))
      : await write(client.POST('/api/admin/v1/deliveries/{deliveryId}/retry', { params, body: { reason } }));
  return answer.data;
}

/** Sends a sample callback of `status` to one of the partner's endpoints; resolves with its attempt (answered false: not in the log in time). */
export async function sendTestEvent(endpointId: string, status: Schema<'TestEventRequest'>['status']): Promise<TestEvent> {
  return (await write(client.POST('/api/portal/v1/endpoints/{endpointId}/test', { params: { path: { endpointId } }, body: { status } })))
    .data;
}

export type FailingRetry = Schema<'FailingRetry'>;

/** Retries now every failing delivery of one of the partner's endpoints (a dry run unless `dryRun` is false). */
export async function retryFailing(endpointId: string, dryRun: boolean): Promise<FailingRetry> {
  const body = { dry_run: dryRun, ...(dryRun ? {} : { reason: 'retried now from the console' }) };
  return (await write(client.POST('/api/portal/v1/endpoints/{endpointId}/retry-failing', { params: { path: { endpointId } }, body }))).data;
}
