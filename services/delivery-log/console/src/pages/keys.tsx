/*
 * A partner rotates its own inbound API key: the new key is shown once, with until when the old
 * ones keep working.
 */
import { useState } from 'preact/hooks';
import { client, write, type Schema } from '../api';
import { Failure, Section } from '../components/basics';
import { BusyButton } from '../components/busy-button';
import { CopyField } from '../components/copy-field';
import { formText } from '../form-text';
import { when } from '../format';

export function KeysPage() {
  const [rotated, setRotated] = useState<Schema<'RotatedKey'> | undefined>(undefined);
  const [error, setError] = useState<Error | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const rotate = async (event: Event) => {
    event.preventDefault();
    if (busy) return;
    const reason = formText(event.currentTarget, 'reason');
    setBusy(true);
    try {
      setRotated((await write(client.POST('/api/portal/v1/api-keys/rotate', { body: reason ? { reason } : {} }))).data);
      setError(undefined);
    } catch (failure) {
      setError(failure as Error);
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <h1>API key</h1>
      <Section title="Rotate your inbound API key">
        <p>
          A new <code>x-api-key</code> is issued and shown once. Your current keys keep working for an overlap (the times are shown), so you
          can switch your webhooks without a gap.
        </p>
        <form class="inline-form" onSubmit={rotate}>
          <label>
            <span>Reason (for the audit trail)</span>
            <input name="reason" placeholder="yearly rotation" />
          </label>
          <BusyButton busy={busy} busyLabel="Rotating…">
            Rotate key
          </BusyButton>
        </form>
        <Failure error={error} />
        {rotated && (
          <div class="ok" role="status">
            <p>
              New key <code>{rotated.key_id}</code>, shown only now:
            </p>
            <CopyField label="New API key" value={rotated.api_key} />
            <ul>
              {rotated.retiring.map((k) => (
                <li key={k.key_id}>
                  <code>{k.key_id}</code> keeps working until {when(k.expires_at)}
                </li>
              ))}
            </ul>
          </div>
        )}
      </Section>
    </>
  );
}
