/**
 * The live hub of one API process (SPEC.md "Live updates and inbox"; docs/operations.md
 * "Live updates"): it holds this process's WebSocket connections and its replica of the
 * presence roster, and pushes every bus frame to the connections whose caller may see it.
 *
 * Presence changes made here (a WebSocket join, ping or leave, a war-room heartbeat) are
 * applied at once and published for the other processes, which apply them to their
 * replicas; a process ignores its own. Every replica expires viewers by the same rule, so
 * no expiry travels on the bus. A `presence.updated` frame goes out when a case's set of
 * viewers changes (join, leave, expiry), not on every heartbeat.
 */
import { randomUUID } from 'node:crypto';
import type { CaseScope, ScopedCase } from '../../projections/cases/case-scope.ts';
import { canReach, type BusMessage, type Viewer } from '../../projections/live/messages.ts';
import type { PresenceEntry, PresenceRoster } from '../presence/roster.ts';
import type { LiveBus } from './bus.ts';

/** A connected caller: its case scope, fixed at connect, and how to send it a frame. */
export type LiveConnection = { scope: CaseScope; send: (frame: Record<string, unknown>) => void };

/** Presence as routes and sockets use it. */
export type Presence = {
  /** A heartbeat of `viewer` on the case: joins it when absent. */
  beat: (caseId: string, scoped: ScopedCase, viewer: Viewer) => Promise<void>;
  leave: (caseId: string, scoped: ScopedCase, viewer: Viewer) => Promise<void>;
  viewers: (caseId: string) => PresenceEntry[];
};

export type LiveHub = {
  presence: Presence;
  /** Registers a connection; the returned function removes it. */
  add: (connection: LiveConnection) => () => void;
  /** How many connections this process holds. */
  size: () => number;
  close: () => void;
};

export type LiveHubOptions = {
  bus: LiveBus;
  roster: PresenceRoster;
  now: () => Date;
  /** How often expired viewers are looked for, ms. */
  expiryCheckMs: number;
  onError: (error: unknown) => void;
};

/** A hub on `bus` with `roster` as this process's presence replica; looks for expired viewers every `expiryCheckMs`. `close()` stops listening and forgets every connection. */
export function createLiveHub(options: LiveHubOptions): LiveHub {
  const { roster, bus, now } = options;
  const origin = randomUUID();
  const connections = new Set<LiveConnection>();
  /** The visibility facts of every case with a roster, for frames about it. */
  const scopedCases = new Map<string, ScopedCase>();

  const push = (scoped: ScopedCase, frame: Record<string, unknown>) => {
    for (const c of connections) if (canReach(c.scope, { kind: 'case', case: scoped })) c.send(frame);
  };
  const members = (caseId: string) =>
    roster
      .viewers(caseId, now())
      .map((v) => v.user_id)
      .join('\u0000');
  const pushPresence = (caseId: string) => {
    const scoped = scopedCases.get(caseId);
    const viewers = roster.viewers(caseId, now());
    if (viewers.length === 0) scopedCases.delete(caseId);
    if (scoped) push(scoped, { type: 'presence.updated', case_id: caseId, viewers });
  };
  /** Applies a presence change to the replica; pushes when the set of viewers changed. */
  const apply = (op: 'beat' | 'leave', caseId: string, scoped: ScopedCase, viewer: Viewer, at: Date) => {
    const before = members(caseId);
    scopedCases.set(caseId, scoped);
    if (op === 'beat') roster.heartbeat(caseId, viewer, at);
    else roster.leave(caseId, viewer.user_id);
    if (members(caseId) !== before) pushPresence(caseId);
  };
  const change = (op: 'beat' | 'leave') => async (caseId: string, scoped: ScopedCase, viewer: Viewer) => {
    const at = now();
    apply(op, caseId, scoped, viewer, at);
    // Presence is soft state: the other processes miss this change, the caller is not failed for it.
    await bus.publish({ kind: 'presence', origin, op, case_id: caseId, case: scoped, viewer, at: at.toISOString() }).catch(options.onError);
  };

  const unsubscribe = bus.subscribe((message: BusMessage) => {
    if (message.kind === 'presence') {
      if (message.origin !== origin) apply(message.op, message.case_id, message.case, message.viewer, new Date(message.at));
      return;
    }
    for (const item of message.items) {
      for (const c of connections) if (canReach(c.scope, item.audience)) c.send(item.frame);
    }
  });
  const expiry = setInterval(() => {
    try {
      for (const caseId of roster.expire(now())) pushPresence(caseId);
    } catch (error) {
      options.onError(error);
    }
  }, options.expiryCheckMs);

  return {
    presence: { beat: change('beat'), leave: change('leave'), viewers: (caseId) => roster.viewers(caseId, now()) },
    add: (connection) => {
      connections.add(connection);
      return () => connections.delete(connection);
    },
    size: () => connections.size,
    close: () => {
      clearInterval(expiry);
      unsubscribe();
      connections.clear();
    },
  };
}
