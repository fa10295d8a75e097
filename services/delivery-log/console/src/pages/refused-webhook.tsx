/*
 * One refused webhook, opened: what it was answered, each field at fault with what is wrong with
 * it, and the request as it arrived: its headers (credentials shown as [redacted]: the ingress never
 * kept them) and its body pretty-printed with each field at fault marked.
 */
import { refusedWebhookCall, type RefusedWebhook } from '../api/refused-webhooks';
import type { Session } from '../api';
import { Facts, Failure, Section } from '../components/basics';
import { Code } from '../components/code';
import { MarkedJson, pathsOf } from '../components/json-marked';
import { Time } from '../components/time';
import { link } from '../router';
import { useApi } from '../use-api';

export function RefusedWebhookPage({ session, rejectionId }: { session: Session; rejectionId: string }) {
  const { data, error } = useApi(refusedWebhookCall(session, rejectionId), [session.kind, rejectionId]);
  if (error) return <Failure error={error} />;
  if (!data) return <p aria-busy="true">Loading the refused webhook…</p>;
  const r = data.data;
  const parsed = parsedBody(r);
  const inBody = new Set(parsed.ok ? pathsOf(parsed.value) : []);
  const marks = new Map(r.problems.filter((p) => inBody.has(p.field)).map((p) => [p.field, p.message]));
  return (
    <>
      <p>
        <a href={`${link('webhooks')}?view=refused`}>← Refused webhooks</a>
      </p>
      <h1>Refused webhook</h1>
      <Section title="Answer">
        <Facts
          rows={[
            ...(session.kind === 'operator' ? ([['Partner', r.partner_id]] as Array<[string, string]>) : []),
            ['Received', <Time at={r.received_at} />],
            [
              'Answered',
              <>
                <span class="badge badge-bad">{r.http_status}</span> <Code kind="error-code" code={r.error_code} />
              </>,
            ],
            ['Message', r.message],
            ['Request id', <code>{r.request_id ?? '–'}</code>],
            ['Transaction number', <code>{r.transaction_number ?? '–'}</code>],
          ]}
        />
      </Section>
      <Section title="Fields at fault">
        {r.problems.length === 0 ? (
          <p class="empty">The answer named no field: the body as a whole was refused.</p>
        ) : (
          <ul class="field-problems-list">
            {r.problems.map((p, i) => (
              <li key={i} data-field={p.field}>
                <code class="field">{p.field}</code> {p.message}
                {marks.has(p.field) ? (
                  <span class="muted"> (marked in the body below)</span>
                ) : (
                  <span class="muted"> (not in the body as sent)</span>
                )}
              </li>
            ))}
          </ul>
        )}
      </Section>
      <Section title="Body as it arrived">
        {r.body === null ? (
          <p class="empty">No body was kept for this refusal (none was read, or it was refused before bodies were kept).</p>
        ) : (
          <>
            {r.body_truncated && (
              <p class="note">
                Only the first 16 KiB of its {r.body_size} bytes are kept{parsed.ok ? '' : ', so it is shown as text'}.
              </p>
            )}
            {parsed.ok ? <MarkedJson value={parsed.value} marks={marks} /> : <pre class="body">{r.body}</pre>}
          </>
        )}
      </Section>
      <Section title="Headers as they arrived">
        <p class="muted">
          {/* @hookstream/contract's CREDENTIAL_HEADER_PARTS, the rule the ingress applies (the browser test holds the two together). */}A
          header whose name contains auth, key, secret, token, sig, pass, cookie, session, credential, jwt or bearer (in any case) shows as
          [redacted]: its value was never kept. Every other header shows as it arrived.
        </p>
        {r.request_headers.length === 0 ? (
          <p class="empty">No headers were kept for this refusal (it was refused before requests were kept).</p>
        ) : (
          <div class="table-wrap">
            <table class="request-headers">
              <tbody>
                {r.request_headers.map((h, i) => (
                  <tr key={i}>
                    <th scope="row">
                      <code>{h.name}</code>
                    </th>
                    <td>
                      <code>{h.value}</code>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        {r.headers_truncated && <p class="note">Some headers were left out or cut (at most 100 are kept, 1,024 characters each).</p>}
      </Section>
    </>
  );
}

/** The body as JSON when it is whole JSON; a cut or broken one is shown as its text. */
function parsedBody(r: RefusedWebhook): { ok: true; value: unknown } | { ok: false } {
  if (r.body === null || r.body_truncated) return { ok: false };
  try {
    return { ok: true, value: JSON.parse(r.body) as unknown };
  } catch {
    return { ok: false };
  }
}
