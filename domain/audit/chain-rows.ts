/**
 * Which events feed which hash chain, and with what row (docs/architecture.md
 * "Event sourcing", hash chains). The projector and `svc audit verify` both use
 * this one mapping, so a replay of the event store recomputes exactly the rows the
 * read models chained.
 */
import type { ActionLogRow } from '../runs/events.ts';
import { AUDIT_RECORDED } from './events.ts';

export type ChainName = 'action_log' | 'audit_log';

/** The events whose data carries an action-log row in `data.log`. */
const actionLogEvents = new Set(['step.finished', 'gate.decided', 'runbook.approval_expired', 'runbook.loop_cap_exceeded']);

/**
 * The chain and row an event contributes, or null when it feeds no chain. The row is
 * normalized to what a JSON round trip gives (undefined members dropped), which is what
 * jsonb stores and verification reads back.
 */
export function chainRowOf(event: { type: string; data: Record<string, unknown> }): { chain: ChainName; row: Record<string, unknown> } | null {
  // A loop-cap event written before it carried a row (issue 19) feeds no chain.
  if (actionLogEvents.has(event.type) && event.data.log !== undefined) return { chain: 'action_log', row: jsonRoundTrip(event.data.log as ActionLogRow) };
  if (event.type === AUDIT_RECORDED) return { chain: 'audit_log', row: jsonRoundTrip(event.data) };
  return null;
}

function jsonRoundTrip(value: object): Record<string, unknown> {
  return JSON.parse(JSON.stringify(value)) as Record<string, unknown>;
}
