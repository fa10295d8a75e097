/*
 * The console: who is signed in decides the navigation (a partner's own views; an operator's
 * views across partners), and the URL's fragment decides the view. A session that ends while the
 * page is open (any API call answered 401) brings back the sign-in, the view kept for after; while
 * the service answers 503 the page says it is waiting (api-notices.ts).
 */
import { render } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { currentSession, signIn, type Session } from './api';
import { listenToApi } from './api-notices';
import { Failure } from './components/basics';
import { Header } from './components/header';
import { link, replaceRoute, useRoute, type Route } from './router';
import { useViewHeading } from './view-heading';
import { AuditPage } from './pages/audit';
import { DeadLettersPage } from './pages/dead-letters';
import { DeliveriesPage } from './pages/deliveries';
import { FailingEndpointsPage } from './pages/failing-endpoints';
import { RecoverPage } from './pages/recover';
import { DeliveryPage } from './pages/delivery';
import { EndpointsPage } from './pages/endpoints';
import { GlossaryPage } from './pages/glossary';
import { HealthPage } from './pages/health';
import { KeysPage } from './pages/keys';
import { PartnerFormPage } from './pages/partner-form';
import { PartnerPage, PartnersPage } from './pages/partners';
import { RefusedWebhookPage } from './pages/refused-webhook';
import { SignInPage } from './pages/sign-in';
import { SigningSecretPage } from './pages/signing-secret';
import { NotificationsPage } from './pages/notifications';
import { EventTypesPage } from './pages/event-types';
import { TestEventPage } from './pages/test-event';
import { WebhookPage, WebhooksPage } from './pages/webhooks';

const SESSION_ENDED = 'Your session ended; sign in again.';
const PARTNER_DISABLED =
  'The insurer disabled your partner account: your API keys, portal links and console sessions open nothing, and your callbacks are not sent. Ask the insurer to enable it again.';

function App({ root }: { root: HTMLElement }) {
  const route = useRoute();
  const [session, setSession] = useState<Session | null | undefined>(undefined);
  const [error, setError] = useState<Error | undefined>(undefined);
  const [note, setNote] = useState<string | undefined>(undefined);
  const [waiting, setWaiting] = useState(false);
  const signedIn = useRef(false);
  signedIn.current = !!session;

  useEffect(
    () =>
      listenToApi({
        // Only a session still open ends: a late answer to a view already left (after signing out) says nothing.
        sessionEnded: (why) => {
          if (!signedIn.current) return;
          setSession(null);
          setNote(why === 'partner_disabled' ? PARTNER_DISABLED : SESSION_ENDED);
        },
        waitingChanged: setWaiting,
      }),
    [],
  );

  const loadSession = useCallback(() => {
    setError(undefined);
    currentSession().then(setSession, (e: Error) => setError(e));
  }, []);
  useEffect(() => {
    const portalToken = route.segments[0] === 'portal' ? route.params.get('token') : null;
    if (!portalToken) {
      loadSession();
      return;
    }
    // A portal link signs in by itself; its token leaves the address bar at once (history, screenshots, shoulder surfing).
    replaceRoute('deliveries');
    signIn({ portal_token: portalToken }).then(setSession, (e: Error) => {
      setError(e);
      setSession(null);
    });
  }, []);

  const signedInAs = (opened: Session) => {
    setNote(undefined);
    setError(undefined);
    setSession(opened);
  };
  const viewKey = session === undefined ? null : session === null ? 'sign-in' : route.segments.join('/') || 'deliveries';
  useViewHeading(viewKey, root);

  return (
    <>
      {waiting && (
        <p class="note waiting" role="status">
          The service is not answering yet (it may be starting); waiting for it and trying again…
        </p>
      )}
      {session === undefined ? (
        error ? (
          <div class="content">
            <Failure error={error} />
            <button type="button" onClick={loadSession}>
              Try again
            </button>
          </div>
        ) : (
          <p>Loading…</p>
        )
      ) : session === null ? (
        <SignInPage onSignedIn={signedInAs} error={error} note={note} />
      ) : (
        <>
          <SkipLink />
          <Header session={session} current={route.segments[0] ?? 'deliveries'} onSignedOut={() => setSession(null)} />
          <div class="content" id="content" tabIndex={-1}>
            <View key={viewKey} session={session} route={route} />
          </div>
        </>
      )}
    </>
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
    case 'refused-webhooks':
      return second ? <RefusedWebhookPage session={session} rejectionId={second} /> : <NotHere />;
    case 'health':
      return <HealthPage session={session} partnerId={route.params.get('partner_id')} />;
    case 'recover':
      return session.kind === 'partner' ? <RecoverPage /> : <NotHere />;
    case 'failing-endpoints':
      return operator ? <FailingEndpointsPage /> : <NotHere />;
    case 'keys':
      return session.kind === 'partner' ? <KeysPage /> : <NotHere />;
    case 'endpoints':
      return session.kind === 'partner' ? <EndpointsPage session={session} /> : <NotHere />;
    case 'signing-secret':
      return session.kind === 'partner' ? <SigningSecretPage session={session} /> : <NotHere />;
    case 'notifications':
      return session.kind === 'partner' ? <NotificationsPage session={session} /> : <NotHere />;
    case 'event-types':
      return session.kind === 'partner' ? <EventTypesPage session={session} partnerId={null} /> : <NotHere />;
    case 'test-event':
      return session.kind === 'partner' ? <TestEventPage /> : <NotHere />;
    case 'dead-letters':
      return operator ? <DeadLettersPage session={session} route={route} /> : <NotHere />;
    case 'audit':
      return operator ? <AuditPage session={session} route={route} /> : <NotHere />;
    case 'glossary':
      return <GlossaryPage route={route} />;
    case 'partners':
      if (!operator) return <NotHere />;
      if (second === 'new') return <PartnerFormPage partnerId={null} />;
      if (second && third === 'edit') return <PartnerFormPage partnerId={second} />;
      if (second && third === 'event-types') return <EventTypesPage session={session} partnerId={second} />;
      return second ? <PartnerPage session={session} partnerId={second} /> : <PartnersPage session={session} />;
    default:
      return <NotHere />;
  }
}

/**
 * The first thing Tab reaches: past the navigation to the view. The routes live in the fragment, so
 * it moves focus itself instead of following href="#content" (which would be read as a route).
 */
function SkipLink() {
  return (
    <a
      class="skip-link"
      href="#content"
      onClick={(event) => {
        event.preventDefault();
        const content = document.getElementById('content');
        const heading = content?.querySelector('h1');
        if (heading) heading.tabIndex = -1;
        (heading ?? content)?.focus();
      }}
    >
      Skip to main content
    </a>
  );
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
render(<App root={root} />, root);
