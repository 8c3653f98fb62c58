/**
 * Carries an embedded data directory across a PostgreSQL major version (docs/architecture.md
 * "Engines"). PGlite opens only a directory of its own major: this build runs PGlite 0.5
 * (PostgreSQL 18), and a directory written by 0.4 (PostgreSQL 17) fails with "PGlite
 * failed to initialize properly". So before opening, a PostgreSQL 17 directory is dumped
 * with pg_dump (the PGlite tools build that matches 0.4, run on PGlite 0.4 itself, both
 * loaded only here) and restored into a new directory by this build's PGlite; every
 * table's row count must match before the new directory takes the old one's place. The
 * old directory stays beside it as `<dir>.pg17` until an operator removes it.
 *
 * Crash safety: the new directory is built as `<dir>.upgrading` and moved into place by
 * two renames (old aside, new in). A start that finds `<dir>` missing but both others
 * present finishes the second rename; a leftover `<dir>.upgrading` beside an intact old
 * directory is a restore that never finished, and is built again.
 */
import { existsSync, readFileSync, renameSync, rmSync } from 'node:fs';
import type { PGlite } from '@electric-sql/pglite';

/** The PostgreSQL major version of the PGlite this build runs (checked by a test). */
export const EMBEDDED_MAJOR = 18;
/** The one older major this build can upgrade from. */
const UPGRADABLE_MAJOR = 17;

/** What {@link prepareEmbeddedDataDir} found: a new or current directory, or one it upgraded (the old one kept at `kept`). */
export type EmbeddedDataDirState = { kind: 'new' | 'current' } | { kind: 'upgraded'; from: number; kept: string; tables: number; rows: number };

/** Row counts of every table of the public schema, by name. */
type RowCounts = Map<string, number>;
/** The part of either PGlite's API the counts need. */
type Queryable = { query: <T>(text: string) => Promise<{ rows: T[] }> };

/**
 * Makes `dir` (a PGlite data directory, `<SVC_DATA_DIR>/pgdata`) openable by this
 * build's PGlite, upgrading a PostgreSQL 17 one. Throws, leaving the old directory
 * untouched, on any other major or when the restored copy differs.
 */
export async function prepareEmbeddedDataDir(dir: string): Promise<EmbeddedDataDirState> {
  const staging = `${dir}.upgrading`;
  const kept = `${dir}.pg${UPGRADABLE_MAJOR}`;
  if (!existsSync(dir) && existsSync(staging) && existsSync(kept)) renameSync(staging, dir);
  const major = majorOf(dir);
  if (major === null) return { kind: 'new' };
  if (major === EMBEDDED_MAJOR) return { kind: 'current' };
  if (major !== UPGRADABLE_MAJOR) {
    throw new Error(
      `the embedded data directory ${dir} was written by PostgreSQL ${major}; this build runs ${EMBEDDED_MAJOR} and upgrades only from ${UPGRADABLE_MAJOR}`,
    );
  }
  if (existsSync(kept)) throw new Error(`cannot upgrade ${dir}: ${kept} already exists (an earlier upgrade's copy); move it away first`);
  rmSync(staging, { recursive: true, force: true });
  const { dump, counts } = await dumpOld(dir);
  const restored = await restoreNew(staging, dump);
  const differ = [...counts].filter(([table, rows]) => restored.get(table) !== rows).map(([table]) => table);
  if (differ.length > 0 || restored.size !== counts.size) {
    rmSync(staging, { recursive: true, force: true });
    throw new Error(`upgrade of ${dir} stopped, nothing changed: the restored copy differs in ${differ.join(', ') || 'its tables'}`);
  }
  renameSync(dir, kept);
  renameSync(staging, dir);
  return { kind: 'upgraded', from: major, kept, tables: counts.size, rows: [...counts.values()].reduce((a, b) => a + b, 0) };
}

/** The one line that tells an operator of an upgrade `prepareEmbeddedDataDir` made (for the log and `svc migrate`); null when it made none. */
export function upgradeNotice(state: EmbeddedDataDirState | null): string | null {
  if (state?.kind !== 'upgraded') return null;
  return `upgraded the embedded data directory from PostgreSQL ${state.from} to ${EMBEDDED_MAJOR} (${state.tables} tables, ${state.rows} rows); the old one is kept at ${state.kept} until you remove it`;
}

/** The major version in `dir/PG_VERSION`, or null for a directory PGlite has not initialized. */
function majorOf(dir: string): number | null {
  const file = `${dir}/PG_VERSION`;
  return existsSync(file) ? Number.parseInt(readFileSync(file, 'utf8').trim(), 10) : null;
}

/** pg_dump of the PostgreSQL 17 directory (plain SQL, no owners or grants: PGlite has one role) and its row counts. */
async function dumpOld(dir: string): Promise<{ dump: string; counts: RowCounts }> {
  const [{ PGlite: OldPGlite }, { pgDump }] = await Promise.all([import('pglite-pg17'), import('pglite-tools-pg17/pg_dump')]);
  const old = new OldPGlite(dir);
  try {
    await old.waitReady;
    const counts = await rowCounts(old);
    // pgDump is typed against this build's PGlite; at run time it only calls the instance's own API, which 0.4 has.
    const file = await pgDump({ pg: old as unknown as PGlite, args: ['--no-owner', '--no-privileges'] });
    return { dump: await file.text(), counts };
  } finally {
    await old.close();
  }
}

/** Restores `dump` into a new directory at `dir` and answers its row counts. */
async function restoreNew(dir: string, dump: string): Promise<RowCounts> {
  const [{ PGlite }, { embeddedOptions }] = await Promise.all([import('@electric-sql/pglite'), import('./embedded-options.ts')]);
  const fresh = new PGlite(dir, embeddedOptions);
  try {
    await fresh.waitReady;
    await fresh.exec(dump);
    // pg_dump empties search_path for its session; count with it back.
    await fresh.exec('set search_path to public');
    return await rowCounts(fresh);
  } finally {
    await fresh.close();
  }
}

async function rowCounts(db: Queryable): Promise<RowCounts> {
  const tables = (await db.query<{ tablename: string }>(`select tablename from pg_tables where schemaname = 'public' order by 1`)).rows;
  const counts: RowCounts = new Map();
  for (const { tablename } of tables) {
    const [row] = (await db.query<{ n: number }>(`select count(*)::int as n from public."${tablename.replaceAll('"', '""')}"`)).rows;
    counts.set(tablename, row?.n ?? 0);
  }
  return counts;
}
