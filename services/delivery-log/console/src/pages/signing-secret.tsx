/*
 * A partner rotates the secret its callbacks are signed with. The confirmation says how the overlap
 * works for its method (Standard Webhooks: both signatures for a while; HMAC_SHA256: the old secret
 * until the switch, which it may bring forward); the new secret is shown once, with a copy button.
 */
import { useState } from 'preact/hooks';
import {
  activateSigningSecret,
  rotateSigningSecret,
  SIGNING_SECRET_URL,
  type RotatedSecret,
  type SigningSecretView,
} from '../api/self-service';
import type { Session } from '../api';
import { Facts, Failure, Section } from '../components/basics';
import { ConfirmStep, withZone } from '../components/confirm-step';
import { CopyField } from '../components/copy-field';
import { useApi } from '../use-api';

const OVERLAP: Record<string, string> = {
  STANDARD_WEBHOOKS:
    'The new secret signs at once. For an overlap (24 hours unless the insurer set another), every callback also carries a signature made ' +
    'with your current secret (webhook-signature lists both), so your verifier accepts callbacks whichever secret it holds. Install the new ' +
    'secret before the overlap ends.',
  HMAC_SHA256:
    'X-Signature carries one signature, so the secrets cannot sign together. Your current secret keeps signing until the switch time ' +
    '(24 hours from now unless the insurer set another), then the new one signs. Meanwhile make your verifier accept either secret; ' +
    'once it does, you may switch at once with “Sign with the new secret now”.',
};

export function SigningSecretPage({ session }: { session: Session }) {
  const { data, error, reload } = useApi<{ data: SigningSecretView }>(SIGNING_SECRET_URL);
  const [asking, setAsking] = useState<'rotate' | 'activate' | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<Error | undefined>(undefined);
  const [rotated, setRotated] = useState<RotatedSecret | undefined>(undefined);
  const [done, setDone] = useState<string | undefined>(undefined);

  if (error && !data) return <Failure error={error} />;
  if (!data) return <p role="status">Loading…</p>;
  const s = data.data;
  const byLink = session.holds === 'portal_link';
  const act = async (work: () => Promise<void>) => {
    setBusy(true);
    try {
      await work();
      setFailure(undefined);
      setAsking(undefined);
      void reload();
    } catch (e) {
      setFailure(e as Error);
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <h1>Signing secret</h1>
      <Section title="How your callbacks are signed">
        <Facts
          rows={[
            ['Method', s.method ?? 'none'],
            ...(s.previous_secret_until
              ? ([['Previous secret also signs until', withZone(s.previous_secret_until)]] as Array<[string, string]>)
              : []),
            ...(s.next_secret_from ? ([['New secret signs from', withZone(s.next_secret_from)]] as Array<[string, string]>) : []),
          ]}
        />
        {!s.rotatable && <p>Your callbacks are not signed with a secret you rotate here: ask your contact at the insurer.</p>}
        {s.rotatable && !s.self_service && <p class="note">The insurer turned self-service off for you: ask your contact to rotate it.</p>}
        {s.rotatable && s.self_service && byLink && (
          <p class="note">Opened with a portal link, the console cannot rotate your secret: sign in with your API key.</p>
        )}
        {done && (
          <p class="ok" role="status">
            {done}
          </p>
        )}
        <Failure error={failure} />
        {s.rotatable && s.self_service && !byLink && !asking && (
          <p>
            <button type="button" onClick={() => setAsking('rotate')}>
              Rotate signing secret
            </button>{' '}
            {s.next_secret_from && (
              <button type="button" class="secondary" onClick={() => setAsking('activate')}>
                Sign with the new secret now
              </button>
            )}
          </p>
        )}
        {asking === 'rotate' && (
          <ConfirmStep
            title="Rotate your signing secret?"
            confirm="Rotate now"
            busyLabel="Rotating…"
            busy={busy}
            onCancel={() => setAsking(undefined)}
            onConfirm={() =>
              void act(async () => {
                const answer = await rotateSigningSecret();
                setRotated(answer.data);
                setDone(undefined);
              })
            }
          >
            <p>{OVERLAP[s.method ?? ''] ?? ''}</p>
            <p>The new secret is shown once, right after; keep it somewhere safe.</p>
          </ConfirmStep>
        )}
        {asking === 'activate' && (
          <ConfirmStep
            title="Sign with the new secret now?"
            confirm="Switch now"
            busyLabel="Switching…"
            busy={busy}
            onCancel={() => setAsking(undefined)}
            onConfirm={() =>
              void act(async () => {
                await activateSigningSecret();
                setRotated(undefined);
                setDone('Callbacks are signed with the new secret from now on.');
              })
            }
          >
            <p>Callbacks from now on are signed only with the new secret: your verifier must accept it already.</p>
          </ConfirmStep>
        )}
        {rotated && (
          <div class="ok" role="status">
            <p>Your new signing secret, shown only now:</p>
            <CopyField label="New signing secret" value={rotated.secret} />
            <p>
              {rotated.method === 'STANDARD_WEBHOOKS'
                ? rotated.previous_secret_until
                  ? `Until ${withZone(rotated.previous_secret_until)} callbacks carry signatures with both the new and the previous secret; then only the new one.`
                  : 'Callbacks are signed with the new secret only.'
                : rotated.next_secret_from
                  ? `Your current secret keeps signing until ${withZone(rotated.next_secret_from)}; then the new one signs. Accept either until then.`
                  : 'Callbacks are signed with the new secret from now on.'}
            </p>
          </div>
        )}
      </Section>
    </>
  );
}
