/*
 * Code that verifies the partner's callbacks by its method, in Node, Python or Java (standard
 * library only), with a copy button. The code is the repository's examples/verify, built in at
 * build time: the same files a test runs against real deliveries.
 */
import { useState } from 'preact/hooks';
import { snippets } from 'virtual:verify-snippets';

const LANGUAGES = [
  ['node', 'Node.js'],
  ['python', 'Python'],
  ['java', 'Java'],
] as const;

type Language = (typeof LANGUAGES)[number][0];

export function VerifySnippets({ method }: { method: string }) {
  const [language, setLanguage] = useState<Language>('node');
  const [copied, setCopied] = useState(false);
  const forMethod = snippets[method];
  const code = forMethod?.[language];
  if (!forMethod || !code) return null;
  const whole = `${snippets['COMMON']?.[language] ?? ''}\n\n${code}`.trim();
  const copy = async () => {
    await navigator.clipboard?.writeText(whole).catch(() => undefined);
    setCopied(true);
  };
  return (
    <div class="verify-snippets">
      <h3>Code that verifies it</h3>
      <div class="snippet-tabs" role="group" aria-label="Language">
        {LANGUAGES.map(([id, label]) => (
          <button
            key={id}
            type="button"
            class={id === language ? '' : 'secondary'}
            aria-pressed={id === language}
            onClick={() => {
              setLanguage(id);
              setCopied(false);
            }}
          >
            {label}
          </button>
        ))}
        <button type="button" class="secondary" onClick={() => void copy()}>
          {copied ? 'Copied' : 'Copy code'}
        </button>
      </div>
      <pre class="snippet" data-language={language}>
        {whole}
      </pre>
      <p class="muted">
        Standard library only. Pass the headers with lower-case names and the body's exact bytes, read before any JSON parsing.
      </p>
    </div>
  );
}
