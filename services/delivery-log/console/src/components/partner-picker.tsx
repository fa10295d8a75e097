/*
 * Choosing a partner: a combobox. Typing part of a partner's id or name (any case) lists the
 * partners that match, from the operator API; picking one (click, or arrows and Enter) puts its id
 * in the field. An id typed in full and not picked is kept as it is.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { searchPartners, type PartnerMatch } from '../api/operator-views';

/** Matches listed at most: the rest are found by typing more. */
const SHOWN = 8;
/** Typing pauses this long before the partners are asked. */
const DEBOUNCE_MS = 150;

let pickers = 0;

export function PartnerPicker({
  name,
  value,
  onChange,
  label = 'Partner',
}: {
  name: string;
  value: string;
  onChange: (partnerId: string) => void;
  label?: string;
}) {
  const [id] = useState(() => `partner-picker-${++pickers}`);
  const [matches, setMatches] = useState<PartnerMatch[]>([]);
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(-1);
  const [failed, setFailed] = useState(false);
  const asked = useRef(0);

  useEffect(() => {
    if (!open) return;
    const text = value.trim();
    const ask = ++asked.current;
    const timer = setTimeout(() => {
      searchPartners(text).then(
        (found) => {
          if (ask !== asked.current) return;
          setFailed(false);
          setMatches(found.slice(0, SHOWN));
          setActive(-1);
        },
        () => ask === asked.current && setFailed(true),
      );
    }, DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [value, open]);

  const pick = (partner: PartnerMatch) => {
    onChange(partner.partner_id);
    setOpen(false);
  };
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key === 'ArrowDown') {
      event.preventDefault();
      setOpen(true);
      setActive((i) => Math.min(matches.length - 1, i + 1));
    } else if (event.key === 'ArrowUp') {
      event.preventDefault();
      setActive((i) => Math.max(0, i - 1));
    } else if (event.key === 'Enter' && open && active >= 0 && matches[active]) {
      event.preventDefault();
      pick(matches[active]);
    } else if (event.key === 'Escape') {
      setOpen(false);
    }
  };
  const listId = `${id}-list`;
  const shown = open && (matches.length > 0 || failed);
  return (
    <span class="picker">
      <input
        type="text"
        name={name}
        role="combobox"
        aria-label={label}
        aria-autocomplete="list"
        aria-expanded={shown}
        aria-controls={listId}
        aria-activedescendant={shown && active >= 0 ? `${id}-${active}` : undefined}
        autocomplete="off"
        placeholder="part of an id or name"
        value={value}
        onInput={(event) => {
          onChange(event.currentTarget.value);
          setOpen(true);
        }}
        onFocus={() => setOpen(true)}
        // Later than a click on an option, which picks first.
        onBlur={() => setTimeout(() => setOpen(false), 150)}
        onKeyDown={onKeyDown}
      />
      <ul id={listId} role="listbox" aria-label={`${label}: matches`} class="picker-list" hidden={!shown}>
        {failed && <li class="muted">The partners could not be read; type the id.</li>}
        {matches.map((p, i) => (
          <li
            key={p.partner_id}
            id={`${id}-${i}`}
            role="option"
            aria-selected={i === active}
            onMouseDown={(event) => {
              event.preventDefault();
              pick(p);
            }}
          >
            {p.name} <span class="muted">{p.partner_id}</span>
            {p.status !== 'ACTIVE' && <span class="muted"> (disabled)</span>}
          </li>
        ))}
      </ul>
    </span>
  );
}
