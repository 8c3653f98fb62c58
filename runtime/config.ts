/**
 * Service configuration from the environment (CONTRACTS.md section 1; docs/configuration.md).
 * Every value SPEC.md leaves open is a variable with a documented default.
 * Throws an Error naming the variable when a value is malformed (never its value).
 */
import { accessSync, constants, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { gitPathProblem, gitUrlProblem, type GitSourceConfig, type ProxyEnv } from '../adapters/runbooks/git-source.ts';
import { isHostEntry } from '../adapters/outbound/guarded-fetch.ts';
import { DEFAULT_POOL_IDLE_MS, DEFAULT_POOL_SIZE } from '../adapters/db/pool-defaults.ts';
import type { ExchangeSettings } from '../adapters/exchange/client.ts';
import type { IdentityServiceSettings } from '../adapters/identity-service/client.ts';
import type { RetentionSettings } from '../domain/retention/policy.ts';
import { publicKeyFromBase64 } from '../domain/integration-packs/registry.ts';
import { AI_USAGE_BOUNDS, aiDataClasses, type AiDataClass, type AiUsage } from '../domain/ai/settings.ts';

export type Config = {
  port: number;
  host: string;
  basePath: string;
  /** Public UI prefix of `href` values and where the console is served (SVC_PUBLIC_PREFIX), no trailing slash. */
  publicPrefix: string;
  /** The built web console (SVC_CONSOLE_DIR). */
  consoleDir: string;
  dataDir: string;
  /** The embedded engine's buffer cache, PostgreSQL's `shared_buffers` (SVC_EMBEDDED_SHARED_BUFFERS, default 32MB). */
  embeddedSharedBuffers: string;
  databaseUrl: string | null;
  /** Where events are kept (SVC_EVENT_STORE, KURRENTDB_CONNECTION_STRING); read models stay in the database either way. */
  eventStore: EventStoreConfig;
  role: 'all' | 'api' | 'worker';
  audience: string;
  identityIssuer: string | null;
  identityJwks: string | null;
  permissionsJson: string | undefined;
  runbooksDir: string;
  /** Case template YAML files, read at start (SVC_CASE_TEMPLATES_DIR). */
  caseTemplatesDir: string;
  /** The Git source `POST /runbooks/sync` reads instead of `runbooksDir` (SVC_RUNBOOKS_GIT_*); null: none. */
  runbooksGit: GitSourceConfig | null;
  /** HTTPS_PROXY / ALL_PROXY / NO_PROXY (either case) at start, for outbound fetches that honour them. */
  proxy: ProxyEnv;
  detectorBootstrapSecret: string | null;
  maxBodyBytes: number;
  /** Deepest accepted nesting of a JSON request body (SVC_MAX_JSON_DEPTH). */
  maxJsonDepth: number;
  /** Largest OpenAPI document `POST /custom-actions/import/openapi` accepts, KiB (SVC_MAX_OPENAPI_KB). */
  maxOpenApiKb: number;
  /** The pack registry folder: `index.yaml` and the pack files it names (SVC_PACKS_DIR). */
  packsDir: string;
  /** The ATT&CK technique catalog, a STIX 2.1 bundle file (SVC_ATTACK_CATALOG); null: technique ids go unnamed. */
  attackCatalog: string | null;
  /** The publisher's ed25519 public key packs must be signed with (SVC_PACK_PUBLIC_KEY, base64); null: checksum-verified only. */
  packPublicKey: Uint8Array | null;
  /** Largest accepted attachment, bytes (SVC_ATTACHMENT_MAX_BYTES); stored under `<dataDir>/attachments`. */
  attachmentMaxBytes: number;
  correlationWindowMs: number;
  severities: string[];
  statuses: string[];
  closedStatuses: string[];
  /** Statuses that mean "merged into another case": peer search skips such cases (SVC_CASE_MERGED_STATUSES). */
  mergedStatuses: string[];
  initialStatus: string;
  /** Most connections one process holds to a PostgreSQL server (SVC_DB_POOL_SIZE). */
  dbPoolSize: number;
  /** How long an unused server connection stays open, ms; 0 keeps it (SVC_DB_POOL_IDLE_S). */
  dbPoolIdleMs: number;
  workerConcurrency: number;
  workerLeaseMs: number;
  pollIntervalMs: number;
  stepBackoffBaseMs: number;
  /** How many times an action's gate is asked before its step fails `gate_evaluation_failed` (SVC_GATE_EVALUATION_TRIES). */
  gateEvaluationTries: number;
  /** Re-entries of one goto target a run allows before it fails (SVC_MAX_STEP_VISITS). */
  maxStepVisits: number;
  /** How long the approval settings read from identity (the gate deadline default) are kept, ms; 0 keeps nothing (SVC_APPROVAL_SETTINGS_TTL_S). */
  approvalSettingsTtlMs: number;
  /** The environment this install serves, named on peer approval items (SVC_ENVIRONMENT). */
  environment: string;
  /** How long a connection's previous secret stays usable after a rotation, ms (SVC_CONNECTION_ROTATION_OVERLAP_H). */
  connectionRotationOverlapMs: number;
  /** How long `POST /connections/<id>/test` waits for a peer, ms (SVC_CONNECTION_TEST_TIMEOUT_MS). */
  connectionTestTimeoutMs: number;
  /** How long the MCP tool server keeps an effectful call's answer for repeats of its `idempotency_key`, ms (SVC_MCP_IDEMPOTENCY_HOURS). */
  mcpIdempotencyMs: number;
  intakeCacheEntries: number;
  /** Intake answers 429 while the oldest run waiting for a worker has waited longer, ms; 0 never (SVC_INTAKE_MAX_RUN_LAG_S). */
  intakeMaxRunLagMs: number;
  /** How often the embedded engine's queue tables are vacuumed, ms; 0 never (SVC_EMBEDDED_VACUUM_INTERVAL_S; runtime/embedded-vacuum.ts). */
  embeddedVacuumIntervalMs: number;
  /** Seconds to acknowledge, per severity (SVC_ACK_SLA_MINUTES). */
  ackSla: Record<string, number>;
  /** `GET /cases` counts `total` exactly up to this many (SVC_CASE_LIST_TOTAL_CAP). */
  caseListTotalCap: number;
  /** Seconds between presence heartbeats; a viewer expires after two missed ones (SVC_PRESENCE_HEARTBEAT_SECONDS). */
  presenceHeartbeatSeconds: number;
  /** Longest WebSocket session before the server closes it for a reconnect with a fresh token, ms (SVC_WS_SESSION_MAX_S). */
  wsSessionMaxMs: number;
  /** The chat_a slash command as the chat app defines it (SVC_CHAT_COMMAND), and how long a link code lasts, seconds (SVC_CHAT_LINK_CODE_TTL_S). */
  chat: { command: string; linkCodeTtlSeconds: number };
  /** Ticket polling: how often the worker looks for due links, ms (SVC_TICKET_POLL_TICK_MS), links per look (SVC_TICKET_POLL_BATCH), longest poll, ms (SVC_TICKET_POLL_TIMEOUT_MS). */
  ticketPoll: { tickMs: number; batch: number; timeoutMs: number };
  /** Suite products installed next to this service, of `detector`, `pipeline` (SVC_INSTALLED_PRODUCTS). */
  installedProducts: string[];
  /** How often the worker looks for due schedule runbooks, ms (SVC_SCHEDULE_TICK_MS). */
  scheduleTickMs: number;
  /** How often a process reloads its cached runbook list from the database, ms (SVC_RUNBOOK_REFRESH_MS). */
  runbookRefreshMs: number;
  /** The workload exchange this service gets suite tokens from (SVC_EXCHANGE_*); null: not configured. */
  exchange: ExchangeSettings | null;
  /** Longest wait for one call to a suite peer (the detector's alerts list), ms (SVC_PEER_TIMEOUT_MS). */
  peerTimeoutMs: number;
  /** The identity service's live grants and approval settings: SVC_IDENTITY_URL, SVC_IDENTITY_GRANTS_PATH, SVC_IDENTITY_APPROVAL_SETTINGS_PATH, SVC_IDENTITY_TIMEOUT_MS. */
  identityService: IdentityServiceSettings;
  /** Metrics exposition: the bearer token (METRICS_TOKEN; null: open), and where the worker serves its series. */
  metrics: { token: string | null; workerPort: number; workerHost: string };
  /** Window of `GET /metrics/overview` and `/metrics/gate`, days (SVC_METRICS_WINDOW_DAYS). */
  metricsWindowDays: number;
  /** An open case is at SLA risk this long before its acknowledgement is due, minutes (SVC_SLA_AT_RISK_MINUTES). */
  slaAtRiskMinutes: number;
  /** `POST /alerts/backfill`: most alerts read, and the default lookback in hours (SVC_BACKFILL_MAX_ALERTS, SVC_BACKFILL_LOOKBACK_H). */
  backfill: { maxAlerts: number; lookbackHours: number };
  /** Closed-case retention (SVC_RETENTION_*, SVC_REALM; docs/operations.md "Retention"). */
  retention: RetentionSettings;
  /** AI (SPEC.md "AI settings"): the operator's kill switch, the usage defaults before an admin sets them, the prompt bound of one call. */
  ai: AiConfig;
  /** The outbound HTTP edge's SSRF guard (SPEC.md "Authentication"; docs/configuration.md "Outbound edge"). */
  outbound: OutboundConfig;
  logLevel: string;
};

/**
 * SVC_AI_KILL_SWITCH (every AI call refused `ai_kill_switch` while true), the usage half
 * an install has until an admin changes it (SVC_AI_DEFAULT_*), and SVC_AI_MAX_PROMPT_CHARS.
 */
export type AiConfig = { killSwitch: boolean; usageDefaults: AiUsage; maxPromptChars: number };

/**
 * `postgres`: the `events` table of the service database; `kurrentdb`: a KurrentDB server.
 * The connection string is a secret (it may carry a password): never logged or reported.
 */
export type EventStoreConfig = { kind: 'postgres' } | { kind: 'kurrentdb'; connectionString: string };

/** SVC_ALLOW_PRIVATE_TARGETS, SVC_SUITE_PEER_HOSTS, the exchange origin derived from SVC_IDENTITY_URL, and SVC_OUTBOUND_CA_FILE (a path; read at start). */
export type OutboundConfig = { allowPrivate: boolean; peerHosts: string[]; exchangeOrigin: string | null; caFile: string | null };

const list = (value: string | undefined, fallback: string[]) =>
  value === undefined || value.trim() === ''
    ? fallback
    : value
        .split(',')
        .map((s) => s.trim().toLowerCase())
        .filter(Boolean);

function int(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) throw new Error(`${name} must be an integer >= ${min}`);
  return n;
}

/** A PostgreSQL memory size: a whole number and kB, MB or GB, at least 1MB (smaller buffer caches thrash). */
function memorySize(env: NodeJS.ProcessEnv, name: string, fallback: string): string {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === '') return fallback;
  const match = /^([1-9][0-9]*)(kB|MB|GB)$/.exec(raw);
  const kB = match ? Number(match[1]) * { kB: 1, MB: 1024, GB: 1024 * 1024 }[match[2] as 'kB' | 'MB' | 'GB'] : 0;
  if (kB < 1024) throw new Error(`${name} must be a size such as 32MB (a whole number and kB, MB or GB, at least 1MB)`);
  return raw;
}

/** SVC_CHAT_COMMAND: a slash and 1-31 lowercase letters, digits, `-` or `_` (the chat product's own rule). */
function chatCommand(raw: string | undefined): string {
  const value = raw === undefined || raw.trim() === '' ? '/svc' : raw.trim();
  if (!/^\/[a-z0-9_-]{1,31}$/.test(value)) throw new Error('SVC_CHAT_COMMAND must be a slash command such as /svc');
  return value;
}

/** Products whose `detector.*` / `pipeline.*` actions runbooks may use; `none` or empty: neither. */
function installedProducts(raw: string | undefined): string[] {
  const products = list(raw, []).filter((p) => p !== 'none');
  const unknown = products.filter((p) => p !== 'detector' && p !== 'pipeline');
  if (unknown.length > 0) throw new Error('SVC_INSTALLED_PRODUCTS must list only detector and pipeline (or none)');
  return products;
}

/**
 * `SVC_ACK_SLA_MINUTES`: `severity:minutes` pairs, comma-separated (`high:60,critical:15`);
 * a severity left out has no target; `none` turns every target off. The default names
 * the default severities and skips those SVC_CASE_SEVERITIES does not list.
 */
function ackSlaTargets(raw: string | undefined, severities: string[]): Record<string, number> {
  const given = raw !== undefined && raw.trim() !== '';
  const value = given ? raw.trim() : 'critical:15,high:60,medium:240,low:1440';
  if (value === 'none') return {};
  const targets: Record<string, number> = {};
  for (const pair of value.split(',')) {
    const match = /^\s*([a-z0-9_-]+)\s*:\s*(\d+)\s*$/i.exec(pair);
    const severity = match?.[1]?.toLowerCase();
    const minutes = Number(match?.[2]);
    if (!severity || !Number.isInteger(minutes) || minutes < 1) throw new Error('SVC_ACK_SLA_MINUTES must be severity:minutes pairs, e.g. critical:15,high:60');
    if (!severities.includes(severity)) {
      if (given) throw new Error(`SVC_ACK_SLA_MINUTES names severity "${severity}", which SVC_CASE_SEVERITIES does not list`);
      continue;
    }
    targets[severity] = minutes * 60;
  }
  return targets;
}

/** The outbound edge's settings; refuses a flag that is not a boolean, a malformed peer host or identity URL. */
function outboundConfig(env: NodeJS.ProcessEnv): OutboundConfig {
  const flag = (env.SVC_ALLOW_PRIVATE_TARGETS ?? '').trim().toLowerCase();
  if (!['', 'true', '1', 'false', '0'].includes(flag)) throw new Error('SVC_ALLOW_PRIVATE_TARGETS must be true, 1, false or 0');
  const peerHosts = (env.SVC_SUITE_PEER_HOSTS ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (!peerHosts.every(isHostEntry)) throw new Error('SVC_SUITE_PEER_HOSTS must be comma-separated host[:port] entries');
  let exchangeOrigin: string | null = null;
  if (env.SVC_IDENTITY_URL) {
    const url = URL.canParse(env.SVC_IDENTITY_URL) ? new URL(env.SVC_IDENTITY_URL) : null;
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) throw new Error('SVC_IDENTITY_URL must be an http or https URL');
    exchangeOrigin = url.origin;
  }
  const caFile = env.SVC_OUTBOUND_CA_FILE?.trim() ? resolve(env.SVC_OUTBOUND_CA_FILE.trim()) : null;
  return { allowPrivate: flag === 'true' || flag === '1', peerHosts, exchangeOrigin, caFile };
}

/**
 * The workload exchange (docs/suite-contracts.md "Workload exchange"): configured when
 * SVC_EXCHANGE_CLIENT_SECRET is set, which then needs an https SVC_IDENTITY_URL (the
 * exchange hands out bearer tokens, which never travel in clear).
 */
function exchangeSettings(env: NodeJS.ProcessEnv): ExchangeSettings | null {
  const clientSecret = env.SVC_EXCHANGE_CLIENT_SECRET;
  if (!clientSecret) return null;
  const identity = env.SVC_IDENTITY_URL && URL.canParse(env.SVC_IDENTITY_URL) ? new URL(env.SVC_IDENTITY_URL) : null;
  if (identity?.protocol !== 'https:') throw new Error('SVC_EXCHANGE_CLIENT_SECRET needs an https SVC_IDENTITY_URL');
  const path = env.SVC_EXCHANGE_TOKEN_PATH ?? '/oauth2/token';
  if (!path.startsWith('/')) throw new Error('SVC_EXCHANGE_TOKEN_PATH must start with /');
  return { tokenUrl: `${identity.origin}${identity.pathname.replace(/\/+$/, '')}${path}`, clientId: env.SVC_EXCHANGE_CLIENT_ID || 'svc', clientSecret };
}

/**
 * Where the identity service's live grants and approval settings are read
 * (docs/suite-contracts.md "Identity: live grants and approval settings"): below
 * SVC_IDENTITY_URL (checked by outboundConfig), at paths that must start with `/`.
 */
function identityServiceSettings(env: NodeJS.ProcessEnv): IdentityServiceSettings {
  const path = (name: string, fallback: string) => {
    const value = env[name]?.trim() || fallback;
    if (!value.startsWith('/')) throw new Error(`${name} must start with /`);
    return value;
  };
  return {
    url: env.SVC_IDENTITY_URL || null,
    grantsPath: path('SVC_IDENTITY_GRANTS_PATH', '/peer/v1/grants'),
    approvalSettingsPath: path('SVC_IDENTITY_APPROVAL_SETTINGS_PATH', '/peer/v1/approval-settings'),
    timeoutMs: int(env, 'SVC_IDENTITY_TIMEOUT_MS', 5000, 100),
  };
}

/**
 * SVC_EVENT_STORE (`postgres`, the default, or `kurrentdb`) and KURRENTDB_CONNECTION_STRING,
 * required with `kurrentdb`. KurrentDB also needs SVC_RETENTION_ENABLED=false: its purge
 * cannot delete and record atomically, so its store refuses purges
 * (adapters/kurrentdb/store.ts), and a sweeper would only fail.
 */
function eventStoreConfig(env: NodeJS.ProcessEnv): EventStoreConfig {
  const kind = env.SVC_EVENT_STORE?.trim() || 'postgres';
  if (kind === 'postgres') return { kind };
  if (kind !== 'kurrentdb') throw new Error('SVC_EVENT_STORE must be postgres or kurrentdb');
  const connectionString = env.KURRENTDB_CONNECTION_STRING?.trim() ?? '';
  if (connectionString === '') throw new Error('SVC_EVENT_STORE=kurrentdb needs KURRENTDB_CONNECTION_STRING');
  if (!/^(kurrentdb|kurrent|kdb)(\+discover)?:\/\//.test(connectionString)) {
    throw new Error('KURRENTDB_CONNECTION_STRING must be a kurrentdb:// or kurrentdb+discover:// connection string');
  }
  if (bool(env, 'SVC_RETENTION_ENABLED', true)) {
    throw new Error(
      'SVC_EVENT_STORE=kurrentdb needs SVC_RETENTION_ENABLED=false: retention purges need the postgres event store (docs/operations.md "Retention")',
    );
  }
  return { kind, connectionString };
}

/** A boolean variable: true, 1, false or 0; `fallback` when unset. */
function bool(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const raw = (env[name] ?? '').trim().toLowerCase();
  if (raw === '') return fallback;
  if (!['true', '1', 'false', '0'].includes(raw)) throw new Error(`${name} must be true, 1, false or 0`);
  return raw === 'true' || raw === '1';
}

/**
 * SVC_RETENTION_*: the bounds must hold `1 <= min <= default <= max`; the override
 * SVC_RETENTION_DAYS may lie outside them (the policy then reports the window as
 * unavailable instead of refusing to start), but must be a whole number.
 */
function retentionSettings(env: NodeJS.ProcessEnv): RetentionSettings {
  const minDays = int(env, 'SVC_RETENTION_MIN_DAYS', 30, 1);
  const defaultDays = int(env, 'SVC_RETENTION_DEFAULT_DAYS', 365, 1);
  const maxDays = int(env, 'SVC_RETENTION_MAX_DAYS', 3650, 1);
  if (!(minDays <= defaultDays && defaultDays <= maxDays)) {
    throw new Error('SVC_RETENTION_MIN_DAYS <= SVC_RETENTION_DEFAULT_DAYS <= SVC_RETENTION_MAX_DAYS must hold');
  }
  const override = env.SVC_RETENTION_DAYS === undefined || env.SVC_RETENTION_DAYS === '' ? null : int(env, 'SVC_RETENTION_DAYS', 0, 0);
  return {
    enabled: bool(env, 'SVC_RETENTION_ENABLED', true),
    class: env.SVC_RETENTION_CLASS || 'case_records',
    realm: env.SVC_REALM || 'default',
    defaultDays,
    minDays,
    maxDays,
    overrideDays: override,
    sweepIntervalHours: int(env, 'SVC_RETENTION_SWEEP_INTERVAL_HOURS', 24, 1),
    batchLimit: int(env, 'SVC_RETENTION_BATCH_LIMIT', 500, 1),
  };
}

/** A number variable within `bounds` (a whole one when `integer`); `fallback` when unset. */
function bounded(env: NodeJS.ProcessEnv, name: string, fallback: number, bounds: { min: number; max: number }, integer: boolean): number {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || (integer && !Number.isInteger(n)) || n < bounds.min || n > bounds.max) {
    throw new Error(`${name} must be ${integer ? 'an integer' : 'a number'} from ${bounds.min} to ${bounds.max}`);
  }
  return n;
}

/**
 * The AI settings the environment decides. The default data classes are empty: no case
 * data leaves the install until an admin allows a class (`none` also means none).
 */
function aiConfig(env: NodeJS.ProcessEnv): AiConfig {
  const classes = list(env.SVC_AI_DEFAULT_DATA_CLASSES, []).filter((c) => c !== 'none');
  const isClass = (c: string): c is AiDataClass => (aiDataClasses as readonly string[]).includes(c);
  if (!classes.every(isClass)) throw new Error(`SVC_AI_DEFAULT_DATA_CLASSES must list only ${aiDataClasses.join(', ')} (or none)`);
  return {
    killSwitch: bool(env, 'SVC_AI_KILL_SWITCH', false),
    usageDefaults: {
      data_classes: aiDataClasses.filter((c) => classes.includes(c)),
      max_tokens: bounded(env, 'SVC_AI_DEFAULT_MAX_TOKENS', 1024, AI_USAGE_BOUNDS.max_tokens, true),
      temperature: bounded(env, 'SVC_AI_DEFAULT_TEMPERATURE', 0.2, AI_USAGE_BOUNDS.temperature, false),
      timeout_seconds: bounded(env, 'SVC_AI_DEFAULT_TIMEOUT_SECONDS', 30, AI_USAGE_BOUNDS.timeout_seconds, true),
    },
    maxPromptChars: int(env, 'SVC_AI_MAX_PROMPT_CHARS', 60_000, 1),
  };
}

/**
 * SVC_PUBLIC_PREFIX (default `/svc`) without a trailing slash: one or more path segments,
 * never the root, where the console would shadow the API.
 */
function publicPrefix(value: string | undefined): string {
  const prefix = (value ?? '/svc').replace(/\/+$/, '');
  if (!/^(\/[A-Za-z0-9._~-]+)+$/.test(prefix) || prefix.split('/').some((segment) => segment === '.' || segment === '..'))
    throw new Error('SVC_PUBLIC_PREFIX must be a path such as /svc: one or more segments of letters, digits, . _ ~ -');
  return prefix;
}

/** SVC_ATTACK_CATALOG resolved, or null when unset; a path that is not a readable file stops the start (its content is read on first use). */
function attackCatalogPath(value: string | undefined): string | null {
  if (!value) return null;
  const path = resolve(value);
  try {
    accessSync(path, constants.R_OK);
    if (!statSync(path).isFile()) throw new Error('not a file');
  } catch (error) {
    throw new Error(`SVC_ATTACK_CATALOG: ${path} is not a readable file (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  return path;
}

/** SVC_PACK_PUBLIC_KEY as the 32 bytes of an ed25519 public key, or null when unset; a malformed key stops the start. */
function packPublicKey(value: string | undefined): Uint8Array | null {
  if (!value) return null;
  try {
    return publicKeyFromBase64(value);
  } catch (error) {
    throw new Error(`SVC_PACK_PUBLIC_KEY: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** SVC_RUNBOOKS_GIT_URL and its companions; refuses a URL or path the Git source rules forbid. */
function gitSource(env: NodeJS.ProcessEnv): GitSourceConfig | null {
  const url = env.SVC_RUNBOOKS_GIT_URL;
  if (!url) return null;
  const urlProblem = gitUrlProblem(url);
  if (urlProblem) throw new Error(`SVC_RUNBOOKS_GIT_URL ${urlProblem}`);
  const path = env.SVC_RUNBOOKS_GIT_PATH ?? '';
  const pathProblem = gitPathProblem(path);
  if (pathProblem) throw new Error(`SVC_RUNBOOKS_GIT_PATH ${pathProblem}`);
  return {
    url,
    ref: env.SVC_RUNBOOKS_GIT_REF || null,
    path,
    caFile: env.SVC_RUNBOOKS_GIT_CA_FILE ? resolve(env.SVC_RUNBOOKS_GIT_CA_FILE) : null,
    timeoutMs: int(env, 'SVC_RUNBOOKS_GIT_TIMEOUT_MS', 60_000, 1000),
  };
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const role = env.SVC_ROLE ?? 'all';
  if (role !== 'all' && role !== 'api' && role !== 'worker') throw new Error('SVC_ROLE must be all, api or worker');
  const basePath = (env.SVC_BASE_PATH ?? '').replace(/\/+$/, '');
  if (basePath !== '' && !basePath.startsWith('/')) throw new Error('SVC_BASE_PATH must start with /');
  const statuses = list(env.SVC_CASE_STATUSES, ['new', 'in_progress', 'resolved', 'closed']);
  const closedStatuses = list(env.SVC_CASE_CLOSED_STATUSES, ['resolved', 'closed']);
  for (const s of closedStatuses) if (!statuses.includes(s)) throw new Error('SVC_CASE_CLOSED_STATUSES must be a subset of SVC_CASE_STATUSES');
  const mergedStatuses = list(env.SVC_CASE_MERGED_STATUSES, []);
  for (const s of mergedStatuses) if (!statuses.includes(s)) throw new Error('SVC_CASE_MERGED_STATUSES must be a subset of SVC_CASE_STATUSES');
  const initialStatus = statuses[0];
  if (initialStatus === undefined) throw new Error('SVC_CASE_STATUSES must not be empty');
  const severities = list(env.SVC_CASE_SEVERITIES, ['low', 'medium', 'high', 'critical']);
  if (severities.length === 0) throw new Error('SVC_CASE_SEVERITIES must not be empty');
  return {
    port: int(env, 'PORT', 8080, 0),
    host: env.HOST || '127.0.0.1',
    basePath,
    publicPrefix: publicPrefix(env.SVC_PUBLIC_PREFIX),
    consoleDir: resolve(env.SVC_CONSOLE_DIR || './console/dist'),
    dataDir: resolve(env.SVC_DATA_DIR || './data'),
    embeddedSharedBuffers: memorySize(env, 'SVC_EMBEDDED_SHARED_BUFFERS', '32MB'),
    databaseUrl: env.DATABASE_URL || null,
    eventStore: eventStoreConfig(env),
    role,
    audience: env.SVC_AUDIENCE || 'svc',
    identityIssuer: env.SVC_IDENTITY_ISSUER || null,
    identityJwks: env.SVC_IDENTITY_JWKS || null,
    permissionsJson: env.SVC_PERMISSIONS,
    runbooksDir: resolve(env.SVC_RUNBOOKS_DIR || './runbooks'),
    caseTemplatesDir: resolve(env.SVC_CASE_TEMPLATES_DIR || './case-templates'),
    runbooksGit: gitSource(env),
    proxy: {
      httpsProxy: env.https_proxy || env.HTTPS_PROXY || null,
      allProxy: env.all_proxy || env.ALL_PROXY || null,
      noProxy: env.no_proxy || env.NO_PROXY || null,
    },
    detectorBootstrapSecret: env.SVC_DETECTOR_BOOTSTRAP_SECRET || null,
    maxBodyBytes: int(env, 'SVC_MAX_BODY_BYTES', 1024 * 1024, 1024),
    maxJsonDepth: int(env, 'SVC_MAX_JSON_DEPTH', 64, 2),
    maxOpenApiKb: int(env, 'SVC_MAX_OPENAPI_KB', 512, 1),
    packsDir: resolve(env.SVC_PACKS_DIR || './packs'),
    packPublicKey: packPublicKey(env.SVC_PACK_PUBLIC_KEY),
    attackCatalog: attackCatalogPath(env.SVC_ATTACK_CATALOG),
    attachmentMaxBytes: int(env, 'SVC_ATTACHMENT_MAX_BYTES', 25 * 1024 * 1024, 1),
    correlationWindowMs: int(env, 'SVC_CORRELATION_WINDOW', 24 * 3600, 1) * 1000,
    severities,
    statuses,
    closedStatuses,
    mergedStatuses,
    initialStatus,
    dbPoolSize: int(env, 'SVC_DB_POOL_SIZE', DEFAULT_POOL_SIZE, 1),
    dbPoolIdleMs: int(env, 'SVC_DB_POOL_IDLE_S', DEFAULT_POOL_IDLE_MS / 1000, 0) * 1000,
    workerConcurrency: int(env, 'SVC_WORKER_CONCURRENCY', 32, 1),
    workerLeaseMs: int(env, 'SVC_WORKER_LEASE_MS', 30_000, 100),
    pollIntervalMs: int(env, 'SVC_POLL_INTERVAL_MS', 250, 5),
    stepBackoffBaseMs: int(env, 'SVC_STEP_BACKOFF_BASE_MS', 2000, 1),
    gateEvaluationTries: int(env, 'SVC_GATE_EVALUATION_TRIES', 3, 1),
    maxStepVisits: int(env, 'SVC_MAX_STEP_VISITS', 3, 1),
    approvalSettingsTtlMs: int(env, 'SVC_APPROVAL_SETTINGS_TTL_S', 60, 0) * 1000,
    environment: env.SVC_ENVIRONMENT?.trim() || 'production',
    intakeCacheEntries: int(env, 'SVC_INTAKE_CACHE_ENTRIES', 10_000, 1),
    intakeMaxRunLagMs: int(env, 'SVC_INTAKE_MAX_RUN_LAG_S', 10, 0) * 1000,
    embeddedVacuumIntervalMs: int(env, 'SVC_EMBEDDED_VACUUM_INTERVAL_S', 300, 0) * 1000,
    connectionRotationOverlapMs: int(env, 'SVC_CONNECTION_ROTATION_OVERLAP_H', 24, 0) * 3_600_000,
    connectionTestTimeoutMs: int(env, 'SVC_CONNECTION_TEST_TIMEOUT_MS', 15_000, 100),
    mcpIdempotencyMs: int(env, 'SVC_MCP_IDEMPOTENCY_HOURS', 24, 1) * 3_600_000,
    ackSla: ackSlaTargets(env.SVC_ACK_SLA_MINUTES, severities),
    caseListTotalCap: int(env, 'SVC_CASE_LIST_TOTAL_CAP', 1000, 1),
    presenceHeartbeatSeconds: int(env, 'SVC_PRESENCE_HEARTBEAT_SECONDS', 30, 1),
    wsSessionMaxMs: int(env, 'SVC_WS_SESSION_MAX_S', 3600, 1) * 1000,
    chat: { command: chatCommand(env.SVC_CHAT_COMMAND), linkCodeTtlSeconds: int(env, 'SVC_CHAT_LINK_CODE_TTL_S', 600, 60) },
    ticketPoll: {
      tickMs: int(env, 'SVC_TICKET_POLL_TICK_MS', 15_000, 10),
      batch: int(env, 'SVC_TICKET_POLL_BATCH', 50, 1),
      timeoutMs: int(env, 'SVC_TICKET_POLL_TIMEOUT_MS', 15_000, 100),
    },
    installedProducts: installedProducts(env.SVC_INSTALLED_PRODUCTS),
    scheduleTickMs: int(env, 'SVC_SCHEDULE_TICK_MS', 30_000, 10),
    runbookRefreshMs: int(env, 'SVC_RUNBOOK_REFRESH_MS', 10_000, 10),
    retention: retentionSettings(env),
    ai: aiConfig(env),
    outbound: outboundConfig(env),
    exchange: exchangeSettings(env),
    peerTimeoutMs: int(env, 'SVC_PEER_TIMEOUT_MS', 15_000, 100),
    identityService: identityServiceSettings(env),
    backfill: { maxAlerts: int(env, 'SVC_BACKFILL_MAX_ALERTS', 1000, 1), lookbackHours: int(env, 'SVC_BACKFILL_LOOKBACK_H', 24, 1) },
    metrics: {
      token: env.METRICS_TOKEN || null,
      workerPort: int(env, 'SVC_WORKER_METRICS_PORT', 9101, 0),
      workerHost: env.SVC_WORKER_METRICS_HOST || '127.0.0.1',
    },
    metricsWindowDays: int(env, 'SVC_METRICS_WINDOW_DAYS', 30, 1),
    slaAtRiskMinutes: int(env, 'SVC_SLA_AT_RISK_MINUTES', 15, 0),
    logLevel: env.LOG_LEVEL || 'info',
  };
}
