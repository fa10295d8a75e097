/*
 * How the partner verifies this delivery: its method's steps and the exact string the latest send
 * was signed over (secret parts as «secret» or «api_key»), the signature each send carried, code
 * that verifies it, and the request headers as sent (credentials redacted by the sender before
 * they were ever recorded; signatures kept).
 */
import type { Schema } from '../api';
import { AttemptSignatures } from './attempt-signatures';
import { Section } from './basics';
import { VerifySnippets } from './verify-snippets';

type Delivery = Schema<'DeliveryDetail'>;

export function Verification({ delivery }: { delivery: Delivery }) {
  const v = delivery.verification;
  const headers = [...delivery.attempts].reverse().find((a) => a.request_headers)?.request_headers;
  if (!v && !headers) return null;
  return (
    <Section title="Verifying it">
      {v && (
        <>
          <p>
            Authenticated with <strong>{v.method}</strong>
            {v.signature_header && (
              <>
                ; signature in the <code>{v.signature_header}</code> header
              </>
            )}
            {v.signature_field && (
              <>
                ; signature in the body field <code>{v.signature_field}</code>
              </>
            )}
            {v.credential_header && (
              <>
                ; credential in the <code>{v.credential_header}</code> header
              </>
            )}
            .
          </p>
          <ol>
            {v.steps.map((step, i) => (
              <li key={i}>{step}</li>
            ))}
          </ol>
          {v.signed_string !== null && (
            <>
              <h3>The exact string the latest send was signed over</h3>
              <pre class="signed">{v.signed_string}</pre>
            </>
          )}
          {v.signature_header && <AttemptSignatures attempts={delivery.attempts} header={v.signature_header} />}
          <VerifySnippets method={v.method} />
        </>
      )}
      {headers && (
        <>
          <h3>Headers of the latest send (credentials redacted)</h3>
          <div class="table-wrap">
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
          </div>
        </>
      )}
    </Section>
  );
}
