/**
 * The case document of the API (SPEC.md "Case"), built from the `cases` read model.
 * `ack_sla` comes from domain/cases/ack-sla.ts; `sla_breached` is true when the
 * acknowledgement clock or the SLA policy's resolve target is breached. `sla_policy`
 * (our addition) is the policy a case template gave the case, or null. `merged_into`
 * (our addition, issue 50) is the case this one was merged into, or null; `merged_from`
 * every case merged into this one, `[{case_id, key}]` in merge order; `custom_fields`
 * (ours) the case's custom field values by field name.
 */
import * as v from 'valibot';
import { triageRecordSchema, type TriageRecord } from '../../domain/ai/triage.ts';
import { ackSla, resolveSla, type AckSlaPolicy } from '../../domain/cases/ack-sla.ts';
import type { CaseRow } from '../../projections/cases/cases.queries.ts';
import { iso } from '../shared/shapes.ts';

const timestamp = v.string();

/** The acknowledgement clock of a case (SPEC.md "Case" `ack_sla`). */
export const ackSlaSchema = v.pipe(
  v.strictObject({
    state: v.picklist(['none', 'pending', 'met', 'breached']),
    due_at: v.nullable(timestamp),
    acknowledged_at: v.nullable(timestamp),
    acknowledged_by: v.nullable(v.string()),
    clock_stopped_at: v.nullable(timestamp),
    elapsed_seconds: v.number(),
    breached: v.boolean(),
  }),
  v.metadata({ ref: 'AckSla' }),
);

/** The reader's own feedback on the case's AI verdict. */
const myFeedbackSchema = v.nullable(v.strictObject({ analyst_verdict: v.string(), note: v.nullable(v.string()) }));
export type MyTriageFeedback = v.InferOutput<typeof myFeedbackSchema>;

/** The AI triage record as the API shows it (SPEC.md "Case sub-resources"): the stored record and the reader's `my_feedback`. */
export const aiTriageSchema = v.pipe(v.strictObject({ ...triageRecordSchema.entries, my_feedback: myFeedbackSchema }), v.metadata({ ref: 'AiTriage' }));
export type AiTriageView = v.InferOutput<typeof aiTriageSchema>;

/** The record with the reader's feedback, or null before any triage. */
export const aiTriageView = (record: TriageRecord | null, mine: MyTriageFeedback): AiTriageView | null =>
  record === null ? null : { ...record, my_feedback: mine };

/** The case document every case route answers (SPEC.md "Case"). */
export const caseSchema = v.pipe(
  v.strictObject({
    id: v.string(),
    key: v.string(),
    title: v.string(),
    description: v.nullable(v.string()),
    severity: v.string(),
    tags: v.array(v.string()),
    status: v.string(),
    owner_id: v.nullable(v.string()),
    owner_email: v.nullable(v.string()),
    team: v.nullable(v.string()),
    private: v.boolean(),
    alert_count: v.number(),
    sla_breached: v.boolean(),
    acknowledged_at: v.nullable(timestamp),
    acknowledged_by: v.nullable(v.string()),
    ack_sla: ackSlaSchema,
    sla_policy: v.nullable(
      v.strictObject({
        template_id: v.string(),
        ack_minutes: v.nullable(v.number()),
        resolve_minutes: v.nullable(v.number()),
        resolve_due_at: v.nullable(timestamp),
        applied_at: v.nullable(timestamp),
      }),
    ),
    attack_techniques: v.array(v.string()),
    ai_triage: v.nullable(aiTriageSchema),
    merged_into: v.nullable(v.string()),
    merged_from: v.array(v.strictObject({ case_id: v.string(), key: v.string() })),
    custom_fields: v.record(v.string(), v.union([v.string(), v.number(), v.boolean(), v.array(v.string())])),
    created_at: v.nullable(timestamp),
    updated_at: v.nullable(timestamp),
  }),
  v.metadata({ ref: 'Case' }),
);

export type CaseView = v.InferOutput<typeof caseSchema>;

const date = (d: Date | string | null) => (d === null ? null : new Date(d));

/** The case document of `row`; `myFeedback` is the reader's feedback on its AI verdict, when they gave one. */
export function caseView(row: CaseRow, now: Date, policy: AckSlaPolicy, myFeedback: MyTriageFeedback = null): CaseView {
  const sla = ackSla(
    {
      severity: row.severity,
      ackMinutes: row.sla_ack_minutes,
      openedAt: new Date(row.created_at),
      acknowledgedAt: date(row.acknowledged_at),
      acknowledgedBy: row.acknowledged_by,
      resolvedAt: date(row.resolved_at),
      closedAt: date(row.closed_at),
    },
    policy,
    now,
  );
  const resolve = resolveSla(
    { openedAt: new Date(row.created_at), resolvedAt: date(row.resolved_at), closedAt: date(row.closed_at), resolveMinutes: row.sla_resolve_minutes },
    now,
  );
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
    private: row.private,
    alert_count: row.alert_count,
    sla_breached: sla.breached || resolve.breached,
    acknowledged_at: iso(row.acknowledged_at),
    acknowledged_by: row.acknowledged_by,
    ack_sla: sla,
    sla_policy:
      row.sla_template_id === null
        ? null
        : {
            template_id: row.sla_template_id,
            ack_minutes: row.sla_ack_minutes,
            resolve_minutes: row.sla_resolve_minutes,
            resolve_due_at: resolve.due_at,
            applied_at: iso(row.sla_applied_at),
          },
    attack_techniques: row.attack_techniques,
    ai_triage: aiTriageView(row.ai_triage, myFeedback),
    merged_into: row.merged_into,
    merged_from: row.merged_from,
    custom_fields: row.custom_fields,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}
