/**
 * Words and numbers the console derives from API answers: durations, "ago" texts, the
 * mention picker's query, the outcome of a comment's mentions, a timeline row's details, an
 * `href` as a console route, the acknowledgement clock. Pure: no DOM, no React, tested in
 * tests/unit/console/format.test.ts.
 */
import type { AckSla, Mentions } from './api-shapes.ts';

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

/** `value` with its thousands grouped by commas, as `100,000` or `1,234.5`; pure, so a first render does not pay for loading the browser's number formats. */
export function thousands(value: number): string {
  const [whole = '', fraction] = String(value).split('.');
  const grouped = whole.replace(/\B(?=(\d{3})+$)/g, ',');
  return fraction === undefined ? grouped : `${grouped}.${fraction}`;
}

/** An ISO 8601 time as `2026-12-06 22:41:03 UTC`: one clock for every analyst, whatever their browser's zone; an unreadable value as given. */
export function exactTime(at: string): string {
  const time = new Date(at);
  return Number.isNaN(time.getTime()) ? at : `${time.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
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

/** What the server did with the mentions of a posted comment, in one sentence (empty when there were none). */
export function mentionOutcome(mentions: Mentions | undefined): string {
  if (!mentions) return '';
  const parts = [
    mentions.notified.length > 0 ? `Notified ${mentions.notified.join(', ')}.` : '',
    mentions.unresolved.length > 0 ? `No such user: ${mentions.unresolved.join(', ')}.` : '',
    ...mentions.not_notified.map((entry) => `Not notified: ${entry.email} (${entry.reason.replace(/_/g, ' ')}).`),
  ];
  return parts.filter(Boolean).join(' ');
}

const shownFields = [
  'status',
  'note',
  'owner_email',
  'title',
  'severity',
  'verdict',
  'added',
  'removed',
  'alert_id',
  'value',
  'type',
  'step_id',
  'runbook_id',
  'remote_key',
];

/** Whether `value` is an object, whose fields may be read (as unknown): the first step of reading JSON the API does not type. */
export const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

/** The payload fields worth a line, as `field: value` pairs (the API declares a timeline payload `unknown`). */
export function timelineDetails(payload: unknown): string {
  if (!isRecord(payload)) return '';
  const lines: string[] = [];
  for (const field of shownFields) {
    const value = payload[field];
    if (value === undefined || value === null || value === '') continue;
    lines.push(`${field.replace(/_/g, ' ')}: ${Array.isArray(value) ? value.join(', ') : String(value)}`);
  }
  return lines.join(' · ');
}

/** An `href` the API gives (under SVC_PUBLIC_PREFIX) as a route of the console, or null when it points elsewhere. */
export function consoleRoute(href: string | undefined, prefix: string): string | null {
  if (!href) return null;
  if (href === prefix || href.startsWith(`${prefix}/`)) return href.slice(prefix.length) || '/';
  return null;
}

/** The acknowledgement clock as `GET /cases/{id}` answers it (`ack_sla`): the fields the clock reads. */
export type AckClockState = Pick<AckSla, 'elapsed_seconds' | 'acknowledged_at' | 'clock_stopped_at'>;

/** Seconds on the clock at `now`: the server's elapsed time, plus what passed since it was read while still running. */
export function ackSeconds(sla: AckClockState, readAt: number, now: number): number {
  const running = sla.acknowledged_at === null && sla.clock_stopped_at === null;
  return sla.elapsed_seconds + (running ? Math.max(0, (now - readAt) / 1000) : 0);
}
