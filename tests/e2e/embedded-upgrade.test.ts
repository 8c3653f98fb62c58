/**
 * An embedded data directory written by an earlier build (PGlite 0.4, PostgreSQL 17) is
 * upgraded when this build (PGlite 0.5, PostgreSQL 18) starts on it: the real service
 * first runs on PostgreSQL 17 (a module hook swaps the PGlite it loads) and takes an
 * alert that opens a case and runs a runbook, then this build starts on the same
 * directory. Everything is still there, both chains verify as before, the next alert
 * continues the history, and the old directory is kept beside the new one. A directory
 * of another major is refused with nothing changed, and a crash between the upgrade's two
 * renames is finished at the next start. `svc migrate` tells of an upgrade it made.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PGlite } from '@electric-sql/pglite';
import { PGlite as PGlite17 } from 'pglite-pg17';
import { afterAll, describe, expect, it } from 'vitest';
import { EMBEDDED_MAJOR, prepareEmbeddedDataDir } from '../../adapters/db/embedded-upgrade.ts';
import { repoRoot } from '../support/fixtures.ts';
import { oneStepRunbookYaml } from '../support/runbook-definitions.ts';
import { createTestIdentity, engineEnv, type ServiceProcess, startServiceProcess } from '../support/service-process.ts';

const runbook = oneStepRunbookYaml('upgrade-note', 'case.update', '{ comment: "seen {{ run.id }}" }', '{ type: alert, conditions: { source: detector } }');

describe('the embedded data directory across a PostgreSQL major version', () => {
  const started: ServiceProcess[] = [];
  afterAll(async () => {
    await Promise.allSettled(started.map((p) => p.stop()));
  }, 30_000);

  it('runs this build on the PostgreSQL the bundled PGlite ships', async () => {
    const pg = new PGlite();
    const { rows } = await pg.query<{ server_version_num: string }>('show server_version_num');
    await pg.close();
    expect(Math.floor(Number(rows[0]?.server_version_num) / 10_000)).toBe(EMBEDDED_MAJOR);
  });

  it('upgrades a PostgreSQL 17 directory with its whole history, and keeps the old one', async () => {
    const identity = await createTestIdentity();
    const runbooksDir = mkdtempSync(join(tmpdir(), 'svc-upgrade-runbooks-'));
    writeFileSync(join(runbooksDir, 'upgrade-note.yml'), runbook);
    const env: Record<string, string> = { ...engineEnv(identity, null, { emptyDataDir: true }), SVC_RUNBOOKS_DIR: runbooksDir };
    const pgdata = join(String(env.SVC_DATA_DIR), 'pgdata');
    const headers = { authorization: `Bearer ${await identity.mint([{ team: null, role: 'admin' }])}` };
    const intake = (url: string, id: string) =>
      fetch(`${url}/webhooks/detector`, {
        method: 'POST',
        headers: { 'x-svc-token': 'e2e-bootstrap-secret', 'content-type': 'application/json' },
        body: JSON.stringify({ alert_id: id, rule: { id: `r-${id}`, title: `Rule ${id}`, severity: 'high' }, matched_log: { source: { ip: '203.0.113.7' } } }),
      });
    const get = async (url: string, path: string) => (await (await fetch(`${url}${path}`, { headers })).json()) as any;
    // The acknowledgement clock's elapsed_seconds counts on between the two reads; everything else must be equal.
    const listCases = async (url: string) => JSON.parse(JSON.stringify((await get(url, '/cases')).items, (k, v) => (k === 'elapsed_seconds' ? undefined : v)));
    const runsSettled = async (url: string, count: number) =>
      expect
        .poll(async () => (await get(url, '/runs')).items.filter((r: { status: string }) => r.status === 'succeeded').length, { timeout: 20_000 })
        .toBe(count);

    const earlier = await startServiceProcess({ ...env, NODE_OPTIONS: `--import ${join(repoRoot, 'tests/support/pglite-pg17.mjs')}` });
    started.push(earlier);
    expect((await intake(earlier.url, 'before')).status).toBe(202);
    await runsSettled(earlier.url, 1);
    const before = {
      cases: await listCases(earlier.url),
      runChain: await get(earlier.url, '/runs/chain/verify'),
      auditChain: await get(earlier.url, '/audit/verify'),
    };
    await earlier.stop();
    expect(readFileSync(join(pgdata, 'PG_VERSION'), 'utf8').trim()).toBe('17');

    const current = await startServiceProcess({ ...env, LOG_LEVEL: 'info' });
    started.push(current);
    expect(readFileSync(join(pgdata, 'PG_VERSION'), 'utf8').trim()).toBe(String(EMBEDDED_MAJOR));
    expect(readFileSync(join(`${pgdata}.pg17`, 'PG_VERSION'), 'utf8').trim()).toBe('17');
    expect(current.output()).toContain('upgraded the embedded data directory');
    expect(await listCases(current.url)).toEqual(before.cases);
    expect(await get(current.url, '/runs/chain/verify')).toEqual(before.runChain);
    expect(await get(current.url, '/audit/verify')).toEqual(before.auditChain);
    expect(before.runChain).toMatchObject({ valid: true, checked: 1 });

    // The history goes on from where it was: a new case with the next number, and its run chained after the first.
    expect((await intake(current.url, 'after')).status).toBe(202);
    await runsSettled(current.url, 2);
    const keys = (await get(current.url, '/cases')).items.map((c: { key: string }) => c.key).sort();
    expect(keys).toEqual(['SVC-1', 'SVC-2']);
    expect(await get(current.url, '/runs/chain/verify')).toMatchObject({ valid: true, checked: 2, first_broken_index: null });
    await current.stop();
  }, 120_000);

  it('refuses a directory of a major it cannot upgrade from, changing nothing', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'svc-upgrade-')), 'pgdata');
    const pg = new PGlite(dir);
    await pg.close();
    writeFileSync(join(dir, 'PG_VERSION'), '16\n');
    await expect(prepareEmbeddedDataDir(dir)).rejects.toThrow(/written by PostgreSQL 16; this build runs 18 and upgrades only from 17/);
    expect(readFileSync(join(dir, 'PG_VERSION'), 'utf8')).toBe('16\n');
    expect(existsSync(`${dir}.upgrading`)).toBe(false);
  });

  it('finishes an upgrade a crash cut between its two renames', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'svc-upgrade-')), 'pgdata');
    const restored = new PGlite(`${dir}.upgrading`);
    await restored.query('create table kept_through (x int)');
    await restored.close();
    mkdirSync(`${dir}.pg17`);
    writeFileSync(join(`${dir}.pg17`, 'PG_VERSION'), '17\n');
    expect(await prepareEmbeddedDataDir(dir)).toEqual({ kind: 'current' });
    expect(existsSync(`${dir}.upgrading`)).toBe(false);
    const reopened = new PGlite(dir);
    expect((await reopened.query(`select count(*)::int as n from pg_tables where tablename = 'kept_through'`)).rows).toEqual([{ n: 1 }]);
    await reopened.close();
  });

  it('says so when `svc migrate` is what upgrades the directory', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-upgrade-'));
    const earlier = new PGlite17(join(dataDir, 'pgdata'));
    await earlier.close();
    const { stdout } = await promisify(execFile)(process.execPath, ['bin/svc.js', 'migrate'], {
      cwd: repoRoot,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', SVC_DATA_DIR: dataDir },
    });
    expect(stdout).toContain(
      `upgraded the embedded data directory from PostgreSQL 17 to ${EMBEDDED_MAJOR} (0 tables, 0 rows); the old one is kept at ${join(dataDir, 'pgdata.pg17')}`,
    );
    expect(stdout).toContain('applied:');
  }, 60_000);
});
