/**
 * The presence roster (SPEC.md "Case sub-resources" Presence: soft, heartbeat-expiring),
 * with times given by the test.
 */
import { describe, expect, it } from 'vitest';
import { createPresenceRoster } from '../../../adapters/presence/roster.ts';

const at = (seconds: number) => new Date(Date.UTC(2026, 10, 23, 9, 0, seconds));
const ana = { user_id: 'u-ana', email: 'ana@example.com', name: 'Ana' };
const bob = { user_id: 'u-bob', email: 'bob@example.com', name: null };

describe('presence roster', () => {
  it('lists viewers by join time; a heartbeat keeps the join time and moves last_seen_at', () => {
    const roster = createPresenceRoster(60_000);
    roster.heartbeat('c1', ana, at(0));
    roster.heartbeat('c1', bob, at(5));
    roster.heartbeat('c1', ana, at(20));
    expect(roster.viewers('c1', at(21))).toEqual([
      { ...ana, joined_at: at(0).toISOString(), last_seen_at: at(20).toISOString() },
      { ...bob, joined_at: at(5).toISOString(), last_seen_at: at(5).toISOString() },
    ]);
    expect(roster.viewers('c2', at(21))).toEqual([]);
  });

  it('drops a viewer once the expiry passed since its last heartbeat, and a returning viewer joins anew', () => {
    const roster = createPresenceRoster(60_000);
    roster.heartbeat('c1', ana, at(0));
    roster.heartbeat('c1', bob, at(30));
    expect(roster.viewers('c1', at(59)).map((v) => v.user_id)).toEqual(['u-ana', 'u-bob']);
    expect(roster.viewers('c1', at(60)).map((v) => v.user_id)).toEqual(['u-bob']);
    roster.heartbeat('c1', ana, at(61));
    expect(roster.viewers('c1', at(62)).find((v) => v.user_id === 'u-ana')?.joined_at).toBe(at(61).toISOString());
  });

  it('forgets a viewer who leaves, on that case only', () => {
    const roster = createPresenceRoster(60_000);
    roster.heartbeat('c1', ana, at(0));
    roster.heartbeat('c2', ana, at(0));
    roster.leave('c1', 'u-ana');
    roster.leave('c3', 'u-ana');
    expect(roster.viewers('c1', at(1))).toEqual([]);
    expect(roster.viewers('c2', at(1)).map((v) => v.user_id)).toEqual(['u-ana']);
  });
});
