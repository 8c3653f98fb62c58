/**
 * The core every feature wires onto (CONTRACTS.md section 1): the failure log, the
 * database with its migrations, the secret box, the event store, the audit log, the
 * attachment store and the retention policy. Opened first; closed last by runtime/boot.ts.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { createFilesystemStore } from '../../adapters/attachments/filesystem.ts';
import type { FileStore } from '../../adapters/attachments/port.ts';
import { createAuditLog, type AuditLog } from '../../adapters/commands/audit.ts';
import { createSecretBox, type SecretBox } from '../../adapters/connections/secret-box.ts';
import { openDatabase, type OpenedDatabase } from '../../adapters/db/connect.ts';
import { upgradeNotice } from '../../adapters/db/embedded-upgrade.ts';
import { createErrorCounts, type ErrorClass, type ErrorCounts } from '../../adapters/diagnostics/error-counts.ts';
import type { EventStore } from '../../adapters/event-store/port.ts';
import type { Clock } from '../../adapters/shared/clock.ts';
import { resolveRetentionPolicy, type RetentionPolicy } from '../../domain/retention/policy.ts';
import type { Database } from '../../projections/database.ts';
import type { Config } from '../config.ts';
import { startEmbeddedVacuum, type EmbeddedVacuum } from '../embedded-vacuum.ts';
import { openEventStore, type OpenedEventStore } from '../event-store.ts';
import { migrateToLatest } from '../migrate.ts';
import { loadSecretKey } from '../secret-key.ts';

/** Logs a failure and counts it by class for `GET /diagnostics`. */
export type Failure = (type: ErrorClass, message: string) => (error: unknown, context?: Record<string, unknown>) => void;

export type Core = {
  config: Config;
  env: NodeJS.ProcessEnv;
  log: Logger;
  now: Clock;
  ids: () => string;
  failure: Failure;
  errorCounts: ErrorCounts;
  opened: OpenedDatabase;
  db: Kysely<Database>;
  events: OpenedEventStore;
  store: EventStore;
  box: SecretBox;
  audit: AuditLog;
  files: FileStore;
  retentionPolicy: RetentionPolicy;
  /** PGlite's vacuum of the queue tables (SVC_EMBEDDED_VACUUM_INTERVAL_MS); null on a server. */
  vacuum: EmbeddedVacuum | null;
};

/** Opens the database (migrated to the latest schema) and the event store it names. Throws what opening or migrating throws. */
export async function openCore(config: Config, env: NodeJS.ProcessEnv, log: Logger, now: Clock): Promise<Core> {
  const errorCounts = createErrorCounts(now);
  const failure: Failure =
    (type, message) =>
    (error, context = {}) => {
      errorCounts.record(type);
      log.error({ err: error, ...context }, message);
    };
  const opened = await openDatabase(
    config.databaseUrl
      ? {
          databaseUrl: config.databaseUrl,
          poolSize: config.dbPoolSize,
          poolIdleMs: config.dbPoolIdleMs,
          onConnectionLost: failure('database.connection_lost', 'the database server ended a connection'),
        }
      : { dataDir: config.dataDir, sharedBuffers: config.embeddedSharedBuffers },
  );
  const { db } = opened;
  const upgraded = upgradeNotice(opened.dataDir);
  if (upgraded) log.info(upgraded);
  await migrateToLatest(db);
  const box = createSecretBox(loadSecretKey(env, config.dataDir));
  const ids = () => randomUUID();
  const events = await openEventStore(config.eventStore, db);
  const vacuum =
    opened.engine === 'pglite' && config.embeddedVacuumIntervalMs > 0
      ? startEmbeddedVacuum(db, config.embeddedVacuumIntervalMs, failure('database.vacuum_failed', 'vacuum of the embedded queue tables failed'))
      : null;
  return {
    config,
    env,
    log,
    now,
    ids,
    failure,
    errorCounts,
    opened,
    db,
    events,
    store: events.store,
    box,
    audit: createAuditLog({ store: events.store, ids, now }),
    files: createFilesystemStore(join(config.dataDir, 'attachments')),
    retentionPolicy: resolveRetentionPolicy(config.retention),
    vacuum,
  };
}
