/**
 * The diagnostics document `suite-diagnostics/v1` (SPEC.md `GET /diagnostics`):
 * `{schema, module, generatedAt, versions: {module, dependencies}, migrations: {current,
 * pending}, health: {<component>: state}, configShape: {<SETTING>: {present, type}},
 * errors: [{type, count, firstSeenAt, lastSeenAt}]}`.
 *
 * Every key set is closed: the settings are the fixed table below (never the process
 * environment as such), the dependencies a fixed list, the health components a fixed set.
 * A setting is reported by presence and declared type only, never a value or a value's
 * length. Nothing in the document depends on time except `generatedAt`, so two captures
 * of an unchanged service differ only there.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Migrator, sql, type Kysely } from 'kysely';
import type { DiagnosticsDocument, settingTypes } from '../adapters/diagnostics/document.ts';
import type { ErrorCounts } from '../adapters/diagnostics/error-counts.ts';
import type { Database } from '../projections/database.ts';
import { migrationProvider } from './schema-migrations.ts';
import { serviceVersion } from './version.ts';

export const DIAGNOSTICS_SCHEMA = 'suite-diagnostics/v1';
export const MODULE = 'svc';

/** The declared type of a setting; `secret` marks a secret-bearing one. */
type SettingType = (typeof settingTypes)[number];

/** Every setting the service reads (docs/configuration.md), and its type. */
export const SETTINGS: Readonly<Record<string, SettingType>> = {
  PORT: 'integer',
  HOST: 'string',
  LOG_LEVEL: 'string',
  NODE_ENV: 'string',
  SVC_ROLE: 'string',
  SVC_BASE_PATH: 'string',
  SVC_PUBLIC_PREFIX: 'string',
  SVC_DATA_DIR: 'path',
  SVC_EMBEDDED_VACUUM_INTERVAL_S: 'integer',
  SVC_CONSOLE_DIR: 'path',
  SVC_EMBEDDED_SHARED_BUFFERS: 'string',
  DATABASE_URL: 'secret',
  SVC_EVENT_STORE: 'string',
  KURRENTDB_CONNECTION_STRING: 'secret',
  SVC_SECRET_KEY: 'secret',
  METRICS_TOKEN: 'secret',
  SVC_DETECTOR_BOOTSTRAP_SECRET: 'secret',
  SVC_EXCHANGE_CLIENT_SECRET: 'secret',
  SVC_AUDIENCE: 'string',
  SVC_IDENTITY_ISSUER: 'string',
  SVC_IDENTITY_JWKS: 'json',
  SVC_IDENTITY_URL: 'url',
  SVC_PERMISSIONS: 'json',
  SVC_EXCHANGE_CLIENT_ID: 'string',
  SVC_EXCHANGE_TOKEN_PATH: 'string',
  SVC_IDENTITY_GRANTS_PATH: 'string',
  SVC_IDENTITY_APPROVAL_SETTINGS_PATH: 'string',
  SVC_IDENTITY_TIMEOUT_MS: 'integer',
  SVC_RUNBOOKS_DIR: 'path',
  SVC_PACKS_DIR: 'path',
  SVC_PACK_PUBLIC_KEY: 'string',
  SVC_ATTACK_CATALOG: 'path',
  SVC_CASE_TEMPLATES_DIR: 'path',
  SVC_RUNBOOKS_GIT_URL: 'url',
  SVC_RUNBOOKS_GIT_PATH: 'path',
  SVC_RUNBOOKS_GIT_REF: 'string',
  SVC_RUNBOOKS_GIT_CA_FILE: 'path',
  SVC_RUNBOOKS_GIT_TIMEOUT_MS: 'integer',
  HTTPS_PROXY: 'url',
  ALL_PROXY: 'url',
  NO_PROXY: 'list',
  SVC_ALLOW_PRIVATE_TARGETS: 'boolean',
  SVC_SUITE_PEER_HOSTS: 'list',
  SVC_OUTBOUND_CA_FILE: 'path',
  SVC_INSTALLED_PRODUCTS: 'list',
  SVC_CASE_SEVERITIES: 'list',
  SVC_CASE_STATUSES: 'list',
  SVC_CASE_CLOSED_STATUSES: 'list',
  SVC_CASE_MERGED_STATUSES: 'list',
  SVC_ACK_SLA_MINUTES: 'list',
  SVC_MAX_BODY_BYTES: 'integer',
  SVC_MAX_JSON_DEPTH: 'integer',
  SVC_MAX_OPENAPI_KB: 'integer',
  SVC_ATTACHMENT_MAX_BYTES: 'integer',
  SVC_CORRELATION_WINDOW: 'integer',
  SVC_INTAKE_CACHE_ENTRIES: 'integer',
  SVC_INTAKE_MAX_RUN_LAG_S: 'integer',
  SVC_CASE_LIST_TOTAL_CAP: 'integer',
  SVC_PRESENCE_HEARTBEAT_SECONDS: 'integer',
  SVC_WS_SESSION_MAX_S: 'integer',
  SVC_CHAT_COMMAND: 'string',
  SVC_CHAT_LINK_CODE_TTL_S: 'integer',
  SVC_TICKET_POLL_TICK_MS: 'integer',
  SVC_TICKET_POLL_BATCH: 'integer',
  SVC_TICKET_POLL_TIMEOUT_MS: 'integer',
  SVC_WORKER_CONCURRENCY: 'integer',
  SVC_WORKER_LEASE_MS: 'integer',
  SVC_POLL_INTERVAL_MS: 'integer',
  SVC_DB_POOL_SIZE: 'integer',
  SVC_DB_POOL_IDLE_S: 'integer',
  SVC_STEP_BACKOFF_BASE_MS: 'integer',
  SVC_MAX_STEP_VISITS: 'integer',
  SVC_GATE_EVALUATION_TRIES: 'integer',
  SVC_APPROVAL_SETTINGS_TTL_S: 'integer',
  SVC_ENVIRONMENT: 'string',
  SVC_SCHEDULE_TICK_MS: 'integer',
  SVC_RUNBOOK_REFRESH_MS: 'integer',
  SVC_CONNECTION_ROTATION_OVERLAP_H: 'integer',
  SVC_CONNECTION_TEST_TIMEOUT_MS: 'integer',
  SVC_MCP_IDEMPOTENCY_HOURS: 'integer',
  SVC_PEER_TIMEOUT_MS: 'integer',
  SVC_BACKFILL_MAX_ALERTS: 'integer',
  SVC_BACKFILL_LOOKBACK_H: 'integer',
  SVC_WORKER_METRICS_PORT: 'integer',
  SVC_WORKER_METRICS_HOST: 'string',
  SVC_METRICS_WINDOW_DAYS: 'integer',
  SVC_SLA_AT_RISK_MINUTES: 'integer',
  SVC_REALM: 'string',
  SVC_RETENTION_ENABLED: 'boolean',
  SVC_RETENTION_CLASS: 'string',
  SVC_RETENTION_DAYS: 'integer',
  SVC_RETENTION_DEFAULT_DAYS: 'integer',
  SVC_RETENTION_MIN_DAYS: 'integer',
  SVC_RETENTION_MAX_DAYS: 'integer',
  SVC_RETENTION_SWEEP_INTERVAL_HOURS: 'integer',
  SVC_RETENTION_BATCH_LIMIT: 'integer',
  SVC_AI_KILL_SWITCH: 'boolean',
  SVC_AI_DEFAULT_DATA_CLASSES: 'list',
  SVC_AI_DEFAULT_MAX_TOKENS: 'integer',
  SVC_AI_DEFAULT_TEMPERATURE: 'number',
  SVC_AI_DEFAULT_TIMEOUT_SECONDS: 'integer',
  SVC_AI_MAX_PROMPT_CHARS: 'integer',
};

/** The libraries whose versions the document reports (a fixed list, not the lock file). */
const DEPENDENCIES = ['@electric-sql/pglite', 'hono', 'jose', 'kysely', 'liquidjs', 'pg', 'prom-client', 'valibot', 'ws'] as const;

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const versionOf = (packageDir: string): string => (JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as { version: string }).version;

/** Component states; the same inputs always give the same state. */
export type HealthProbes = {
  /** The projector's position and the store's head: `ok` when caught up, else `catching_up`. */
  projector: () => Promise<{ position: number; head: number }>;
  /** Whether this process runs a worker; its loop is `ok` while it beats. */
  worker: { running: boolean; beating: () => boolean };
};

export type DiagnosticsDeps = { db: Kysely<Database>; env: NodeJS.ProcessEnv; errors: ErrorCounts; health: HealthProbes; now: () => Date };

/**
 * Returns a builder of the document: the versions are read on its first call (nine
 * package.json files, not worth a start's time), migrations and health on each. A failing health probe reports `unavailable`, never throws.
 */
export function createDiagnostics(deps: DiagnosticsDeps): () => Promise<DiagnosticsDocument> {
  let versions: DiagnosticsDocument['versions'] | null = null;
  const readVersions = () => ({
    module: serviceVersion(),
    dependencies: Object.fromEntries(DEPENDENCIES.map((name) => [name, versionOf(join(repoRoot, 'node_modules', name))])),
  });
  const configShape = () =>
    Object.fromEntries(
      Object.entries(SETTINGS).map(([name, type]) => {
        const value = deps.env[name];
        return [name, { present: value !== undefined && value !== '', type }];
      }),
    );
  const migrations = async () => {
    const all = await new Migrator({ db: deps.db, provider: migrationProvider }).getMigrations();
    const applied = all.filter((m) => m.executedAt !== undefined).map((m) => m.name);
    return { current: applied[applied.length - 1] ?? null, pending: all.filter((m) => m.executedAt === undefined).map((m) => m.name) };
  };
  const health = async (): Promise<DiagnosticsDocument['health']> => {
    const database = await sql`select 1`.execute(deps.db).then(
      () => 'ok' as const,
      () => 'unavailable' as const,
    );
    const projector = await deps.health.projector().then(
      ({ position, head }) => (position >= head ? ('ok' as const) : ('catching_up' as const)),
      () => 'unavailable' as const,
    );
    const worker = !deps.health.worker.running ? 'not_running' : deps.health.worker.beating() ? 'ok' : 'stalled';
    return { database, projector, worker };
  };
  return async () => {
    versions ??= readVersions();
    return {
      schema: DIAGNOSTICS_SCHEMA,
      module: MODULE,
      generatedAt: deps.now().toISOString(),
      versions,
      migrations: await migrations(),
      health: await health(),
      configShape: configShape(),
      errors: deps.errors.snapshot(),
    };
  };
}
