/** A form field's text, trimmed ('' when absent or a file). */
export function formText(form: EventTarget | null, name: string): string {
  const value = new FormData(form as HTMLFormElement).get(name);
  return typeof value === 'string' ? value.trim() : '';
}
