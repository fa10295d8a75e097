/*
 * Signing in: a partner with its API key (a portal link signs in by itself, main.tsx), an operator
 * with its token. What is typed goes once to /console/session and is never kept by the page: the
 * session is an HttpOnly cookie from then on. `note` says why it is back (a session that ended).
 */
import { useState } from 'preact/hooks';
import { signIn, type Session } from '../api';
import { BusyButton } from '../components/busy-button';
import { Failure } from '../components/basics';
import { formText } from '../form-text';

export function SignInPage({
  onSignedIn,
  error: earlier,
  note,
}: {
  onSignedIn: (session: Session) => void;
  error?: Error | undefined;
  note?: string | undefined;
}) {
  const [as, setAs] = useState<'partner' | 'operator'>('partner');
  const [error, setError] = useState<Error | undefined>(earlier);
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    if (busy) return;
    const secret = formText(event.currentTarget, 'credential');
    setBusy(true);
    try {
      onSignedIn(await signIn(as === 'partner' ? { api_key: secret } : { operator_token: secret }));
    } catch (e) {
      setError(e as Error);
    } finally {
      setBusy(false);
    }
  };

  return (
    <div class="sign-in">
      <h1 data-title="Sign in">Hookstream console</h1>
      {note && (
        <p class="note" role="status">
          {note}
        </p>
      )}
      <form onSubmit={submit}>
        <fieldset>
          <legend>Sign in as</legend>
          <label class="check">
            <input type="radio" name="as" checked={as === 'partner'} onChange={() => setAs('partner')} />
            <span>a partner (your x-api-key)</span>
          </label>
          <label class="check">
            <input type="radio" name="as" checked={as === 'operator'} onChange={() => setAs('operator')} />
            <span>an operator (your operator token)</span>
          </label>
        </fieldset>
        <label>
          <span>{as === 'partner' ? 'API key' : 'Operator token'}</span>
          <input name="credential" type="password" autoComplete="off" required />
        </label>
        <BusyButton busy={busy} busyLabel="Signing in…">
          Sign in
        </BusyButton>
      </form>
      <Failure error={error} />
    </div>
  );
}
