/*
 * An operator turns a partner's self-service off (or on again): while off, the partner's own
 * changes of its endpoints and signing secret are refused (403). Confirmed, with a reason for the
 * audit trail; the page shows the partner as the change left it.
 */
import { setSelfService } from '../api/self-service';
import { Failure, Section } from '../components/basics';
import { BusyButton, useAction } from '../components/busy-button';
import { useConfirm } from '../components/confirm';
import { formText } from '../form-text';

export function SelfServiceSwitch({ partnerId, enabled, onDone }: { partnerId: string; enabled: boolean; onDone: () => void }) {
  const action = useAction();
  const confirm = useConfirm();
  const submit = action.submit(
    async (form) => {
      await setSelfService(partnerId, !enabled, formText(form, 'reason'));
      form.reset();
      onDone();
    },
    () =>
      confirm.ask({
        title: enabled ? 'Turn the partner’s self-service off?' : 'Turn the partner’s self-service on?',
        body: (
          <p>
            {enabled
              ? 'Its changes of its endpoints and signing secret through the partner API answer 403 until an operator turns it on again. Changes already made stay.'
              : 'It may change its endpoints and rotate its signing secret again.'}
          </p>
        ),
        action: enabled ? 'Turn off' : 'Turn on',
        danger: enabled,
      }),
  );
  return (
    <Section title="Self-service">
      {confirm.dialog}
      <p>
        {enabled
          ? 'The partner manages its own callback endpoints and rotates its own signing secret (signed in with its API key).'
          : 'Self-service is off: the partner’s own changes of its endpoints and signing secret are refused; it still sees them.'}
      </p>
      <Failure error={action.error} />
      <form class="inline-form" onSubmit={submit}>
        <label>
          <span>Reason (for the audit trail)</span>
          <input name="reason" required />
        </label>
        <BusyButton class={enabled ? 'danger' : ''} busy={action.busy} busyLabel="Saving…">
          {enabled ? 'Turn self-service off' : 'Turn self-service on'}
        </BusyButton>
      </form>
    </Section>
  );
}
