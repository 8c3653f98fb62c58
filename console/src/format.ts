/**
 * Text for times and durations as the console shows them. Pure: no DOM, tested in
 * tests/unit/console.
 */

/** `seconds` as `45s`, `12m 05s`, `3h 04m` or `2d 3h`; negative values count as 0. */
export function duration(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${String(s % 60).padStart(2, '0')}s`;
  const h = Math.floor(m / 60);
  if (h < 24) return `${h}h ${String(m % 60).padStart(2, '0')}m`;
  return `${Math.floor(h / 24)}d ${h % 24}h`;
}

/** How long ago `at` was at `now`, as `just now`, `5 min ago`, `3 h ago` or `2 d ago`. */
export function ago(at: string, now: Date): string {
  const seconds = (now.getTime() - new Date(at).getTime()) / 1000;
  if (seconds < 60) return 'just now';
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ago`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)} h ago`;
  return `${Math.floor(seconds / 86_400)} d ago`;
}

/** The word being typed at `caret` when it starts with `@` (for the mention picker), else null. */
export function mentionQueryAt(text: string, caret: number): string | null {
  const before = text.slice(0, caret);
  const match = /(?:^|\s)@([^\s@]*)$/.exec(before);
  return match ? (match[1] ?? '') : null;
}
