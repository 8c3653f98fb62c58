/**
 * `svc audit verify`: the auditor's check of both hash chains (docs/operations.md
 * "Audit log"). Prints one JSON document,
 * `{position, action_log: {table, replay}, audit_log: {table, replay}}`, where `table`
 * recomputes the stored chain (`{valid, checked, first_broken_index}`, as
 * `GET /audit/verify`) and `replay` recomputes it from the event store
 * (projections/chains/replay-verify.ts). Exit status 0 when all four hold, 1 otherwise.
 * Reads the database and the event store of the current configuration (DATABASE_URL or
 * SVC_DATA_DIR, SVC_EVENT_STORE); with the embedded engine the service must be stopped
 * first (PGlite opens one process).
 */
import { openDatabase } from '../../adapters/db/connect.ts';
import { verifyChainTable } from '../../projections/chains/chain-table.ts';
import { replayVerifyChains } from '../../projections/chains/replay-verify.ts';
import type { Config } from '../config.ts';
import { openEventStore } from '../event-store.ts';
import { migrateToLatest } from '../migrate.ts';

/** Writes the report (JSON) to `write` and resolves with the exit status (0 intact, 1 not); rejects when the database cannot be opened. */
export async function runAuditVerify(config: Config, write: (text: string) => void): Promise<number> {
  const opened = await openDatabase(config.databaseUrl ? { databaseUrl: config.databaseUrl } : { dataDir: config.dataDir });
  try {
    await migrateToLatest(opened.db);
    const checkpoint = await opened.db.selectFrom('projection_checkpoints').select('position').where('name', '=', 'main').executeTakeFirst();
    const position = Number(checkpoint?.position ?? 0);
    const events = await openEventStore(config.eventStore, opened.db);
    const replay = await replayVerifyChains(opened.db, (after, limit) => events.store.readAll(after, limit), position).finally(() => events.close());
    const report = {
      position,
      action_log: { table: await verifyChainTable(opened.db, 'action_log'), replay: replay.action_log },
      audit_log: { table: await verifyChainTable(opened.db, 'audit_log'), replay: replay.audit_log },
    };
    write(`${JSON.stringify(report, null, 2)}\n`);
    const intact = [report.action_log, report.audit_log].every((c) => c.table.valid && c.replay.valid);
    return intact ? 0 : 1;
  } finally {
    await opened.close();
  }
}
