/**
 * The bar above every view: the navigation the session may use (the view on screen marked as the
 * current page), who is signed in, and signing out.
 */
import { signOut, type Session } from '../api';
import { link } from '../router';

export function Header({ session, current, onSignedOut }: { session: Session; current: string; onSignedOut: () => void }) {
  const items: Array<[string, string]> = [
    ['deliveries', 'Deliveries'],
    ['webhooks', 'Webhooks'],
    ['health', 'Endpoint health'],
    ...(session.kind === 'partner'
      ? ([
          ['endpoints', 'Endpoints'],
          ['event-types', 'Event types'],
          ['notifications', 'Notifications'],
          ['signing-secret', 'Signing secret'],
          ['recover', 'Recover'],
          ['test-event', 'Send a test event'],
          ['keys', 'API key'],
        ] as Array<[string, string]>)
      : ([
          ['failing-endpoints', 'Failing endpoints'],
          ['dead-letters', 'Dead letters'],
          ['partners', 'Partners'],
          ['audit', 'Audit trail'],
        ] as Array<[string, string]>)),
    ['glossary', 'Glossary'],
  ];
  const who = session.kind === 'partner' ? session.partner_name : `${session.name} (${session.role})`;
  return (
    <header class="top">
      <a class="brand" href={link('deliveries')}>
        Hookstream
      </a>
      <nav aria-label="Main">
        {items.map(([segment, label]) => (
          <a key={segment} href={link(segment)} aria-current={segment === current ? 'page' : undefined}>
            {label}
          </a>
        ))}
      </nav>
      <span class="who" title={who}>
        {who}
      </span>
      <button type="button" class="secondary" onClick={() => void signOut().then(onSignedOut)}>
        Sign out
      </button>
    </header>
  );
}
