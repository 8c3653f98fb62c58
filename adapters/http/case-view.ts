/**
 * The case document of the API (SPEC.md "Case"), built from the `cases` read model.
 * `ack_sla` without an SLA policy: `met` once acknowledged, otherwise `none`; the
 * clock stops at acknowledgement, resolution or closure, whichever came first.
 */
import { iso } from './shapes.ts';
import type { CaseRow } from '../../projections/cases/cases.queries.ts';

export function caseView(row: CaseRow, now: Date) {
  const stops = [row.acknowledged_at, row.resolved_at, row.closed_at].filter((d): d is Date => d !== null).map((d) => new Date(d).getTime());
  const stoppedAt = stops.length > 0 ? new Date(Math.min(...stops)) : null;
  const elapsedMs = (stoppedAt ?? now).getTime() - new Date(row.created_at).getTime();
  return {
    id: row.id,
    key: row.key,
    title: row.title,
    description: row.description,
    severity: row.severity,
    tags: row.tags,
    status: row.status,
    owner_id: row.owner_id,
    owner_email: row.owner_email,
    team: row.team,
    alert_count: row.alert_count,
    sla_breached: false,
    acknowledged_at: iso(row.acknowledged_at),
    acknowledged_by: row.acknowledged_by,
    ack_sla: {
      state: row.acknowledged_at ? 'met' : 'none',
      due_at: null,
      acknowledged_at: iso(row.acknowledged_at),
      acknowledged_by: row.acknowledged_by,
      clock_stopped_at: iso(stoppedAt),
      elapsed_seconds: Math.max(0, Math.floor(elapsedMs / 1000)),
      breached: false,
    },
    attack_techniques: [] as string[],
    ai_triage: null,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}
