/*
 * Asking before a destructive action: a modal dialog (the native <dialog>, shown with showModal(),
 * so the rest of the page is inert and focus stays in it) that says what will happen, with Cancel
 * focused first; Escape cancels, and focus returns to what had it (the button that asked).
 *
 *   const confirm = useConfirm();
 *   const submit = async () => { if (!(await confirm.ask({ title, body, action: 'Disable' }))) return; … };
 *   return <>{confirm.dialog}<form onSubmit={submit}>…</form></>;
 *
 * or, for a button alone (no form), ConfirmButton: asks, then runs the request with the button busy.
 *
 *   <ConfirmButton question={{ title, body, action: 'Revoke' }} busyLabel="Revoking…" onConfirm={() => write(…)}>Revoke</ConfirmButton>
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { Failure } from './basics';
import { BusyButton, useAction } from './busy-button';

export interface Question {
  title: string;
  body: ComponentChildren;
  /** The confirming button's label: the action itself ("Disable partner"), never "OK". */
  action: string;
  /** A danger-coloured confirming button (the default). */
  danger?: boolean;
}

interface Asked extends Question {
  answer: (yes: boolean) => void;
  returnTo: Element | null;
}

export function useConfirm() {
  const [asked, setAsked] = useState<Asked | undefined>(undefined);
  const ask = (question: Question) =>
    new Promise<boolean>((resolve) => setAsked({ ...question, answer: resolve, returnTo: document.activeElement }));
  const close = (yes: boolean) => {
    if (!asked) return;
    asked.answer(yes);
    setAsked(undefined);
    // Back to where the person was: the button that asked (still there, disabled while its request runs).
    if (asked.returnTo instanceof HTMLElement) asked.returnTo.focus();
  };
  return { ask, dialog: asked ? <ConfirmDialog question={asked} onAnswer={close} /> : null, open: asked !== undefined };
}

function ConfirmDialog({ question, onAnswer }: { question: Question; onAnswer: (yes: boolean) => void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const cancel = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    const element = dialog.current;
    if (!element) return;
    if (!element.open) element.showModal();
    cancel.current?.focus();
    // Escape: the dialog's own cancel event, answered as Cancel.
    const escaped = (event: Event) => {
      event.preventDefault();
      answer(false);
    };
    element.addEventListener('cancel', escaped);
    return () => {
      element.removeEventListener('cancel', escaped);
      if (element.open) element.close();
    };
  }, []);
  // Closed before the answer is heard: while it is open the rest of the page is inert, and the button that asked could not take the focus back.
  const answer = (yes: boolean) => {
    if (dialog.current?.open) dialog.current.close();
    onAnswer(yes);
  };
  return (
    <dialog ref={dialog} class="confirm" aria-labelledby="confirm-title" aria-describedby="confirm-body">
      <h2 id="confirm-title">{question.title}</h2>
      <div id="confirm-body">{question.body}</div>
      <p class="confirm-actions">
        <button ref={cancel} type="button" class="secondary" onClick={() => answer(false)}>
          Cancel
        </button>
        <button type="button" class={question.danger === false ? '' : 'danger'} onClick={() => answer(true)}>
          {question.action}
        </button>
      </p>
    </dialog>
  );
}

/** A button that asks `question` first, then runs `onConfirm` with itself busy; its refusal is shown beside it. */
export function ConfirmButton(props: {
  question: Question;
  busyLabel: string;
  onConfirm: () => Promise<unknown>;
  children: ComponentChildren;
  class?: string;
}) {
  const confirm = useConfirm();
  const action = useAction();
  const click = async () => {
    if (action.busy || !(await confirm.ask(props.question))) return;
    await action.run(async () => {
      await props.onConfirm();
    });
  };
  return (
    <>
      {confirm.dialog}
      <BusyButton type="button" busy={action.busy} busyLabel={props.busyLabel} class={props.class ?? 'danger'} onClick={() => void click()}>
        {props.children}
      </BusyButton>
      <Failure error={action.error} />
    </>
  );
}
