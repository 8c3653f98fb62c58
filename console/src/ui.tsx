/** Small pieces every page uses: an error in words, loading text, badges, times, a filter's choice, a list's pager and a confirmation. */
import { useEffect, useRef, useState } from 'react';
import { ago, exactTime, thousands } from './format.ts';

/** An API failure shown in words (`role="alert"` so a screen reader announces it). */
export function ErrorNote({ error }: { error: Error | null }) {
  if (!error) return null;
  return (
    <p className="error" role="alert">
      {error.message}
    </p>
  );
}

export function Loading({ what }: { what: string }) {
  return <p className="muted" aria-live="polite">{`Loading ${what}…`}</p>;
}

/** A severity or status as a coloured label; the text carries the meaning, the colour only repeats it. */
export function Badge({ kind, value }: { kind: 'severity' | 'status'; value: string }) {
  return <span className={`badge ${kind}-${value.replace(/[^a-z_]/gi, '')}`}>{value.replace(/_/g, ' ')}</span>;
}

/** The current time, ticking every `everyMs`, for clocks and "ago" texts. */
export function useNow(everyMs = 1000): Date {
  const [now, setNow] = useState(() => new Date());
  useEffect(() => {
    const id = setInterval(() => setNow(new Date()), everyMs);
    return () => clearInterval(id);
  }, [everyMs]);
  return now;
}

/** `at` as "5 min ago", with the exact time as a tooltip and a machine-readable datetime. */
export function Ago({ at }: { at: string }) {
  const now = useNow(30_000);
  return (
    <time dateTime={at} title={exactTime(at)}>
      {ago(at, now)}
    </time>
  );
}

/** `options` with `value` after them when it is none of them (a value from the URL or the server), so a select can still show it; `''` is no value. */
export const withCurrent = (options: readonly string[], value: string): readonly string[] =>
  value === '' || options.includes(value) ? options : [...options, value];

/** A filter's choice of values, plus "any" (the empty value), each shown with spaces for underscores; `name` names the select in a form. */
export function FilterChoice({
  label,
  name,
  value,
  options,
  onChange,
}: {
  label: string;
  name?: string;
  value: string;
  options: readonly string[];
  onChange: (value: string) => void;
}) {
  return (
    <label>
      {label}
      <select name={name} value={value} onChange={(event) => onChange(event.target.value)}>
        <option value="">Any</option>
        {withCurrent(options, value).map((choice) => (
          <option key={choice} value={choice}>
            {choice.replace(/_/g, ' ')}
          </option>
        ))}
      </select>
    </label>
  );
}

/** What a pager reads of a list answer (`GET /alerts`, `GET /runs`): the page's size, whether another follows, and the total when counted. */
type PagedAnswer = { items: unknown[]; has_more: boolean; total?: number; total_relation?: 'eq' | 'gte' };

/**
 * Previous and next page of a list of `noun` (plural, such as `Alerts`), `pageSize` at a
 * time, and which rows this page shows of how many.
 */
export function ListPager({
  noun,
  offset,
  pageSize,
  page,
  onPage,
}: {
  noun: string;
  offset: number;
  pageSize: number;
  page: PagedAnswer;
  onPage: (offset: number) => void;
}) {
  const count = page.items.length;
  const of = page.total === undefined ? '' : ` of ${thousands(page.total)}${page.total_relation === 'gte' ? ' or more' : ''}`;
  return (
    <nav className="row pager" aria-label={`${noun} pages`}>
      <button type="button" disabled={offset === 0} onClick={() => onPage(Math.max(0, offset - pageSize))}>
        Previous page
      </button>
      <span data-testid="list-range">{count === 0 ? `No ${noun.toLowerCase()} on this page` : `${noun} ${offset + 1}–${offset + count}${of}`}</span>
      <button type="button" disabled={!page.has_more} onClick={() => onPage(offset + pageSize)}>
        Next page
      </button>
    </nav>
  );
}

/** A question asked before a change that cannot be taken back: `yes` does it (a danger button), "Keep it" does not. */
export function Confirm({ question, yes, busy, onYes, onNo }: { question: string; yes: string; busy: boolean; onYes: () => void; onNo: () => void }) {
  return (
    <fieldset className="confirm">
      <legend>{question}</legend>
      <button type="button" className="danger" disabled={busy} onClick={onYes}>
        {yes}
      </button>
      <button type="button" disabled={busy} onClick={onNo}>
        Keep it
      </button>
    </fieldset>
  );
}

/** A checkbox with a label a screen reader reads and the eye does not need; `mixed` for a partial selection. */
export function Checkbox({ label, checked, mixed = false, onChange }: { label: string; checked: boolean; mixed?: boolean; onChange: (on: boolean) => void }) {
  const box = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (box.current) box.current.indeterminate = mixed;
  }, [mixed]);
  return (
    <label>
      <input ref={box} type="checkbox" checked={checked} onChange={(event) => onChange(event.target.checked)} />
      <span className="visually-hidden">{label}</span>
    </label>
  );
}
