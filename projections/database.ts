/**
 * Kysely table types for every table of the service: the event store's `events`,
 * the read models the projector maintains, and the few operational tables
 * (checkpoints, worker jobs, used token ids, users, runbooks, connections).
 *
 * Timestamps are `timestamptz` (Date in, Date out); int8 columns come back as
 * numbers on both engines (see adapters/db/connect.ts).
 */
import type { ColumnType, Generated, JSONColumnType } from 'kysely';
import type { TriageRecord } from '../domain/ai/triage.ts';
import type { MergedFrom } from '../domain/cases/events.ts';
import type { CustomFieldValue } from '../domain/custom-fields/fields.ts';

type Timestamp = ColumnType<Date, Date | string, Date | string>;
/** A nullable timestamp a row may be inserted without. */
type OptionalTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
type Json<T extends object | null> = JSONColumnType<T, string, string>;

export interface EventsTable {
  global_position: Generated<number>;
  stream_id: string;
  stream_version: number;
  type: string;
  data: Json<Record<string, unknown>>;
  metadata: Json<Record<string, unknown>>;
  recorded_at: ColumnType<Date, Date | string | undefined, never>;
}

export interface ProjectionCheckpointsTable {
  name: string;
  position: number;
  updated_at: Timestamp;
}

export interface CasesTable {
  id: string;
  key: string;
  number: number;
  title: string;
  description: string | null;
  severity: string;
  tags: Json<string[]>;
  status: string;
  owner_id: string | null;
  owner_email: string | null;
  team: string | null;
  alert_count: number;
  correlation_key: string | null;
  acknowledged_at: Timestamp | null;
  acknowledged_by: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  resolved_at: Timestamp | null;
  closed_at: Timestamp | null;
  last_alert_at: Timestamp | null;
  private: boolean;
  created_by_id: string | null;
  attack_techniques: Json<string[]>;
  version: number;
  /** The SLA policy from a case template (migration 0013); null without one. */
  sla_template_id: string | null;
  sla_ack_minutes: number | null;
  sla_resolve_minutes: number | null;
  sla_applied_at: Timestamp | null;
  /** The last AI triage record (domain/ai/triage.ts), `my_feedback` excepted; null before one (migration 0036). */
  ai_triage: JSONColumnType<TriageRecord | null, string | null | undefined, string | null>;
  /** The case this one was merged into (migration 0039); null while it stands alone. */
  merged_into: string | null;
  /** Every case merged into this one, `[{case_id, key}]` in merge order (migration 0039). */
  merged_from: JSONColumnType<{ case_id: string; key: string }[], string | undefined, string>;
  /** Custom field values by field name (migration 0040). */
  custom_fields: JSONColumnType<Record<string, CustomFieldValue>, string | undefined, string>;
}

/** A case's or an alert's search document (migration 0041; projections/search/documents.ts): its text and `tsvector`. */
export interface CaseSearchTable {
  case_id: string;
  text: string;
  vector: string;
}
export interface AlertSearchTable {
  alert_id: string;
  text: string;
  vector: string;
}

/** A custom field definition (migration 0040; docs/configuration.md "Custom fields"). */
export interface CustomFieldsTable {
  id: string;
  name: string;
  label: string;
  type: string;
  options: JSONColumnType<string[] | null, string | null, string | null>;
  team: string | null;
  required_at: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** One analyst's feedback on a case's AI verdict (migration 0036): `ai_verdict` is the verdict judged. */
export interface CaseAiTriageFeedbackTable {
  case_id: string;
  analyst_id: string;
  analyst_verdict: string;
  ai_verdict: string;
  note: string | null;
  at: Timestamp;
}

export interface CaseTimelineTable {
  event_position: number;
  case_id: string;
  kind: string;
  payload: Json<Record<string, unknown>>;
  actor_id: string | null;
  actor_email: string | null;
  at: Timestamp;
}

export interface CaseCommentsTable {
  id: string;
  case_id: string;
  body: string;
  author_id: string | null;
  author_email: string | null;
  created_at: Timestamp;
  deleted_at: Timestamp | null;
  /** Where a merge copied the comment from, `{case_id, id, at}` (migration 0039); null for the case's own. */
  merged_from: JSONColumnType<MergedFrom | null, string | null | undefined, string | null>;
}

export interface AlertsTable {
  id: string;
  source: string;
  external_id: string;
  rule_id: string | null;
  title: string;
  severity: string;
  status: string;
  case_id: string | null;
  detected_at: Timestamp | null;
  url: string | null;
  correlation_key: string | null;
  suite_correlation_id: string | null;
  team: string | null;
  repeat_count: number;
  payload: Json<Record<string, unknown>>;
  version: number;
  received_at: Timestamp;
  last_seen_at: Timestamp;
}

export interface RunsTable {
  id: string;
  runbook_id: string;
  runbook_version: number;
  case_id: string | null;
  status: string;
  trigger_type: string;
  dry_run: boolean;
  requested_by: string | null;
  error: string | null;
  queued_at: Timestamp;
  started_at: Timestamp | null;
  finished_at: Timestamp | null;
}

export interface RunStepsTable {
  run_id: string;
  step_id: string;
  position: number;
  status: string;
  attempt: number;
  output: Json<Record<string, unknown>> | null;
  error: string | null;
  started_at: Timestamp | null;
  finished_at: Timestamp | null;
}

/** One opened approval gate; `status` is pending, approved, denied or expired. */
export interface RunGatesTable {
  run_id: string;
  step_id: string;
  opened_at: Timestamp;
  reason: string;
  roles: Json<string[]>;
  message: string | null;
  deadline: Timestamp;
  status: string;
  decided_by: string | null;
  decided_at: Timestamp | null;
  note: string | null;
}

export interface ActionLogTable {
  chain_index: number;
  event_position: number;
  run_id: string;
  step_id: string;
  /** json, not jsonb: its text is the row's canonical JSON, exactly the bytes hashed (migration 0031). */
  row: Json<Record<string, unknown>>;
  prev_hash: string;
  hash: string;
}

/** The hash-chained audit log (SPEC.md "Audit entry"); `row` is the hashed entry. */
export interface AuditLogTable {
  chain_index: number;
  event_position: number;
  entry_id: string;
  at: Timestamp;
  action: string;
  actor_id: string | null;
  target_type: string | null;
  target_id: string | null;
  team: string | null;
  /** json, not jsonb: its text is the entry's canonical JSON, exactly the bytes hashed (migration 0031). */
  row: Json<Record<string, unknown>>;
  prev_hash: string;
  hash: string;
}

export interface JobsTable {
  id: Generated<number>;
  kind: string;
  key: string;
  due_at: Timestamp;
  lease_owner: string | null;
  lease_until: Timestamp | null;
}

export interface RunbooksTable {
  slug: string;
  version: number;
  name: string;
  description: string | null;
  enabled: boolean;
  trigger_type: string;
  definition: Json<Record<string, unknown>>;
  yaml_text: string;
  source: string;
  updated_at: Timestamp;
  /** When a `schedule` runbook fires next (migration 0011); null for other triggers. */
  next_fire_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
}

export interface RunbookVersionsTable {
  slug: string;
  version: number;
  yaml_text: string;
  saved_at: Timestamp;
  saved_by: string | null;
}

export interface UsersTable {
  id: string;
  subject: string;
  email: string;
  name: string | null;
  active: boolean;
  /** The grants of the user's last accepted token: who a mention may notify. */
  grants: Json<{ team: string | null; role: string }[]>;
  updated_at: Timestamp;
}

export interface CaseObservablesTable {
  id: string;
  case_id: string;
  type: string;
  value: string;
  normalized: string;
  added_by: string | null;
  created_at: Timestamp;
  removed_at: Timestamp | null;
}

/** What intake normalized of one alert's observables (migration 0014). */
export interface AlertObservablesTable {
  alert_id: string;
  type: string;
  value: string;
  normalized: string;
}

/**
 * The view of the observables a case holds now (migration 0014): `manual` rows are
 * hand-added ones, `alert` rows come from the alerts linked to the case.
 */
export interface CaseObservablesPresentView {
  id: string;
  case_id: string;
  type: string;
  value: string;
  normalized: string;
  added_by: string | null;
  created_at: Timestamp;
  source: 'manual' | 'alert';
}

export interface CaseTasksTable {
  id: string;
  case_id: string;
  title: string;
  description: string | null;
  phase: string | null;
  position: number;
  status: string;
  assignee_id: string | null;
  assignee_email: string | null;
  due_at: Timestamp | null;
  created_by: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  version: number;
}

export interface CaseTaskCommentsTable {
  id: string;
  task_id: string;
  case_id: string;
  body: string;
  author_id: string | null;
  author_email: string | null;
  created_at: Timestamp;
  deleted_at: Timestamp | null;
}

export interface CaseAttachmentsTable {
  id: string;
  case_id: string;
  filename: string;
  content_type: string;
  /** Bytes. */
  size: number;
  /** Lower-case hex; also the file store key. */
  sha256: string;
  uploaded_by: string | null;
  uploaded_at: Timestamp;
  event_position: number;
}

export interface CaseEvidenceTable {
  id: string;
  case_id: string;
  kind: string;
  ref_id: string | null;
  url: string | null;
  note: string;
  pinned_by: string | null;
  pinned_at: Timestamp;
  event_position: number;
}

export interface NotificationsTable {
  id: string;
  user_id: string;
  kind: string;
  severity: string;
  title: string;
  context: Json<Record<string, unknown>>;
  /** Path below the public prefix (`/cases/<id>`); the prefix is added when served. */
  href: string | null;
  at: Timestamp;
  read_at: Timestamp | null;
  event_position: number;
}

export interface UsedTokenIdsTable {
  jti: string;
  expires_at: Timestamp;
}

/** An MCP tool call's idempotency record (migration 0033): pending while `status` is null, then the answer it gave. */
export interface McpIdempotencyTable {
  actor_subject: string;
  tool: string;
  idempotency_key: string;
  /** `sha256:<hex>` of the call's canonical arguments, the key left out. */
  arguments_digest: string;
  status: number | null;
  /** The answer's body text, exactly as the route gave it. */
  answer: string | null;
  created_at: Timestamp;
  completed_at: OptionalTimestamp;
}

/** The install's AI settings, one row `id = 'install'` (migration 0035); a null usage column reads as its configured default. */
export interface AiSettingsTable {
  id: 'install';
  /** Defaults to false: AI is off until the identity service turns it on. */
  enabled: Generated<boolean>;
  provider: string | null;
  base_url: string | null;
  model: string | null;
  /** The provider's key, sealed with the service's secret box; never stored in clear. */
  api_key_sealed: string | null;
  data_classes: JSONColumnType<string[] | null, string | null, string | null>;
  max_tokens: number | null;
  temperature: number | null;
  timeout_seconds: number | null;
  updated_at: Timestamp;
}

export interface ConnectionsTable {
  id: string;
  kind: string;
  name: string;
  base_url: string | null;
  config: Json<Record<string, unknown>>;
  secret_ciphertext: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  /** The secret before the last rotation, valid until `rotation_overlap_until` (migration 0019). */
  previous_secret_ciphertext: string | null;
  rotation_overlap_until: Timestamp | null;
  /** chat_a only: the bot token messages are posted with, sealed (migration 0025). */
  bot_token_ciphertext: string | null;
}

/** A case comment or status change still to be mirrored to a ticket (migration 0026). */
export interface TicketOutboxTable {
  link_id: string;
  /** The case event's global position: one row per (link, event). */
  event_position: number;
  kind: 'comment' | 'status';
  /** comment: `{comment_id, body, author_email}`; status: `{local_status}`. */
  payload: Json<Record<string, unknown>>;
  attempts: Generated<number>;
  next_attempt_at: Timestamp;
  last_error: string | null;
  done_at: Timestamp | null;
}

/** A chat identity linked to a user through a one-time link code (migration 0025). */
export interface ChatIdentityLinksTable {
  provider: string;
  /** The chat workspace (chat_a `team_id`). */
  workspace_id: string;
  chat_user_id: string;
  user_id: string;
  chat_user_name: string | null;
  linked_at: Timestamp;
}

/** A user's pending link code, as its sha256 digest (migration 0025). */
export interface ChatLinkCodesTable {
  user_id: string;
  code_digest: string;
  expires_at: Timestamp;
  created_at: Timestamp;
}

/** Webhook sources (migration 0018); secrets sealed by adapters/connections/secret-box.ts. */
export interface WebhookSourcesTable {
  id: string;
  slug: string;
  type: string;
  name: string;
  team: string | null;
  field_map: Json<Record<string, string>>;
  default_severity: string;
  enabled: boolean;
  token_ciphertext: string;
  signing_secret_ciphertext: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** A saved view of the case list or the alert inbox (migration 0038): `query` holds the list's filter parameters as the URL spells them. */
export interface SavedViewsTable {
  id: string;
  owner_id: string;
  name: string;
  resource: string;
  query: Json<Record<string, string>>;
  team: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** Sweep state of one retained resource (migration 0022). */
export interface RetentionStateTable {
  resource: string;
  next_sweep_at: Timestamp;
  last_sweep_at: OptionalTimestamp;
  /** Cases the last sweep purged. */
  last_deleted: Generated<number>;
  total_deleted: Generated<number>;
  backlog: Generated<boolean>;
  /** Error class of the last failed sweep (never a message: it could name data). */
  last_error: Generated<string | null>;
  last_error_at: OptionalTimestamp;
}

/** The newest page sent under a pager's key (migration 0023). */
export interface CasePagesTable {
  pager: string;
  key: string;
  case_id: string;
  connection: string;
  linked_at: Timestamp;
  event_position: number;
}

/** An external ticket link (migration 0024). */
export interface CaseTicketsTable {
  link_id: string;
  case_id: string;
  provider: string;
  connection: string;
  remote_id: string;
  remote_key: string;
  url: string | null;
  remote_status: Generated<string | null>;
  last_polled_at: OptionalTimestamp;
  last_poll_error: Generated<string | null>;
  created_at: Timestamp;
  event_position: number;
}

/** One custom action at its current version (migration 0027); `spec` as stored, without `enabled`. */
export interface CustomActionsTable {
  id: string;
  name: string;
  version: number;
  enabled: boolean;
  transport: string;
  risk: string;
  effect_type: string;
  spec: Json<Record<string, unknown>>;
  source: string;
  created_at: Timestamp;
  created_by: string | null;
  updated_at: Timestamp;
  updated_by: string | null;
  /** The aggregate stream version the row reflects (projection idempotency). */
  stream_version: number;
}

/** Every saved version of a custom action (migration 0027). */
export interface CustomActionVersionsTable {
  custom_action_id: string;
  version: number;
  name: string;
  spec: Json<Record<string, unknown>>;
  enabled: boolean;
  source: string;
  acknowledged_danger: boolean;
  saved_at: Timestamp;
  saved_by: string | null;
}

/** One installed integration pack (migration 0028); `actions` as the pack left them. */
export interface IntegrationPacksTable {
  pack_id: string;
  version: string;
  sha256: string;
  actions: Json<{ name: string; custom_action_id: string; version: number }[]>;
  installed_at: Timestamp;
  installed_by: string | null;
  updated_at: Timestamp;
  updated_by: string | null;
  /** The aggregate stream version the row reflects (projection idempotency). */
  stream_version: number;
}

/** One published response policy version (migration 0029); the newest is in force. */
export interface ResponsePolicyVersionsTable {
  version: number;
  policy: Json<Record<string, unknown>>;
  digest: string;
  published_at: Timestamp;
  published_by: string | null;
}

/** One managed containment effect (migration 0030): what is blocked, by which adapter, until when. */
export interface EffectsTable {
  id: string;
  effect_type: string;
  target_type: string;
  target: string;
  /** pending, degraded, failed, active, reversing, reversal_failed, reversed (domain/effects/state.ts). */
  status: string;
  ttl_seconds: number;
  expires_at: OptionalTimestamp;
  adapter_id: string | null;
  policy_version: number | null;
  snapshot_digest: string | null;
  handle: string | null;
  already_enforced: ColumnType<boolean, boolean | undefined, boolean>;
  enforcement_performed: ColumnType<boolean, boolean | undefined, boolean>;
  last_error: string | null;
  reversal_attempts: ColumnType<number, number | undefined, number>;
  retry_at: OptionalTimestamp;
  run_id: string | null;
  step_id: string | null;
  case_id: string | null;
  requested_by: string | null;
  requested_at: Timestamp;
  applied_at: OptionalTimestamp;
  reversed_at: OptionalTimestamp;
  updated_at: Timestamp;
  stream_version: number;
}

/**
 * A milestone the install reached (migration 0032), stamped once by the first event that
 * reached it: `first_case_opened` (`ref_id` the case) or `first_approved_response` (the run).
 */
export interface OrgMilestonesTable {
  milestone: string;
  reached_at: Timestamp;
  ref_id: string;
  /** The stamping event's global position; 0 when migration 0032 stamped it from the read models. */
  event_position: number;
}

export interface Database {
  events: EventsTable;
  projection_checkpoints: ProjectionCheckpointsTable;
  cases: CasesTable;
  case_ai_triage_feedback: CaseAiTriageFeedbackTable;
  case_timeline: CaseTimelineTable;
  case_comments: CaseCommentsTable;
  custom_fields: CustomFieldsTable;
  case_search: CaseSearchTable;
  alert_search: AlertSearchTable;
  alerts: AlertsTable;
  runs: RunsTable;
  run_steps: RunStepsTable;
  action_log: ActionLogTable;
  audit_log: AuditLogTable;
  run_gates: RunGatesTable;
  jobs: JobsTable;
  runbooks: RunbooksTable;
  runbook_versions: RunbookVersionsTable;
  users: UsersTable;
  notifications: NotificationsTable;
  case_observables: CaseObservablesTable;
  alert_observables: AlertObservablesTable;
  case_observables_present: CaseObservablesPresentView;
  case_tasks: CaseTasksTable;
  case_task_comments: CaseTaskCommentsTable;
  case_attachments: CaseAttachmentsTable;
  case_evidence: CaseEvidenceTable;
  used_token_ids: UsedTokenIdsTable;
  connections: ConnectionsTable;
  chat_identity_links: ChatIdentityLinksTable;
  chat_link_codes: ChatLinkCodesTable;
  ticket_outbox: TicketOutboxTable;
  webhook_sources: WebhookSourcesTable;
  saved_views: SavedViewsTable;
  retention_state: RetentionStateTable;
  case_pages: CasePagesTable;
  case_tickets: CaseTicketsTable;
  custom_actions: CustomActionsTable;
  custom_action_versions: CustomActionVersionsTable;
  integration_packs: IntegrationPacksTable;
  response_policy_versions: ResponsePolicyVersionsTable;
  effects: EffectsTable;
  org_milestones: OrgMilestonesTable;
  mcp_idempotency: McpIdempotencyTable;
  ai_settings: AiSettingsTable;
}
