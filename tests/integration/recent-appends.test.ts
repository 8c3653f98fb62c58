/**
 * The events a Postgres store keeps of its own appends for its projector
 * (adapters/event-store/recent-appends.ts): served only when they are exactly what the
 * table would answer, once, in jsonb's key order.
 */
import { describe, expect, it } from 'vitest';
import { asJsonb } from '../../adapters/event-store/jsonb.ts';
import { RecentAppends, type CommittedEvent } from '../../adapters/event-store/recent-appends.ts';

const committed = (position: number, data: Record<string, unknown> = { n: position }): CommittedEvent => ({
  globalPosition: position,
  streamId: `s-${position}`,
  streamVersion: 1,
  type: 'thing.happened',
  dataText: JSON.stringify(data),
  metadataText: JSON.stringify({ zeta: 1, actor: { kind: 'system' } }),
  recordedAt: '2026-11-24T12:00:00.000Z',
});

const positions = (events: { globalPosition: number }[] | null) => events?.map((e) => e.globalPosition) ?? null;

describe('RecentAppends', () => {
  it('serves the events right after a position, each once, parsed as a jsonb column gives them', () => {
    const recent = new RecentAppends();
    recent.add([committed(12, { zeta: 1, b: { y: 2, x: 1 } }), committed(11)]);
    recent.add([committed(13)]);
    const first = recent.take(10, 2);
    expect(positions(first)).toEqual([11, 12]);
    expect(JSON.stringify(first?.[1]?.data)).toBe(JSON.stringify(asJsonb({ zeta: 1, b: { y: 2, x: 1 } })));
    expect(JSON.stringify(first?.[1]?.metadata)).toBe(JSON.stringify(asJsonb({ zeta: 1, actor: { kind: 'system' } })));
    expect(positions(recent.take(12, 10))).toEqual([13]);
    expect(recent.take(13, 10)).toBeNull();
  });

  it('answers null when the position after the reader is not kept: another writer, a sequence gap or eviction', () => {
    const recent = new RecentAppends();
    recent.add([committed(5), committed(6)]);
    expect(recent.take(3, 10)).toBeNull();
    // The reader read 4..6 from the database: what it passed is dropped, nothing is served twice.
    expect(recent.take(6, 10)).toBeNull();
  });

  it('answers null while a position between the reader and the newest kept event is missing', () => {
    const recent = new RecentAppends();
    recent.add([committed(1), committed(2)]);
    recent.add([committed(4)]);
    expect(recent.take(0, 10)).toBeNull();
    expect(positions(recent.take(3, 10))).toEqual([4]);
  });

  it('keeps at most its bound, the newest', () => {
    const recent = new RecentAppends(3);
    recent.add([1, 2, 3, 4, 5].map((p) => committed(p)));
    expect(recent.take(0, 10)).toBeNull();
    expect(positions(recent.take(2, 10))).toEqual([3, 4, 5]);
  });

  it('forgets everything on clear', () => {
    const recent = new RecentAppends();
    recent.add([committed(1)]);
    recent.clear();
    expect(recent.take(0, 10)).toBeNull();
  });
});
