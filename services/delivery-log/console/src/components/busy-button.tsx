/*
 * A write's button: disabled while its request runs and saying so ("Resending…"), so it cannot be
 * sent twice; the page then shows the new state from the answer (or the refusal). `useAction` keeps
 * the request's state: a second run while one is in flight is ignored, whatever asked for it.
 *
 *   const action = useAction();
 *   <form onSubmit={action.submit(async (form) => { await write(…); onDone(); })}>
 *     <BusyButton busy={action.busy} busyLabel="Disabling…">Disable partner</BusyButton>
 *   </form>
 *   <Failure error={action.error} />
 */
import type { ComponentChildren } from 'preact';
import { useRef, useState } from 'preact/hooks';

export function BusyButton(props: {
  busy: boolean;
  busyLabel: string;
  children: ComponentChildren;
  type?: 'submit' | 'button';
  class?: string;
  disabled?: boolean;
  onClick?: () => void;
}) {
  return (
    <button
      type={props.type ?? 'submit'}
      class={props.class}
      disabled={props.busy || props.disabled}
      aria-busy={props.busy}
      onClick={props.onClick}
    >
      {props.busy ? (
        <>
          <span class="spinner" aria-hidden="true" />
          {props.busyLabel}
        </>
      ) : (
        props.children
      )}
    </button>
  );
}

export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<Error | undefined>(undefined);
  const running = useRef(false);
  /** Runs `work` unless a run is in flight; its failure is kept in `error`. Resolves true when it succeeded. */
  const run = async (work: () => Promise<void>): Promise<boolean> => {
    if (running.current) return false;
    running.current = true;
    setBusy(true);
    setError(undefined);
    try {
      await work();
      return true;
    } catch (failure) {
      setError(failure as Error);
      return false;
    } finally {
      running.current = false;
      setBusy(false);
    }
  };
  /**
   * A form's submit handler running `work` with the form; `ask` (a confirmation) is answered first,
   * before the button shows a request in flight, and a no sends nothing.
   */
  const submit = (work: (form: HTMLFormElement) => Promise<void>, ask?: (form: HTMLFormElement) => Promise<boolean>) => (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    if (running.current) return;
    void (async () => {
      if (ask && !(await ask(form))) return;
      await run(() => work(form));
    })();
  };
  return { busy, error, run, submit, clearError: () => setError(undefined) };
}
