/**
 * Migrated once, copied per test: every test database starts from a copy of one
 * migrated schema instead of running initdb and the migrations again.
 *
 * - PGlite: initdb in WebAssembly costs about 3 s a database on our two-CPU machines, a
 *   copy of a migrated data directory 0.2 s (disk) or a tar image about 1 s (memory).
 * - PostgreSQL: `create database ... template` copies the migrated template database.
 *
 * Vitest's global setup (tests/support/global-setup.ts) builds the copies before any
 * worker starts, under a key that changes with every migration file and the PGlite
 * build, so a schema change can never be served from a stale copy. A service still runs
 * its migrations at start: on a copy they find nothing to do.
 */
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import { openDatabase } from '../../adapters/db/connect.ts';
import { migrateToLatest } from '../../runtime/migrate.ts';
import { repoRoot } from './fixtures.ts';

const migrationDirs = ['projections/migrations', 'adapters/event-store/migrations'];

/** 16 hex digits over every migration file's name and text and the PGlite version. */
function schemaKey(): string {
  const hash = createHash('sha256');
  for (const dir of migrationDirs) {
    for (const file of readdirSync(join(repoRoot, dir)).sort()) hash.update(`${dir}/${file}\0`).update(readFileSync(join(repoRoot, dir, file)));
  }
  hash.update(readFileSync(join(repoRoot, 'node_modules/@electric-sql/pglite/package.json')));
  return hash.digest('hex').slice(0, 16);
}

const key = schemaKey();
const cacheDir = join(repoRoot, 'node_modules/.cache/svc-test-schema');
const embeddedCopy = join(cacheDir, key);
const templatePrefix = 'svc_template_';

/** The name of the migrated template database on the test server. */
export const serverTemplate = `${templatePrefix}${key}`;

/**
 * Builds what is missing (global setup, once per `vitest run`): a migrated PGlite data
 * directory and its tar image under node_modules/.cache, and, when `serverUrl` is given,
 * the migrated template database there (dropping templates of earlier schemas).
 */
export async function prepareMigratedDatabases(serverUrl: string | undefined): Promise<void> {
  if (!existsSync(join(embeddedCopy, 'image.tar'))) {
    const building = `${embeddedCopy}.building-${process.pid}`;
    rmSync(building, { recursive: true, force: true });
    mkdirSync(building, { recursive: true });
    const opened = await openDatabase({ dataDir: building });
    await migrateToLatest(opened.db);
    const image = await opened.embedded?.dumpDataDir('none');
    await opened.close();
    if (!image) throw new Error('PGlite gave no data directory image');
    writeFileSync(join(building, 'image.tar'), Buffer.from(await image.arrayBuffer()));
    for (const old of existsSync(cacheDir) ? readdirSync(cacheDir) : []) {
      if (old !== key && !old.includes('.building-')) rmSync(join(cacheDir, old), { recursive: true, force: true });
    }
    if (existsSync(embeddedCopy)) rmSync(building, { recursive: true, force: true });
    else renameSync(building, embeddedCopy);
  }
  if (serverUrl) await prepareServerTemplate(serverUrl);
}

async function prepareServerTemplate(serverUrl: string): Promise<void> {
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    const { rows } = await admin.query<{ datname: string }>('select datname from pg_database where datname like $1', [`${templatePrefix}%`]);
    for (const { datname } of rows) if (datname !== serverTemplate) await admin.query(`drop database if exists ${datname}`);
    if (rows.some((r) => r.datname === serverTemplate)) return;
    const building = `${serverTemplate}_building`;
    await admin.query(`drop database if exists ${building}`);
    await admin.query(`create database ${building}`);
    const url = new URL(serverUrl);
    url.pathname = `/${building}`;
    const opened = await openDatabase({ databaseUrl: url.toString(), poolSize: 1 });
    try {
      await migrateToLatest(opened.db);
    } finally {
      await opened.close();
    }
    await admin.query(`alter database ${building} rename to ${serverTemplate}`);
  } finally {
    await admin.end();
  }
}

/** Copies the migrated PGlite data directory to `<dataDir>/pgdata`, where the service opens it. */
export function seedEmbeddedDataDir(dataDir: string): void {
  cpSync(join(embeddedCopy, 'pgdata'), join(dataDir, 'pgdata'), { recursive: true });
}

let image: Promise<Blob> | null = null;

/** The migrated PGlite data directory as a tar image, for an in-memory database (read once per worker). */
export function migratedEmbeddedImage(): Promise<Blob> {
  image ??= readFile(join(embeddedCopy, 'image.tar')).then((bytes) => new Blob([bytes]));
  return image;
}
