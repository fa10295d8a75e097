/*
 * An operator turns a partner's self-service off (or on again): while off, the partner's own
 * changes of its endpoints and signing secret are refused (403). Confirmed, with a reason for the
 * audit trail; the page shows the partner as the change left it.
 */
import { useState } from 'preact/hooks';
import { setSelfService } from '../api/self-service';
import { Failure, Section } from '../components/basics';
import { ConfirmStep } from '../components/confirm-step';

export function SelfServiceSwitch({ partnerId, enabled, onDone }: { partnerId: string; enabled: boolean; onDone: () => void }) {
  const [asking, setAsking] = useState(false);
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<Error | undefined>(undefined);
  const change = async () => {
    setBusy(true);
    try {
      await setSelfService(partnerId, !enabled, reason.trim());
      setFailure(undefined);
      setAsking(false);
      setReason('');
      onDone();
    } catch (error) {
      setFailure(error as Error);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Section title="Self-service">
      <p>
        {enabled
          ? 'The partner manages its own callback endpoints and rotates its own signing secret (signed in with its API key).'
          : 'Self-service is off: the partner’s own changes of its endpoints and signing secret are refused; it still sees them.'}
      </p>
      <Failure error={failure} />
      <form
        class="inline-form"
        onSubmit={(event) => {
          event.preventDefault();
          setAsking(true);
        }}
      >
        <label>
          <span>Reason (for the audit trail)</span>
          <input name="reason" required value={reason} onInput={(e) => setReason(e.currentTarget.value)} />
        </label>
        <button type="submit" class={enabled ? 'danger' : ''} disabled={busy || asking}>
          {enabled ? 'Turn self-service off' : 'Turn self-service on'}
        </button>
      </form>
      {asking && (
        <ConfirmStep
          title={enabled ? 'Turn the partner’s self-service off?' : 'Turn the partner’s self-service on?'}
          confirm={enabled ? 'Turn off' : 'Turn on'}
          busyLabel="Saving…"
          busy={busy}
          onCancel={() => setAsking(false)}
          onConfirm={() => void change()}
        >
          <p>
            {enabled
              ? 'Its changes through the partner API answer 403 until an operator turns it on again. Changes already made stay.'
              : 'It may change its endpoints and rotate its signing secret again.'}
          </p>
        </ConfirmStep>
      )}
    </Section>
  );
}
