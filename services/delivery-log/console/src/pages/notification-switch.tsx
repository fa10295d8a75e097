/*
 * On a partner's page, its operational notifications (docs/notifications.md): the URL it
 * subscribed, the latest sent, and an operator's switch (confirmed, with a reason for the audit).
 */
import { operatorNotificationsCall, switchNotifications } from '../api/notifications';
import { Facts, Failure, Section } from '../components/basics';
import { BusyButton, useAction } from '../components/busy-button';
import { useConfirm } from '../components/confirm';
import { NotificationList } from '../components/notification-list';
import { formText } from '../form-text';
import { useApi } from '../use-api';

export function NotificationSwitch({ partnerId, writer }: { partnerId: string; writer: boolean }) {
  const { data, error, reload } = useApi(() => operatorNotificationsCall(partnerId), [partnerId]);
  const action = useAction();
  const confirm = useConfirm();
  const subscription = data?.data.subscription ?? null;
  const on = subscription !== null && !subscription.operator_off;
  const submit = action.submit(
    async (form) => {
      await switchNotifications(partnerId, !on, formText(form, 'reason'));
      form.reset();
      void reload();
    },
    () =>
      confirm.ask({
        title: on ? 'Switch the partner’s notifications off?' : 'Switch the partner’s notifications on?',
        body: <p>{on ? 'Nothing is sent to its notification URL, and what was still to send is dropped.' : 'They are sent again.'}</p>,
        action: on ? 'Switch off' : 'Switch on',
        danger: on,
      }),
  );
  return (
    <Section title="Notifications">
      {confirm.dialog}
      {error && <Failure error={error} />}
      {subscription === null ? (
        <p class="muted">The partner has not subscribed to notifications.</p>
      ) : (
        <Facts
          rows={[
            ['URL', subscription.url],
            ['Events', subscription.events.join(', ')],
            ['Sending', subscription.operator_off ? 'off (switched off by an operator)' : 'on'],
          ]}
        />
      )}
      <NotificationList items={data?.data.recent ?? []} />
      <Failure error={action.error} />
      {writer && subscription !== null && (
        <form class="inline-form" onSubmit={submit}>
          <label>
            <span>Reason (for the audit trail)</span>
            <input name="reason" required />
          </label>
          <BusyButton class={on ? 'danger' : ''} busy={action.busy} busyLabel="Saving…">
            {on ? 'Switch notifications off' : 'Switch notifications on'}
          </BusyButton>
        </form>
      )}
    </Section>
  );
}
