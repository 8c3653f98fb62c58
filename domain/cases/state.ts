/**
 * Case state rebuilt from its events: what the case commands decide against.
 */
import type { CustomFieldValue } from '../custom-fields/fields.ts';
import type { CaseEvent } from './events.ts';

export type CaseState =
  | { exists: false }
  | {
      exists: true;
      id: string;
      key: string;
      title: string;
      description: string | null;
      severity: string;
      tags: string[];
      status: string;
      team: string | null;
      private: boolean;
      attackTechniques: string[];
      ownerId: string | null;
      /** Comments by id: their author and whether they were deleted. */
      comments: Readonly<Record<string, { authorId: string | null; deleted: boolean }>>;
      acknowledgedAt: string | null;
      acknowledgedBy: string | null;
      /** When the case last received an alert, or was opened: the correlation window runs from here. */
      lastActivityAt: string;
      /** Set once, by the first template that carries one. */
      slaPolicy: { templateId: string; ackMinutes: number | null; resolveMinutes: number | null } | null;
      /** The verdict of the last complete AI triage, what feedback judges; null before one. */
      aiVerdict: string | null;
      /** The case this one was merged into; null while it stands on its own. */
      mergedInto: string | null;
      /** Every case merged into this one, directly or through another merge, in merge order. */
      mergedFrom: { case_id: string; key: string }[];
      /** Custom field values by field name (docs/configuration.md "Custom fields"). */
      customFields: Readonly<Record<string, CustomFieldValue>>;
    };

export const initialCaseState = (): CaseState => ({ exists: false });

export function evolveCase(state: CaseState, event: CaseEvent): CaseState {
  if (event.type === 'case.opened') {
    const d = event.data;
    return {
      exists: true,
      id: d.case_id,
      key: d.key,
      title: d.title,
      description: d.description,
      severity: d.severity,
      tags: d.tags,
      status: d.status,
      team: d.team,
      private: d.private === true,
      attackTechniques: [],
      ownerId: null,
      comments: {},
      acknowledgedAt: null,
      acknowledgedBy: null,
      lastActivityAt: d.opened_at,
      slaPolicy: null,
      aiVerdict: null,
      mergedInto: null,
      mergedFrom: [],
      customFields: {},
    };
  }
  if (!state.exists) return state;
  switch (event.type) {
    case 'case.alert_appended':
      return { ...state, lastActivityAt: event.data.at };
    case 'case.sla_policy_applied':
      return { ...state, slaPolicy: { templateId: event.data.template_id, ackMinutes: event.data.ack_minutes, resolveMinutes: event.data.resolve_minutes } };
    case 'case.status_changed':
      return { ...state, status: event.data.to };
    case 'case.assigned':
      return { ...state, ownerId: event.data.owner_id };
    case 'case.acknowledged':
      return { ...state, acknowledgedAt: event.data.acknowledged_at, acknowledgedBy: event.data.acknowledged_by };
    case 'case.updated': {
      const c = event.data.changes;
      return {
        ...state,
        title: c.title ?? state.title,
        description: c.description !== undefined ? c.description : state.description,
        severity: c.severity ?? state.severity,
        tags: c.tags ?? state.tags,
        private: c.private ?? state.private,
      };
    }
    case 'case.comment_added':
      return { ...state, comments: { ...state.comments, [event.data.comment_id]: { authorId: event.data.author_id, deleted: false } } };
    case 'case.comment_deleted': {
      const comment = state.comments[event.data.comment_id];
      return comment ? { ...state, comments: { ...state.comments, [event.data.comment_id]: { ...comment, deleted: true } } } : state;
    }
    case 'case.attack_techniques_updated':
      return { ...state, attackTechniques: event.data.attack_techniques };
    case 'case.merged':
      return { ...state, mergedInto: event.data.into_case_id };
    case 'case.custom_fields_set':
      return { ...state, customFields: withCustomFields(state.customFields, event.data.values) };
    case 'case.merge_received':
      return { ...state, mergedFrom: [...state.mergedFrom, ...event.data.sources] };
    case 'case.ai_triage':
      return event.data.record.state === 'complete' ? { ...state, aiVerdict: event.data.record.verdict } : state;
    default:
      return state;
  }
}

/** `current` with `values` applied: a value replaces, null removes. */
export function withCustomFields(
  current: Readonly<Record<string, CustomFieldValue>>,
  values: Readonly<Record<string, CustomFieldValue | null>>,
): Record<string, CustomFieldValue> {
  const next: Record<string, CustomFieldValue> = { ...current };
  for (const [name, value] of Object.entries(values)) {
    if (value === null) delete next[name];
    else next[name] = value;
  }
  return next;
}
