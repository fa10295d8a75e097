/*
 * The console: who is signed in decides the navigation (a partner's own views; an operator's
 * views across partners), and the URL's fragment decides the view.
 */
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { currentSession, signIn, signOut, type Session } from './api';
import { Failure } from './components/basics';
import { link, replaceRoute, useRoute, type Route } from './router';
import { AuditPage } from './pages/audit';
import { DeadLettersPage } from './pages/dead-letters';
import { DeliveriesPage } from './pages/deliveries';
import { DeliveryPage } from './pages/delivery';
import { HealthPage } from './pages/health';
import { KeysPage } from './pages/keys';
import { PartnerFormPage } from './pages/partner-form';
import { PartnerPage, PartnersPage } from './pages/partners';
import { SignInPage } from './pages/sign-in';
import { WebhookPage, WebhooksPage } from './pages/webhooks';

function App() {
  const route = useRoute();
  const [session, setSession] = useState<Session | null | undefined>(undefined);
  const [error, setError] = useState<Error | undefined>(undefined);
  useEffect(() => {
    const portalToken = route.segments[0] === 'portal' ? route.params.get('token') : null;
    if (!portalToken) {
      currentSession().then(setSession, (e: Error) => setError(e));
      return;
    }
    // A portal link signs in by itself; its token leaves the address bar at once (history, screenshots, shoulder surfing).
    replaceRoute('deliveries');
    signIn({ portal_token: portalToken }).then(setSession, (e: Error) => {
      setError(e);
      setSession(null);
    });
  }, []);

  if (session === undefined) return error ? <Failure error={error} /> : <p>Loading…</p>;
  if (session === null) return <SignInPage onSignedIn={setSession} error={error} />;
  return (
    <>
      <Header session={session} onSignedOut={() => setSession(null)} />
      <div class="content">
        <View session={session} route={route} />
      </div>
    </>
  );
}

function Header({ session, onSignedOut }: { session: Session; onSignedOut: () => void }) {
  const items: Array<[string, string]> = [
    ['deliveries', 'Deliveries'],
    ['webhooks', 'Webhooks'],
    ['health', 'Endpoint health'],
    ...(session.kind === 'partner'
      ? ([['keys', 'API key']] as Array<[string, string]>)
      : ([
          ['dead-letters', 'Dead letters'],
          ['partners', 'Partners'],
          ['audit', 'Audit trail'],
        ] as Array<[string, string]>)),
  ];
  const who = session.kind === 'partner' ? session.partner_name : `${session.name} (${session.role})`;
  return (
    <header class="top">
      <a class="brand" href={link('deliveries')}>
        Hookstream
      </a>
      <nav aria-label="Main">
        {items.map(([segment, label]) => (
          <a key={segment} href={link(segment)}>
            {label}
          </a>
        ))}
      </nav>
      <span class="who">{who}</span>
      <button type="button" class="secondary" onClick={() => void signOut().then(onSignedOut)}>
        Sign out
      </button>
    </header>
  );
}

function View({ session, route }: { session: Session; route: Route }) {
  const [first = 'deliveries', second, third] = route.segments;
  const operator = session.kind === 'operator';
  switch (first) {
    case 'deliveries':
      return second ? <DeliveryPage session={session} deliveryId={second} /> : <DeliveriesPage session={session} route={route} />;
    case 'webhooks':
      return second ? <WebhookPage session={session} webhookId={second} /> : <WebhooksPage session={session} route={route} />;
    case 'health':
      return <HealthPage session={session} partnerId={route.params.get('partner_id')} />;
    case 'keys':
      return session.kind === 'partner' ? <KeysPage /> : <NotHere />;
    case 'dead-letters':
      return operator ? <DeadLettersPage session={session} route={route} /> : <NotHere />;
    case 'audit':
      return operator ? <AuditPage session={session} route={route} /> : <NotHere />;
    case 'partners':
      if (!operator) return <NotHere />;
      if (second === 'new') return <PartnerFormPage partnerId={null} />;
      if (second && third === 'edit') return <PartnerFormPage partnerId={second} />;
      return second ? <PartnerPage session={session} partnerId={second} /> : <PartnersPage session={session} />;
    default:
      return <NotHere />;
  }
}

function NotHere() {
  return (
    <p>
      Nothing here. <a href={link('deliveries')}>Deliveries</a>
    </p>
  );
}

const root = document.getElementById('app')!;
// The page's "Loading…" is for the moment before this script runs; Preact renders beside what it finds.
root.textContent = '';
render(<App />, root);
