/*
 * The glossary (#/glossary): every code and state the console shows, in plain words, by kind.
 * A code's link elsewhere (components/code.tsx) opens it at its entry (?entry=kind-CODE), which is
 * scrolled to and marked.
 */
import { useEffect } from 'preact/hooks';
import { GLOSSARY, KIND_TITLES, entryId, type Kind, type Term } from '../glossary';
import type { Route } from '../router';

export function GlossaryPage({ route }: { route: Route }) {
  const asked = route.params.get('entry');
  useEffect(() => {
    if (!asked) return;
    const entry = document.getElementById(asked);
    entry?.scrollIntoView({ block: 'center' });
    entry?.focus();
  }, [asked]);
  return (
    <>
      <h1>Glossary</h1>
      <p class="lead">What the codes and states in this console mean, and what to do about them.</p>
      {(Object.keys(KIND_TITLES) as Kind[]).map((kind) => (
        <section key={kind} class="panel glossary" aria-labelledby={`kind-${kind}`}>
          <h2 id={`kind-${kind}`}>{KIND_TITLES[kind]}</h2>
          <dl>
            {Object.entries(GLOSSARY[kind] as Record<string, Term>).map(([code, term]) => {
              const id = entryId(kind, code);
              return (
                <div key={code} id={id} tabIndex={-1} class={id === asked ? 'asked' : undefined}>
                  <dt>
                    <strong>{term.words}</strong>
                    {kind !== 'term' && (
                      <>
                        {' '}
                        <code>{code}</code>
                      </>
                    )}
                  </dt>
                  <dd>{term.meaning}</dd>
                </div>
              );
            })}
          </dl>
        </section>
      ))}
    </>
  );
}
