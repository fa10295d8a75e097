/** A secret or link shown once: read-only, selectable, with a copy button. */
import { useState } from 'preact/hooks';

export function CopyField({ label, value }: { label: string; value: string }) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    await navigator.clipboard?.writeText(value).catch(() => undefined);
    setCopied(true);
  };
  return (
    <div class="copy-field">
      <label>
        <span>{label}</span>
        <input readOnly value={value} onFocus={(e) => e.currentTarget.select()} data-secret="shown-once" />
      </label>
      <button type="button" class="secondary" onClick={() => void copy()}>
        {copied ? 'Copied' : 'Copy'}
      </button>
    </div>
  );
}
