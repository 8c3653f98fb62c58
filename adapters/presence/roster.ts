/**
 * Who is viewing a case (SPEC.md "Case sub-resources" Presence: soft,
 * heartbeat-expiring). A viewer stays on a case's roster until `expiryMs` after its
 * last heartbeat or until it leaves; expired entries are dropped when read.
 *
 * The roster lives in this process's memory: presence is soft state, lost on a
 * restart by design. Every API process keeps a replica, fed by its own WebSocket and
 * `GET /cases/<id>/war-room` heartbeats and by the other processes' through the live
 * bus (adapters/live/hub.ts; docs/operations.md "Live updates").
 */

export type Viewer = { user_id: string; email: string | null; name: string | null };
export type PresenceEntry = Viewer & { joined_at: string; last_seen_at: string };

export type PresenceRoster = {
  /** Records a heartbeat of `viewer` on `caseId` at `now`; the first one joins. */
  heartbeat: (caseId: string, viewer: Viewer, now: Date) => void;
  leave: (caseId: string, userId: string) => void;
  /** The viewers of `caseId` whose last heartbeat is younger than the expiry, by join time. */
  viewers: (caseId: string, now: Date) => PresenceEntry[];
  /** Drops every expired viewer; answers the cases whose roster lost one. */
  expire: (now: Date) => string[];
};

export function createPresenceRoster(expiryMs: number): PresenceRoster {
  const cases = new Map<string, Map<string, PresenceEntry>>();
  let sweptAt = 0;

  const live = (caseId: string, now: Date): Map<string, PresenceEntry> | undefined => {
    const roster = cases.get(caseId);
    if (!roster) return undefined;
    for (const [userId, entry] of roster) if (now.getTime() - Date.parse(entry.last_seen_at) >= expiryMs) roster.delete(userId);
    if (roster.size === 0) cases.delete(caseId);
    return roster.size === 0 ? undefined : roster;
  };

  return {
    heartbeat: (caseId, viewer, now) => {
      // Rosters nobody reads again would otherwise stay forever: drop expired ones once per expiry period.
      if (now.getTime() - sweptAt >= expiryMs) {
        sweptAt = now.getTime();
        for (const id of [...cases.keys()]) live(id, now);
      }
      const roster = live(caseId, now) ?? new Map<string, PresenceEntry>();
      const at = now.toISOString();
      roster.set(viewer.user_id, { ...viewer, joined_at: roster.get(viewer.user_id)?.joined_at ?? at, last_seen_at: at });
      cases.set(caseId, roster);
    },
    leave: (caseId, userId) => {
      const roster = cases.get(caseId);
      roster?.delete(userId);
      if (roster?.size === 0) cases.delete(caseId);
    },
    expire: (now) => {
      const changed: string[] = [];
      for (const [caseId, roster] of [...cases]) {
        const before = roster.size;
        if ((live(caseId, now)?.size ?? 0) < before) changed.push(caseId);
      }
      return changed;
    },
    viewers: (caseId, now) =>
      [...(live(caseId, now)?.values() ?? [])].sort((a, b) => a.joined_at.localeCompare(b.joined_at) || a.user_id.localeCompare(b.user_id)),
  };
}
