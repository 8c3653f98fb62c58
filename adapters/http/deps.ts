/**
 * What the HTTP routes need from the running service, built by runtime/wiring/api.ts.
 * createApp takes all of it; each route factory takes a `Pick` of the fields it reads
 * (`CaseRouteDeps` in cases.routes.ts, and so on).
 */
import type { AttackCatalogSource } from '../attack/catalog-file.ts';
import type { EffectReverser } from '../effects/reversal.ts';
import type { Kysely } from 'kysely';
import type { Database } from '../../projections/database.ts';
import type { AckSlaPolicy } from '../../domain/cases/ack-sla.ts';
import type { ObservableCommands } from '../commands/observables.ts';
import type { CustomActionCommands } from '../commands/custom-actions.ts';
import type { IntegrationPackCommands } from '../commands/integration-packs.ts';
import type { ResponsePolicyCommands } from '../commands/response-policy.ts';
import type { PackTestDeps } from '../integration-packs/pack-test-runner.ts';
import type { VerifyContext } from '../../domain/integration-packs/registry.ts';
import type { CaseAlertCommands } from '../commands/case-alerts.ts';
import type { CaseMergeCommands } from '../commands/case-merge.ts';
import type { CustomFieldStore } from '../custom-fields/store.ts';
import type { TaskCommands } from '../commands/tasks.ts';
import type { CaseFileCommands } from '../commands/case-files.ts';
import type { FileStore } from '../attachments/port.ts';
import type { CaseConfig } from '../commands/case-config.ts';
import type { CaseCommands } from '../commands/cases.ts';
import type { CaseTemplateCommands } from '../commands/case-templates.ts';
import type { CaseTemplateCatalog } from '../case-templates/catalog.ts';
import type { AlertIntake } from '../commands/intake.ts';
import type { RunBacklog } from '../commands/run-backlog.ts';
import type { Backfill } from '../commands/backfill.ts';
import type { RunCommands } from '../commands/runs.ts';
import type { AuditLog } from '../commands/audit.ts';
import type { PageAcks } from '../commands/page-acks.ts';
import type { TicketMirror } from '../commands/ticket-mirror.ts';
import type { ApiMetrics } from '../metrics/api-metrics.ts';
import type { RetentionPolicy } from '../../domain/retention/policy.ts';
import type { ConnectionProbes } from '../connections/probes.ts';
import type { ConnectionStore } from '../connections/store.ts';
import type { WebhookSourceStore } from '../webhook-sources/store.ts';
import type { ActionRegistry } from '../action-registry/registry.ts';
import type { GitSourceConfig, ProxyEnv } from '../runbooks/git-source.ts';
import type { RunbookStore } from '../runbooks/runbook-store.ts';
import type { Permission, Role } from '../identity/principal.ts';
import type { TokenVerifier } from '../identity/verifier.ts';
import type { UserDirectory } from '../identity/users.ts';
import type { Presence } from '../live/hub.ts';
import type { ChatIdentityLinks } from '../chat/identity-links.ts';
import type { OutboundFetch } from '../actions/outbound-http.ts';
import type { Clock } from '../shared/clock.ts';
import type { IdempotencyStore } from './mcp-server/idempotency.ts';
import type { ViewStore } from '../views/store.ts';
import type { IdentityServiceClient } from '../identity-service/client.ts';
import type { AiSettingsStore } from '../ai/settings-store.ts';
import type { CaseTriage } from '../ai/case-triage.ts';
import type { RunbookDrafting } from '../ai/runbook-drafting.ts';
import type { RunExplainer } from '../ai/run-explanation.ts';

/**
 * The pack registry of this install: its folder and what verification needs (SVC_PACKS_DIR,
 * SVC_PACK_PUBLIC_KEY), the install commands, and what a pack test runs actions with
 * (its `mayRunArbitrary` comes from the tester, per request).
 */
export type PackRegistryDeps = {
  dir: string;
  verify: VerifyContext;
  commands: IntegrationPackCommands;
  test: Omit<PackTestDeps, 'mayRunArbitrary'>;
};

export type HttpDeps = {
  db: Kysely<Database>;
  /** The service clock (adapters/shared/clock.ts); routes never read the system time. */
  now: Clock;
  basePath: string;
  /** Largest accepted request body, bytes. */
  maxBodyBytes: number;
  /** Deepest accepted nesting of a JSON body, the root object being 1 (SVC_MAX_JSON_DEPTH). */
  maxJsonDepth: number;
  /** Largest OpenAPI document of `POST /custom-actions/import/openapi`, bytes (SVC_MAX_OPENAPI_KB). */
  maxOpenApiBytes: number;
  detectorBootstrapSecret: string | null;
  caseConfig: CaseConfig;
  /** Acknowledgement targets per severity, seconds (SVC_ACK_SLA_MINUTES). */
  ackSla: AckSlaPolicy;
  /** `GET /cases` counts `total` exactly up to this many cases (SVC_CASE_LIST_TOTAL_CAP). */
  caseListTotalCap: number;
  /** Who views which case: this process's roster replica, shared through the live bus (adapters/live/hub.ts). */
  presence: Presence;
  /** How often a viewer sends a presence heartbeat, seconds (SVC_PRESENCE_HEARTBEAT_SECONDS). */
  presenceHeartbeatSeconds: number;
  /** The public UI prefix of `href` values (SVC_PUBLIC_PREFIX), with no trailing slash: runtime/config.ts normalizes it. */
  publicPrefix: string;
  /** SVC_CONSOLE_DIR: the built web console served under `publicPrefix` (console.routes.ts). */
  consoleDir: string;
  /** Case statuses meaning "merged into another case", which peer search skips (SVC_CASE_MERGED_STATUSES). */
  mergedCaseStatuses: readonly string[];
  /** The environment this install serves, named on peer approval items (SVC_ENVIRONMENT). */
  environment: string;
  /** The identity service's live grants and approval settings (adapters/identity-service/client.ts). */
  identityService: IdentityServiceClient;
  observables: ObservableCommands;
  caseAlerts: CaseAlertCommands;
  /** Custom field definitions (adapters/custom-fields/store.ts). */
  customFields: CustomFieldStore;
  /** Case merge (adapters/commands/case-merge.ts). */
  caseMerge: CaseMergeCommands;
  tasks: TaskCommands;
  /** Attachment and evidence-pin commands. */
  caseFiles: CaseFileCommands;
  /** Where attachment files are stored (adapters/attachments/port.ts). */
  files: FileStore;
  /** Largest accepted attachment, bytes (SVC_ATTACHMENT_MAX_BYTES). */
  attachmentMaxBytes: number;
  permissions: Record<Role, Permission[]>;
  verifier: TokenVerifier;
  users: UserDirectory;
  cases: CaseCommands;
  /** The case templates of this install (SVC_CASE_TEMPLATES_DIR). */
  caseTemplates: CaseTemplateCatalog;
  caseTemplateCommands: CaseTemplateCommands;
  intake: AlertIntake;
  /** Intake back-pressure: refuses alerts while runs wait too long for a worker (adapters/commands/run-backlog.ts). */
  runBacklog: RunBacklog;
  /** `POST /alerts/backfill` (adapters/commands/backfill.ts). */
  backfill: Backfill;
  /** Most alerts one backfill reads and its default lookback (SVC_BACKFILL_MAX_ALERTS, SVC_BACKFILL_LOOKBACK_H). */
  backfillLimits: { maxAlerts: number; lookbackHours: number };
  runs: RunCommands;
  runbooks: RunbookStore;
  /** The Git source `POST /runbooks/sync` pulls (SVC_RUNBOOKS_GIT_*) and the proxy variables it honours; null: local directory. */
  runbookGit: { source: GitSourceConfig; proxy: ProxyEnv } | null;
  actions: ActionRegistry;
  connections: ConnectionStore;
  /** Custom action commands (adapters/commands/custom-actions.ts). */
  customActions: CustomActionCommands;
  /** The pack registry (SVC_PACKS_DIR, SVC_PACK_PUBLIC_KEY) and the install commands. */
  integrationPacks: PackRegistryDeps;
  /** Publishes response policy versions (adapters/commands/response-policy.ts). */
  responsePolicy: ResponsePolicyCommands;
  /** Reverses containment effects through their frozen binding (adapters/effects/reversal.ts): an early release. */
  reverser: EffectReverser;
  /** The non-effectful probes of `POST /connections/<id>/test`. */
  connectionProbes: ConnectionProbes;
  webhookSources: WebhookSourceStore;
  /** Saved views of the case list and the alert inbox (adapters/views/store.ts). */
  views: ViewStore;
  /**
   * The API's Prometheus registry and request middleware, METRICS_TOKEN (null: open), the
   * default window of the SOC metrics (SVC_METRICS_WINDOW_DAYS) and the SLA risk horizon
   * (SVC_SLA_AT_RISK_MINUTES).
   */
  metrics: { api: ApiMetrics; token: string | null; windowDays: number; atRiskMinutes: number };
  /** Records audit entries for changes outside the event store (adapters/commands/audit.ts). */
  audit: AuditLog;
  /** Read-your-writes: resolves once projections reached `position`. */
  waitFor: (position: number | null) => Promise<void>;
  logError: (error: unknown, context: Record<string, unknown>) => void;
  /** Pager acknowledgement webhooks (adapters/commands/page-acks.ts). */
  pageAcks: PageAcks;
  /** The ATT&CK technique catalog of `GET /attack/techniques` (SVC_ATTACK_CATALOG; adapters/attack/catalog-file.ts). */
  attackCatalog: AttackCatalogSource;
  /** The resolved retention policy of `GET /retention` (domain/retention/policy.ts). */
  retentionPolicy: RetentionPolicy;
  /** Ticket updates from ticket webhook sources onto linked cases (adapters/commands/ticket-mirror.ts). */
  ticketMirror: TicketMirror;
  /** Chat identity links and link codes (adapters/chat/identity-links.ts). */
  chatLinks: ChatIdentityLinks;
  /** The chat_a slash command's name, for help texts and link notices (SVC_CHAT_COMMAND). */
  chatCommand: string;
  /** The guarded outbound fetch (adapters/outbound/guarded-fetch.ts), for chat interaction replies. */
  outbound: OutboundFetch;
  /** Builds the `suite-diagnostics/v1` document of `GET /diagnostics` (runtime/diagnostics.ts). */
  diagnostics: () => Promise<Record<string, unknown>>;
  /** The MCP tool server's idempotency records of effectful calls (adapters/mcp-server/idempotency.ts; SVC_MCP_IDEMPOTENCY_HOURS). */
  mcpIdempotency: IdempotencyStore;
  /** The install's AI settings, the provider key sealed (adapters/ai/settings-store.ts). */
  aiSettings: AiSettingsStore;
  /** Advisory triage of one case through the AI call path (adapters/ai/case-triage.ts). */
  caseTriage: CaseTriage;
  /** The operator's AI kill switch (SVC_AI_KILL_SWITCH): while true every AI call is refused `ai_kill_switch`. */
  aiKillSwitch: boolean;
  /** Runbook drafting through the AI call path (adapters/ai/runbook-drafting.ts). */
  runbookDrafting: RunbookDrafting;
  /** Run explanation through the AI call path (adapters/ai/run-explanation.ts). */
  runExplainer: RunExplainer;
};
