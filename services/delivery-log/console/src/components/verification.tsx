/*
 * How the partner verifies this delivery's signature: the method's steps and the exact string that
 * was signed (secret parts as «secret»), beside the request headers as sent (secret values
 * redacted). Shown when the API gives them.
 */
import { Section } from './basics';

interface VerificationView {
  method: string;
  steps: string[];
  signed_string: string | null;
  signature_header: string | null;
}

interface WithVerification {
  verification?: VerificationView | null;
  attempts: Array<object>;
}

export function Verification({ delivery }: { delivery: WithVerification }) {
  const v = delivery.verification;
  const headers = [...(delivery.attempts as Array<{ request_headers?: Record<string, string> | null }>)]
    .reverse()
    .find((a) => a.request_headers)?.request_headers;
  if (!v && !headers) return null;
  return (
    <Section title="Verifying it">
      {v && (
        <>
          <p>
            Signed with <strong>{v.method}</strong>
            {v.signature_header ? (
              <>
                {' '}
                in the <code>{v.signature_header}</code> header
              </>
            ) : null}
            .
          </p>
          <ol>
            {v.steps.map((step, i) => (
              <li key={i}>{step}</li>
            ))}
          </ol>
          {v.signed_string !== null && (
            <>
              <h3>The exact string signed (last attempt)</h3>
              <pre class="signed">{v.signed_string}</pre>
            </>
          )}
        </>
      )}
      {headers && (
        <>
          <h3>Headers sent (last attempt; secret values redacted)</h3>
          <table>
            <tbody>
              {Object.entries(headers).map(([name, value]) => (
                <tr key={name}>
                  <th scope="row">
                    <code>{name}</code>
                  </th>
                  <td>
                    <code>{value}</code>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </Section>
  );
}
