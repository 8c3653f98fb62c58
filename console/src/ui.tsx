/** Small pieces every page uses: an error in words, loading text, badges and times. */
import { useEffect, useState } from 'react';
import { ago } from './format.ts';

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
    <time dateTime={at} title={new Date(at).toLocaleString()}>
      {ago(at, now)}
    </time>
  );
}
