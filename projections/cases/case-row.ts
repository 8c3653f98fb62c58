/**
 * The `cases` row as a pure fold over case events (SPEC.md "Case"). The batched
 * projection loads the rows a batch touches, folds every event into them here, and
 * writes each changed row back once. An event at or below the row's version is
 * already reflected and changes nothing.
 */
import type { Selectable } from 'kysely';
import type { CaseEvent } from '../../domain/cases/index.ts';
import { withCustomFields } from '../../domain/cases/state.ts';
import type { CasesTable } from '../database.ts';
import type { LooseRow } from '../loose-row.ts';

/** A `cases` row with `tags` and `attack_techniques` parsed. */
export type CaseRecord = LooseRow<Selectable<CasesTable>>;

/** The row after `event` (at stream `version`); `undefined` while the case was never opened. */
export function evolveCaseRow(row: CaseRecord | undefined, event: CaseEvent, version: number): CaseRecord | undefined {
  if (event.type === 'case.opened') {
    if (row) return row;
    const d = event.data;
    return {
      id: d.case_id,
      key: d.key,
      number: d.number,
      title: d.title,
      description: d.description,
      severity: d.severity,
      tags: d.tags,
      status: d.status,
      owner_id: null,
      owner_email: null,
      team: d.team,
      alert_count: 0,
      correlation_key: d.correlation_key,
      acknowledged_at: null,
      acknowledged_by: null,
      created_at: d.opened_at,
      updated_at: d.opened_at,
      resolved_at: null,
      closed_at: null,
      last_alert_at: null,
      // Events recorded before these fields existed lack them.
      private: d.private === true,
      created_by_id: d.opened_by_id ?? null,
      attack_techniques: [],
      version,
      sla_template_id: null,
      sla_ack_minutes: null,
      sla_resolve_minutes: null,
      sla_applied_at: null,
      ai_triage: null,
      merged_into: null,
      merged_from: [],
      custom_fields: {},
    };
  }
  if (!row || row.version >= version) return row;
  switch (event.type) {
    case 'case.alert_appended':
      return { ...row, alert_count: row.alert_count + 1, last_alert_at: event.data.at, updated_at: event.data.at, version };
    case 'case.alert_removed':
      return { ...row, alert_count: Math.max(0, row.alert_count - 1), updated_at: event.data.at, version };
    case 'case.status_changed': {
      const d = event.data;
      return {
        ...row,
        status: d.to,
        updated_at: d.at,
        resolved_at: d.to === 'resolved' ? d.at : row.resolved_at,
        closed_at: d.to === 'closed' ? d.at : row.closed_at,
        version,
      };
    }
    case 'case.assigned':
      return { ...row, owner_id: event.data.owner_id, owner_email: event.data.owner_email, updated_at: event.data.at, version };
    case 'case.acknowledged':
      return {
        ...row,
        acknowledged_at: event.data.acknowledged_at,
        acknowledged_by: event.data.acknowledged_by,
        updated_at: event.data.acknowledged_at,
        version,
      };
    case 'case.comment_added':
    case 'case.comment_deleted':
    case 'case.attachment_added':
    case 'case.evidence_pinned':
    case 'case.template_applied':
    case 'case.page_linked':
      return { ...row, updated_at: event.data.at, version };
    case 'case.sla_policy_applied': {
      const d = event.data;
      return {
        ...row,
        sla_template_id: d.template_id,
        sla_ack_minutes: d.ack_minutes,
        sla_resolve_minutes: d.resolve_minutes,
        sla_applied_at: d.at,
        updated_at: d.at,
        version,
      };
    }
    case 'case.ai_triage':
      return { ...row, ai_triage: event.data.record, version };
    case 'case.custom_fields_set':
      return { ...row, custom_fields: withCustomFields(row.custom_fields, event.data.values), updated_at: event.data.at, version };
    case 'case.merged':
      return { ...row, merged_into: event.data.into_case_id, updated_at: event.data.at, version };
    case 'case.merge_received':
      return { ...row, merged_from: [...row.merged_from, ...event.data.sources], updated_at: event.data.at, version };
    case 'case.ai_triage_feedback':
      return { ...row, version };
    case 'case.attack_techniques_updated':
      return { ...row, attack_techniques: event.data.attack_techniques, updated_at: event.data.at, version };
    case 'case.updated': {
      const c = event.data.changes;
      return {
        ...row,
        ...(c.title !== undefined && { title: c.title }),
        ...(c.description !== undefined && { description: c.description }),
        ...(c.severity !== undefined && { severity: c.severity }),
        ...(c.tags !== undefined && { tags: c.tags }),
        ...(c.private !== undefined && { private: c.private }),
        updated_at: event.data.at,
        version,
      };
    }
  }
}
