/**
 * The acknowledgement clock of a case (SPEC.md "Case" `ack_sla`, "Case acknowledgement").
 *
 * The clock starts when the case opens and stops at the first of acknowledgement,
 * resolution or closure. The target is the case's own SLA policy's `ack_minutes` when a
 * template gave it one, else the severity's (SVC_ACK_SLA_MINUTES).
 * State mapping (SPEC.md leaves it open; docs/configuration.md restates it):
 * - `none`: no target for this severity;
 * - `pending`: clock running and the due time not passed;
 * - `met`: clock stopped at or before the due time;
 * - `breached`: the due time passed before the clock stopped (or it still runs).
 * Owner and status do not enter, except that resolution or closure stops the clock.
 */

/** Seconds allowed to acknowledge, per severity; a severity absent has no target. */
export type AckSlaPolicy = Readonly<Record<string, number>>;

export type AckClockInput = {
  severity: string;
  /** The case's SLA policy target, overriding the severity's; null without one. */
  ackMinutes: number | null;
  openedAt: Date;
  acknowledgedAt: Date | null;
  acknowledgedBy: string | null;
  resolvedAt: Date | null;
  closedAt: Date | null;
};

export type AckSla = {
  state: 'none' | 'pending' | 'met' | 'breached';
  due_at: string | null;
  acknowledged_at: string | null;
  acknowledged_by: string | null;
  clock_stopped_at: string | null;
  elapsed_seconds: number;
  breached: boolean;
};

export function ackSla(c: AckClockInput, policy: AckSlaPolicy, now: Date): AckSla {
  const stops = [c.acknowledgedAt, c.resolvedAt, c.closedAt].filter((d): d is Date => d !== null).map((d) => d.getTime());
  const stoppedAt = stops.length > 0 ? Math.min(...stops) : null;
  const end = stoppedAt ?? now.getTime();
  const target = c.ackMinutes !== null ? c.ackMinutes * 60 : policy[c.severity];
  const due = target === undefined ? null : c.openedAt.getTime() + target * 1000;
  const state = due === null ? 'none' : end > due ? 'breached' : stoppedAt !== null ? 'met' : 'pending';
  return {
    state,
    due_at: due === null ? null : new Date(due).toISOString(),
    acknowledged_at: c.acknowledgedAt?.toISOString() ?? null,
    acknowledged_by: c.acknowledgedBy,
    clock_stopped_at: stoppedAt === null ? null : new Date(stoppedAt).toISOString(),
    elapsed_seconds: Math.max(0, Math.floor((end - c.openedAt.getTime()) / 1000)),
    breached: state === 'breached',
  };
}

/**
 * The resolve target of a case's SLA policy: due `resolveMinutes` after opening,
 * breached when neither resolution nor closure came by then (also while still open past
 * it). No target: nothing due, never breached.
 */
export function resolveSla(
  c: { openedAt: Date; resolvedAt: Date | null; closedAt: Date | null; resolveMinutes: number | null },
  now: Date,
): { due_at: string | null; breached: boolean } {
  if (c.resolveMinutes === null) return { due_at: null, breached: false };
  const due = c.openedAt.getTime() + c.resolveMinutes * 60_000;
  const stops = [c.resolvedAt, c.closedAt].filter((d): d is Date => d !== null).map((d) => d.getTime());
  const end = stops.length > 0 ? Math.min(...stops) : now.getTime();
  return { due_at: new Date(due).toISOString(), breached: end > due };
}
