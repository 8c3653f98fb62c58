/**
 * Audit entries (SPEC.md "Audit entry", "Events: Audit actions"). Each entry is one
 * `audit.recorded` event in its own `audit-<id>` stream, appended in the same
 * `appendMany` as the change it records when that change is itself an event; the
 * projector chains the entries in global order into `audit_log`
 * (`hash = sha256(prev_hash || canonical_json(entry))`).
 *
 * Entries never carry a secret or free-form content of the change: names, ids and
 * the keys that changed, not their values.
 */
import * as v from 'valibot';
import type { Event } from '../shared/messages.ts';

/**
 * The actions this build records. SPEC.md names `case.acknowledge` (and AI, MCP and
 * response-policy actions, recorded once those features exist); the rest are the
 * admin changes the issue asks to audit, and each case a retention sweep purged.
 */
export const auditActions = [
  'case.acknowledge',
  'case.merge',
  'ai.invocation',
  'ai.refusal',
  'ai.triage',
  'ai.settings.updated',
  'connection.create',
  'connection.update',
  'connection.delete',
  'connection.rotate',
  'connection.destination_changed',
  'webhook_source.create',
  'webhook_source.update',
  'webhook_source.delete',
  'webhook_source.rotate_token',
  'runbook.save',
  'runbook.enable',
  'runbook.disable',
  'runbook.sync',
  'retention.case_purge',
  'chat.identity_link',
  'chat.identity_unlink',
  'ticket.status_sync',
  'custom_field.create',
  'custom_field.update',
  'custom_field.delete',
  'custom_action.create',
  'custom_action.update',
  'custom_action.disable',
  'custom_action.enable',
  'custom_action.execute',
  'integration_pack.install',
  'integration_pack.upgrade',
  'integration_pack.test',
  'response_policy.publish',
  'effect.reverse',
  'mcp.tool_called',
] as const;
export type AuditAction = (typeof auditActions)[number];

/**
 * Who acted: a person (local user id, email and identity subject), a workload (its
 * subject), the system or a webhook source. `via` is the workload a person acted
 * through (an exchange token's `sub`), else null.
 */
export const auditActorSchema = v.strictObject({
  id: v.nullable(v.string()),
  email: v.nullable(v.string()),
  subject: v.nullable(v.string()),
  kind: v.picklist(['user', 'workload', 'system', 'webhook']),
  via: v.nullable(v.string()),
});
export type AuditActor = v.InferOutput<typeof auditActorSchema>;

/** What the action was about: `{type: 'case' | 'connection' | 'webhook_source' | 'runbook' | ..., id}`. */
export const auditTargetSchema = v.strictObject({ type: v.string(), id: v.string() });
export type AuditTarget = v.InferOutput<typeof auditTargetSchema>;

/** One audit entry: the chained row of `audit_log`, minus its index and hashes (`GET /audit` answers each with them). */
export const auditEntrySchema = v.strictObject({
  id: v.string(),
  /** RFC 3339 time of the change. */
  at: v.string(),
  action: v.picklist(auditActions),
  actor: auditActorSchema,
  target: v.nullable(auditTargetSchema),
  /** The team the target belongs to (null: install-wide). */
  team: v.nullable(v.string()),
  /** Non-secret facts of the change, per action. */
  detail: v.record(v.string(), v.unknown()),
});
export type AuditEntry = v.InferOutput<typeof auditEntrySchema>;

export type AuditRecorded = Event<'audit.recorded', AuditEntry>;
export const AUDIT_RECORDED = 'audit.recorded';
