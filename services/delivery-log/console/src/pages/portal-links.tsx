/*
 * A partner's portal links, for operators: who issued each and until when, whether it was revoked
 * (by whom, why), and for a writer a revocation of each live one with its reason (audited). The
 * link itself is never shown again: a link is named by the start of its id.
 */
import { client, write, type Schema } from '../api';
import { Failure, Section } from '../components/basics';
import { BusyButton, useAction } from '../components/busy-button';
import { useConfirm } from '../components/confirm';
import { formText } from '../form-text';
import { when } from '../format';

export type PortalLinkView = Schema<'PortalLink'>;

const nameOf = (link: PortalLinkView) => link.token_id.slice(0, 8);

function stateOf(link: PortalLinkView): string {
  if (link.revoked_at) return `revoked ${when(link.revoked_at)} by ${link.revoked_by ?? '–'}: ${link.revoke_reason ?? ''}`;
  return Date.parse(link.expires_at) > Date.now() ? `live until ${when(link.expires_at)}` : `expired ${when(link.expires_at)}`;
}

export function PortalLinks(props: { partnerId: string; links: PortalLinkView[]; writer: boolean; onDone: () => void }) {
  const action = useAction();
  const confirm = useConfirm();
  const revoke = (link: PortalLinkView) =>
    action.submit(
      async (form) => {
        await write(
          client.POST('/api/admin/v1/partners/{partnerId}/portal-tokens/{tokenId}/revoke', {
            params: { path: { partnerId: props.partnerId, tokenId: link.token_id } },
            body: { reason: formText(form, 'reason') },
          }),
        );
        props.onDone();
      },
      () =>
        confirm.ask({
          title: `Revoke portal link ${nameOf(link)}?`,
          body: <p>It stops opening the console at once, and the sessions opened with it end. A new link can be issued.</p>,
          action: 'Revoke link',
        }),
    );
  return (
    <Section title="Portal links">
      {confirm.dialog}
      <Failure error={action.error} />
      {props.links.length === 0 && <p class="muted">None issued.</p>}
      <ul>
        {props.links.map((link) => (
          <li key={link.token_id}>
            <code>{nameOf(link)}</code> issued {when(link.issued_at)} by {link.issued_by ?? '–'}, {stateOf(link)}
            {props.writer && !link.revoked_at && Date.parse(link.expires_at) > Date.now() && (
              <form class="inline-form" onSubmit={revoke(link)}>
                <label>
                  <span>Why portal link {nameOf(link)} is revoked (audited)</span>
                  <input name="reason" required placeholder="link shared by mistake" />
                </label>
                <BusyButton busy={action.busy} busyLabel="Revoking…" class="danger">
                  Revoke
                </BusyButton>
              </form>
            )}
          </li>
        ))}
      </ul>
    </Section>
  );
}
