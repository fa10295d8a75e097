/*
 * The signature each send carried, as the partner received it (the sender records it: it reveals
 * nothing of the secret), with a copy button: the partner compares it with the HMAC or digest its
 * own code computes over the signed string shown beside it, and so finds a wrong secret or a body
 * changed on the way.
 */
import type { Schema } from '../api';
import { attemptWords, when } from '../format';
import { CopyField } from './copy-field';

type Attempt = Schema<'DeliveryAttempt'>;

/** The value of `name` among an attempt's recorded headers, in any case. */
function headerOf(attempt: Attempt, name: string): string | undefined {
  const wanted = name.toLowerCase();
  return Object.entries(attempt.request_headers ?? {}).find(([key]) => key.toLowerCase() === wanted)?.[1];
}

export function AttemptSignatures({ attempts, header }: { attempts: Attempt[]; header: string }) {
  const signed = attempts.flatMap((a) => {
    const value = headerOf(a, header);
    return value === undefined ? [] : [{ attempt: a, value }];
  });
  if (signed.length === 0) return null;
  return (
    <>
      <h3>
        The signature each send carried (<code>{header}</code>)
      </h3>
      <p class="muted">
        As you received it. Compute yours over the signed string and compare: a difference means another secret, or a body changed on the
        way.
      </p>
      <ul class="signature-list">
        {signed.map(({ attempt, value }, i) => (
          <li key={i} data-attempt={attempt.attempt}>
            <CopyField label={`Attempt ${attempt.attempt} (${attemptWords(attempt)}), ${when(attempt.recorded_at)}`} value={value} />
          </li>
        ))}
      </ul>
    </>
  );
}
