/**
 * What advisory triage reads (SPEC.md "AI data-class gating": triage reads `cases`,
 * `alerts`, `events`): the case's alerts with their raw events, its present observables,
 * the enabled runbooks a suggestion may name, and each reader's own feedback.
 */
import type { Kysely } from 'kysely';
import type { TriageInput } from '../../domain/ai/triage.ts';
import type { CaseRow } from '../cases/cases.queries.ts';
import type { Database } from '../database.ts';

/** The triage input of the case `row` (its visibility checked by the caller); newest alerts first, at most `limits` of each. */
export async function triageInput(db: Kysely<Database>, row: CaseRow, limits: { alerts: number; observables: number; runbooks: number }): Promise<TriageInput> {
  const [alerts, observables, runbooks] = await Promise.all([
    db
      .selectFrom('alerts')
      .select(['id', 'title', 'severity', 'source', 'rule_id', 'detected_at', 'payload'])
      .where('case_id', '=', row.id)
      .orderBy('received_at', 'desc')
      .orderBy('id')
      .limit(limits.alerts + 1)
      .execute(),
    db
      .selectFrom('case_observables_present')
      .select(['id', 'type', 'value'])
      .where('case_id', '=', row.id)
      .orderBy('created_at')
      .orderBy('id')
      .limit(limits.observables)
      .execute(),
    db.selectFrom('runbooks').select(['slug', 'name', 'description']).where('enabled', '=', true).orderBy('slug').limit(limits.runbooks).execute(),
  ]);
  return {
    case: {
      id: row.id,
      key: row.key,
      title: row.title,
      description: row.description,
      severity: row.severity,
      status: row.status,
      tags: row.tags,
      attack_techniques: row.attack_techniques,
    },
    alerts: alerts.map((a) => ({ ...a, detected_at: a.detected_at === null ? null : new Date(a.detected_at).toISOString() })),
    observables,
    runbooks,
  };
}

/** The feedback `analystId` gave on each of `caseIds` that has one. */
export async function myTriageFeedback(
  db: Kysely<Database>,
  analystId: string,
  caseIds: string[],
): Promise<Map<string, { analyst_verdict: string; note: string | null }>> {
  if (caseIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('case_ai_triage_feedback')
    .select(['case_id', 'analyst_verdict', 'note'])
    .where('analyst_id', '=', analystId)
    .where('case_id', 'in', caseIds)
    .execute();
  return new Map(rows.map((r) => [r.case_id, { analyst_verdict: r.analyst_verdict, note: r.note }]));
}
