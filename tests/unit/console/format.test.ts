/** The console's pure words (console/src/format.ts): what an analyst reads on the pages. */
import { describe, expect, it } from 'vitest';
import { ackSeconds, ago, consoleRoute, duration, exactTime, mentionOutcome, mentionQueryAt, thousands, timelineDetails } from '../../../console/src/format.ts';

describe('durations and times', () => {
  it('writes a duration in the two largest units, never negative', () => {
    expect([-5, 0, 59, 60, 725, 3600, 11_040, 86_400 * 2 + 3 * 3600 + 59].map(duration)).toEqual([
      '0s',
      '0s',
      '59s',
      '1m 00s',
      '12m 05s',
      '1h 00m',
      '3h 04m',
      '2d 3h',
    ]);
  });

  it('groups thousands with commas, fractions kept', () => {
    expect([0, 999, 1000, 100_000, 1_234_567, 1234.5, -4200].map(thousands)).toEqual(['0', '999', '1,000', '100,000', '1,234,567', '1,234.5', '-4,200']);
  });

  it('writes an exact time on one clock, UTC, and an unreadable one as given', () => {
    expect(exactTime('2026-12-06T22:41:03.512Z')).toBe('2026-12-06 22:41:03 UTC');
    expect(exactTime('2026-12-06T23:41:03+01:00')).toBe('2026-12-06 22:41:03 UTC');
    expect(exactTime('soon')).toBe('soon');
  });

  it('says how long ago', () => {
    const now = new Date('2026-11-27T12:00:00Z');
    expect(['2026-11-27T11:59:30Z', '2026-11-27T11:55:00Z', '2026-11-27T09:00:00Z', '2026-11-25T12:00:00Z'].map((at) => ago(at, now))).toEqual([
      'just now',
      '5 min ago',
      '3 h ago',
      '2 d ago',
    ]);
  });

  it('runs the acknowledgement clock on from the read only while it runs', () => {
    const running = { elapsed_seconds: 100, acknowledged_at: null, clock_stopped_at: null };
    expect(ackSeconds(running, 1_000, 31_000)).toBe(130);
    expect(ackSeconds({ ...running, acknowledged_at: '2026-11-27T12:00:00Z' }, 1_000, 31_000)).toBe(100);
    expect(ackSeconds({ ...running, clock_stopped_at: '2026-11-27T12:00:00Z' }, 1_000, 31_000)).toBe(100);
    expect(ackSeconds(running, 31_000, 1_000)).toBe(100);
  });
});

describe('mentions', () => {
  it('finds the @ word being typed at the caret, and nothing elsewhere', () => {
    expect(mentionQueryAt('please look @ab', 15)).toBe('ab');
    expect(mentionQueryAt('@', 1)).toBe('');
    expect(mentionQueryAt('please look @ab now', 19)).toBeNull();
    expect(mentionQueryAt('mail ana@example.com', 20)).toBeNull();
  });

  it("tells who was notified and who was not, and why, from the comment's answer", () => {
    expect(mentionOutcome(undefined)).toBe('');
    expect(mentionOutcome({ notified: [], unresolved: [], not_notified: [] })).toBe('');
    expect(
      mentionOutcome({ notified: ['abe@example.com'], unresolved: ['ghost@example.com'], not_notified: [{ email: 'red@example.com', reason: 'no_access' }] }),
    ).toBe('Notified abe@example.com. No such user: ghost@example.com. Not notified: red@example.com (no access).');
  });
});

describe('links and timeline rows', () => {
  it('turns an API href under the prefix into a console route, and leaves other links alone', () => {
    expect(consoleRoute('/svc/cases/7', '/svc')).toBe('/cases/7');
    expect(consoleRoute('/svc', '/svc')).toBe('/');
    expect(consoleRoute('/svcx/cases/7', '/svc')).toBeNull();
    expect(consoleRoute('https://ticket.example/1', '/svc')).toBeNull();
    expect(consoleRoute(undefined, '/svc')).toBeNull();
  });

  it('shows the fields of a timeline payload an analyst reads, lists joined', () => {
    expect(timelineDetails({ status: 'in_progress', note: 'triaging', secret: 'x', added: ['T1110', 'T1078'], removed: [] })).toBe(
      'status: in_progress · note: triaging · added: T1110, T1078 · removed: ',
    );
    expect(timelineDetails(null)).toBe('');
    expect(timelineDetails({ owner_email: null, title: '' })).toBe('');
  });
});
