/*
 * A code in plain words: `HTTP_STATUS` reads "answered with an error status", linked to its entry
 * on the glossary page (#/glossary?entry=…) where its meaning is; the code itself stays beside it
 * (small), since that is what logs, bodies and support talk about. A code without an entry is shown
 * as it is.
 */
import { entryId, termOf, type Kind } from '../glossary';
import { link } from '../router';

export function glossaryHref(kind: Kind, code: string): string {
  return `${link('glossary')}?entry=${encodeURIComponent(entryId(kind, code))}`;
}

/** Plain words for `code` with a link to its glossary entry; `showCode` adds the code itself. */
export function Code({ kind, code, showCode = true }: { kind: Kind; code: string | null | undefined; showCode?: boolean }) {
  if (code === null || code === undefined || code === '') return <>–</>;
  const term = termOf(kind, code);
  if (!term) return <code>{code}</code>;
  return (
    <span class="code-term">
      <a href={glossaryHref(kind, code)} title={term.meaning}>
        {term.words}
      </a>
      {showCode && term.words.toLowerCase() !== code.toLowerCase().replace(/_/g, ' ') && (
        <>
          {' '}
          <code class="muted">{code}</code>
        </>
      )}
    </span>
  );
}
