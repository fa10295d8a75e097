/*
 * A partner's inbound API keys, for operators: each with its prefix and dates, and for a writer a
 * revocation of each live one with its reason (audited), asked first: the partner's webhooks signed
 * with that key are refused from then on.
 */
import { client, write, type Schema } from '../api';
import { Failure, Section } from '../components/basics';
import { BusyButton, useAction } from '../components/busy-button';
import { useConfirm } from '../components/confirm';
import { formText } from '../form-text';
import { when } from '../format';

type Key = Schema<'Partner'>['api_keys'][number];

const live = (key: Key) => key.revoked_at === null && (key.expires_at === null || Date.parse(key.expires_at) > Date.now());

export function ApiKeys(props: { partner: Schema<'Partner'>; writer: boolean; onDone: () => void }) {
  const action = useAction();
  const confirm = useConfirm();
  const liveCount = props.partner.api_keys.filter(live).length;
  const revoke = (key: Key) =>
    action.submit(
      async (form) => {
        await write(
          client.POST('/api/admin/v1/partners/{partnerId}/api-keys/{keyId}/revoke', {
            params: { path: { partnerId: props.partner.partner_id, keyId: key.key_id } },
            body: { reason: formText(form, 'reason') },
          }),
        );
        props.onDone();
      },
      () =>
        confirm.ask({
          title: `Revoke API key ${key.key_id}?`,
          body: (
            <p>
              Webhooks sent with it are refused (401) from now on{liveCount <= 1 ? ': it is the partner’s only working key' : ''}, and the
              console sessions opened with it end. It cannot be taken back: a new key is issued by rotating.
            </p>
          ),
          action: 'Revoke key',
        }),
    );
  return (
    <Section title="Inbound API keys">
      {confirm.dialog}
      <Failure error={action.error} />
      <ul>
        {props.partner.api_keys.map((k) => (
          <li key={k.key_id}>
            <code>{k.key_id}</code> {k.prefix} created {when(k.created_at)}
            {k.revoked_at ? ` — revoked ${when(k.revoked_at)}` : k.expires_at ? ` — expires ${when(k.expires_at)}` : ''}
            {props.writer && live(k) && (
              <form class="inline-form" onSubmit={revoke(k)}>
                <label>
                  <span>Why key {k.key_id} is revoked (audited)</span>
                  <input name="reason" required placeholder="key leaked in a log" />
                </label>
                <BusyButton busy={action.busy} busyLabel="Revoking…" class="danger">
                  Revoke key
                </BusyButton>
              </form>
            )}
          </li>
        ))}
      </ul>
    </Section>
  );
}
