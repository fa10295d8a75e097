/*
 * A partner rotates the secret its callbacks are signed with. The confirmation says how the overlap
 * works for its method (Standard Webhooks: both signatures for a while; HMAC_SHA256: the old secret
 * until the switch, which it may bring forward); the new secret is shown once, with a copy button.
 */
import { useState } from 'preact/hooks';
import type { Session } from '../api';
import { activateSigningSecret, rotateSigningSecret, signingSecretCall, type RotatedSecret } from '../api/self-service';
import { Facts, Failure, Section } from '../components/basics';
import { BusyButton, useAction } from '../components/busy-button';
import { useConfirm } from '../components/confirm';
import { CopyField } from '../components/copy-field';
import { SelectField } from '../components/select-field';
import { VerifySnippets } from '../components/verify-snippets';
import { when } from '../format';
import { useApi } from '../use-api';

/** The overlaps offered ([hours, label]); the API takes any from 1 hour to 7 days. 24 hours is preselected. */
const OVERLAPS: Array<[string, string]> = [
  ['1', '1 hour'],
  ['6', '6 hours'],
  ['24', '24 hours'],
  ['72', '3 days'],
  ['168', '7 days'],
];
const overlapLabel = (hours: string) => OVERLAPS.find(([value]) => value === hours)?.[1] ?? `${hours} hours`;

const OVERLAP: Record<string, (overlap: string) => string> = {
  STANDARD_WEBHOOKS: (overlap) =>
    `The new secret signs at once. For ${overlap}, every callback also carries a signature made ` +
    'with your current secret (webhook-signature lists both), so your verifier accepts callbacks whichever secret it holds. Install the new ' +
    'secret before the overlap ends. Rotating again during an overlap replaces the secret it brought; the oldest keeps signing until the overlap ends.',
  HMAC_SHA256: (overlap) =>
    `X-Signature carries one signature, so the secrets cannot sign together. Your current secret keeps signing for ${overlap} ` +
    '(the switch time), then the new one signs. Meanwhile make your verifier accept either secret; ' +
    'once it does, you may switch at once with “Sign with the new secret now”.',
};

type SecretState = { method?: string | null; previous_secret_until?: string | null; next_secret_from?: string | null };

/**
 * What rotating again during an overlap does to the secret the last rotation showed, said before it
 * happens (@hookstream/partners signing-secret.ts): Standard Webhooks keeps the oldest secret and
 * drops the newer one at once; HMAC_SHA256 replaces the staged secret, which then never signs.
 */
function duringOverlap(s: SecretState): string | undefined {
  if (s.method === 'STANDARD_WEBHOOKS' && s.previous_secret_until && Date.parse(s.previous_secret_until) > Date.now())
    return (
      `An overlap runs until ${when(s.previous_secret_until)}. Rotating again, the secret your last rotation showed stops signing at once: ` +
      `a verifier that holds only that secret refuses every callback from now on. The secret from before it keeps signing beside the new one ` +
      `until ${when(s.previous_secret_until)} (the overlap is not extended); then only the new one signs.`
    );
  if (s.method === 'HMAC_SHA256' && s.next_secret_from)
    return (
      `The secret your last rotation showed waits to sign from ${when(s.next_secret_from)}. Rotating again replaces it: that secret will ` +
      `never sign. Your current secret keeps signing until the new switch time, then the new one signs.`
    );
  return undefined;
}

export function SigningSecretPage({ session }: { session: Session }) {
  const { data, error, reload } = useApi(signingSecretCall, []);
  const [rotated, setRotated] = useState<RotatedSecret | undefined>(undefined);
  const [done, setDone] = useState<string | undefined>(undefined);
  const [acting, setActing] = useState<'rotate' | 'activate' | undefined>(undefined);
  const [overlap, setOverlap] = useState('24');
  const action = useAction();
  const confirm = useConfirm();

  if (error && !data) return <Failure error={error} />;
  if (!data)
    return (
      <p class="loading" role="status">
        <span class="spinner" aria-hidden="true" />
        Loading…
      </p>
    );
  const s = data.data;
  const byLink = session.holds === 'portal_link';
  const rotate = async () => {
    const overlapping = duringOverlap(s);
    const yes = await confirm.ask({
      title: overlapping ? 'Rotate again during the overlap?' : 'Rotate your signing secret?',
      body: (
        <>
          {overlapping && (
            <p class="warning" role="alert">
              {overlapping}
            </p>
          )}
          <p>{OVERLAP[s.method ?? '']?.(overlapLabel(overlap)) ?? ''}</p>
          <p>The new secret is shown once, right after; keep it somewhere safe.</p>
        </>
      ),
      action: 'Rotate now',
    });
    if (!yes) return;
    setActing('rotate');
    await action.run(async () => {
      setRotated((await rotateSigningSecret(Number(overlap))).data);
      setDone(undefined);
      void reload();
    });
  };
  const activate = async () => {
    const yes = await confirm.ask({
      title: 'Sign with the new secret now?',
      body: <p>Callbacks from now on are signed only with the new secret: your verifier must accept it already.</p>,
      action: 'Switch now',
    });
    if (!yes) return;
    setActing('activate');
    await action.run(async () => {
      await activateSigningSecret();
      setRotated(undefined);
      setDone('Callbacks are signed with the new secret from now on.');
      void reload();
    });
  };

  return (
    <>
      {confirm.dialog}
      <h1>Signing secret</h1>
      <Section title="How your callbacks are signed">
        <Facts
          rows={[
            ['Method', s.method ?? 'none'],
            ...(s.previous_secret_until
              ? ([['Previous secret also signs until', when(s.previous_secret_until)]] as Array<[string, string]>)
              : []),
            ...(s.next_secret_from ? ([['New secret signs from', when(s.next_secret_from)]] as Array<[string, string]>) : []),
          ]}
        />
        {!s.rotatable && <p>Your callbacks are not signed with a secret you rotate here: ask your contact at the insurer.</p>}
        {s.rotatable && !s.self_service && (
          <p class="warning">
            The insurer turned self-service off for you: you cannot rotate your secret here. Ask your contact at the insurer to rotate it.
          </p>
        )}
        {s.rotatable && s.self_service && byLink && (
          <p class="note">Opened with a portal link, the console cannot rotate your secret: sign in with your API key.</p>
        )}
        {done && (
          <p class="ok" role="status">
            {done}
          </p>
        )}
        <Failure error={action.error} />
        {s.rotatable && s.self_service && !byLink && (
          <p>
            <label>
              Overlap{' '}
              <SelectField
                name="overlap_hours"
                initial={overlap}
                options={OVERLAPS}
                attributes={{ 'aria-describedby': 'overlap-hint' }}
                onChange={setOverlap}
              />
            </label>{' '}
            <span id="overlap-hint" class="muted">
              {s.method === 'HMAC_SHA256'
                ? 'how long your current secret keeps signing before the new one does'
                : 'how long your current secret keeps signing beside the new one'}
            </span>
          </p>
        )}
        {s.rotatable && s.self_service && !byLink && (
          <p>
            <BusyButton
              type="button"
              busy={action.busy && acting === 'rotate'}
              disabled={action.busy}
              busyLabel="Rotating…"
              onClick={() => void rotate()}
            >
              Rotate signing secret
            </BusyButton>{' '}
            {s.next_secret_from && (
              <BusyButton
                type="button"
                class="secondary"
                busy={action.busy && acting === 'activate'}
                disabled={action.busy}
                busyLabel="Switching…"
                onClick={() => void activate()}
              >
                Sign with the new secret now
              </BusyButton>
            )}
          </p>
        )}
        {rotated && (
          <div class="ok" role="status">
            <p>Your new signing secret, shown only now:</p>
            <CopyField label="New signing secret" value={rotated.secret} />
            <p>
              {rotated.method === 'STANDARD_WEBHOOKS'
                ? rotated.previous_secret_until
                  ? `Until ${when(rotated.previous_secret_until)} callbacks carry signatures with both the new and the previous secret; then only the new one.`
                  : 'Callbacks are signed with the new secret only.'
                : rotated.next_secret_from
                  ? `Your current secret keeps signing until ${when(rotated.next_secret_from)}; then the new one signs. Accept either until then.`
                  : 'Callbacks are signed with the new secret from now on.'}
            </p>
          </div>
        )}
      </Section>
      {s.rotatable && s.method && (
        <Section title="Verifying your callbacks">
          <p>
            Whichever secret signs, this code checks a callback. A delivery’s page (Deliveries, then the delivery) shows the same code
            beside the signature each send carried and the exact string it was signed over.
          </p>
          <VerifySnippets method={s.method} />
        </Section>
      )}
    </>
  );
}
