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
import type { Event } from '../shared/messages.ts';

/**
 * The actions this build records. SPEC.md names `case.acknowledge` (and AI, MCP and
 * response-policy actions, recorded once those features exist); the rest are the
 * admin changes the issue asks to audit, and each case a retention sweep purged.
 */
export const auditActions = [
  'case.acknowledge',
  'ai.invocation',
  'ai.refusal',
  'connection.create',
  'connection.update',
  'connection.delete',
  'connection.rotate',
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
] as const;
export type AuditAction = (typeof auditActions)[number];

/**
 * Who acted: a person (local user id, email and identity subject), a workload (its
 * subject), the system or a webhook source. `via` is the workload a person acted
 * through (an exchange token's `sub`), else null.
 */
export type AuditActor = {
  id: string | null;
  email: string | null;
  subject: string | null;
  kind: 'user' | 'workload' | 'system' | 'webhook';
  via: string | null;
};

/** What the action was about: `{type: 'case' | 'connection' | 'webhook_source' | 'runbook' | ..., id}`. */
export type AuditTarget = { type: string; id: string };

/** One audit entry: the chained row of `audit_log`, minus its index and hashes. */
export type AuditEntry = {
  id: string;
  /** RFC 3339 time of the change. */
  at: string;
  action: AuditAction;
  actor: AuditActor;
  target: AuditTarget | null;
  /** The team the target belongs to (null: install-wide). */
  team: string | null;
  /** Non-secret facts of the change, per action. */
  detail: Record<string, unknown>;
};

export type AuditRecorded = Event<'audit.recorded', AuditEntry>;
export const AUDIT_RECORDED = 'audit.recorded';
