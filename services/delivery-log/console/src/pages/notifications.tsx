/*
 * A partner subscribes one URL to operational notifications (docs/notifications.md): an endpoint
 * failing or recovered, dead letters waiting, the partner disabled or enabled; and sees what was
 * sent, with its outcome. Changes need the API key, as the endpoints' do.
 */
import { useState } from 'preact/hooks';
import type { Session } from '../api';
import { notificationSettingsCall, sentNotificationsCall, subscribe, unsubscribe, type NotificationTypeName } from '../api/notifications';
import { Failure, Section } from '../components/basics';
import { BusyButton, useAction } from '../components/busy-button';
import { fieldNotes, fieldProblemsOf, RefusalBanner } from '../components/field-problems';
import { NotificationList } from '../components/notification-list';
import { formText } from '../form-text';
import { useApi } from '../use-api';

/** Each event in the console's words. */
const EVENT_WORDS: Record<NotificationTypeName, string> = {
  'endpoint.failing': 'An endpoint is failing',
  'endpoint.recovered': 'A failing endpoint delivers again',
  'dead_letters.waiting': 'Dead letters are waiting to be resent',
  'partner.disabled': 'The insurer disabled you',
  'partner.enabled': 'The insurer enabled you again',
};

export function NotificationsPage({ session }: { session: Session }) {
  const settings = useApi(notificationSettingsCall, []);
  const sent = useApi(sentNotificationsCall, []);
  const action = useAction();
  const [saved, setSaved] = useState<string | undefined>(undefined);
  if (settings.error && !settings.data) return <Failure error={settings.error} />;
  if (!settings.data) return <p class="loading">Loading…</p>;
  const s = settings.data.data;
  const byLink = session.holds === 'portal_link';
  const placement = fieldProblemsOf(action.error, ['url']);
  const notes = fieldNotes(placement);
  const submit = action.submit(async (form) => {
    const events = s.events.filter((event) => (form.elements.namedItem(event) as HTMLInputElement | null)?.checked);
    await subscribe(formText(form, 'url'), events);
    setSaved('Saved: notifications go to this URL.');
    void settings.reload();
  });
  const remove = () =>
    action.run(async () => {
      await unsubscribe();
      setSaved('Unsubscribed: no notification is sent any more.');
      void settings.reload();
    });
  const wanted = new Set(s.subscription?.events ?? s.events);
  return (
    <>
      <h1>Notifications</h1>
      <Section title="Where we notify you">
        <p>
          We POST a short signed JSON notification to one URL of yours when something changes: once per change, never once per failed
          callback (an endpoint counts as failing after {s.failing_after_minutes} minutes without a success; at most {s.per_hour} an hour).
          It is signed with your signing secret, as your callbacks are.
        </p>
        {s.subscription?.operator_off && <p class="warning">The insurer switched your notifications off: none is sent.</p>}
        {byLink && <p class="note">Opened with a portal link, the console cannot change this: sign in with your API key.</p>}
        {saved && (
          <p class="ok" role="status">
            {saved}
          </p>
        )}
        <RefusalBanner failure={action.error} placement={placement} />
        <form onSubmit={submit}>
          <label>
            <span>Notification URL (https)</span>
            <input name="url" type="url" required defaultValue={s.subscription?.url ?? ''} disabled={byLink} {...notes.described('url')} />
            {notes.problem('url')}
          </label>
          <fieldset disabled={byLink}>
            <legend>Notify me when</legend>
            {s.events.map((event) => (
              <label key={event} class="check">
                <input type="checkbox" name={event} defaultChecked={wanted.has(event)} /> {EVENT_WORDS[event]}
              </label>
            ))}
          </fieldset>
          {!byLink && (
            <p>
              <BusyButton busy={action.busy} busyLabel="Saving…">
                Save
              </BusyButton>{' '}
              {s.subscription && (
                <button type="button" class="danger" disabled={action.busy} onClick={() => void remove()}>
                  Unsubscribe
                </button>
              )}
            </p>
          )}
        </form>
      </Section>
      <Section title="Sent to you">
        {sent.error && <Failure error={sent.error} />}
        <NotificationList items={sent.data?.data ?? []} />
      </Section>
    </>
  );
}
