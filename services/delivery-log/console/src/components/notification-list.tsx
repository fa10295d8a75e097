/** The notifications sent to a partner, newest first, with their outcome: the partner's page and the operator's section show it. */
import type { NotificationView } from '../api/notifications';
import { when } from '../format';

/** An outcome in the console's words. */
const OUTCOME: Record<NotificationView['state'], string> = {
  pending: 'to be sent',
  delivered: 'delivered',
  given_up: 'given up',
  suppressed: 'not sent',
};

export function NotificationList({ items }: { items: NotificationView[] }) {
  if (items.length === 0) return <p class="muted">No notification sent yet.</p>;
  return (
    <table class="notifications">
      <thead>
        <tr>
          <th scope="col">When</th>
          <th scope="col">Event</th>
          <th scope="col">Outcome</th>
          <th scope="col">Attempts</th>
          <th scope="col">Last answer</th>
        </tr>
      </thead>
      <tbody>
        {items.map((n) => (
          <tr key={n.notification_id}>
            <td>{when(n.occurred_at)}</td>
            <td>
              <code>{n.type}</code>
            </td>
            <td>{OUTCOME[n.state]}</td>
            <td>{n.attempts}</td>
            <td>{n.last_error ?? (n.last_http_status === null ? '' : `HTTP ${n.last_http_status}`)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
