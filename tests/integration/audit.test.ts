/**
 * The audit log on the real service, on every engine (SPEC.md "Audit entry", "Metrics,
 * audit, retention, diagnostics"): what is recorded and by whom, who may read it, paging,
 * and tamper detection by `GET /audit/verify` and by replaying the event store
 * (`svc audit verify`).
 */
import { execFile } from 'node:child_process';
import { rmSync } from 'node:fs';
import { promisify } from 'node:util';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresEventStore } from '../../adapters/event-store/postgres.ts';
import { canonicalJson } from '../../domain/shared/canonical-json.ts';
import { chainHash } from '../../domain/shared/hash-chain.ts';
import { replayVerifyChains } from '../../projections/chains/replay-verify.ts';
import { repoRoot } from '../support/fixtures.ts';
import { callAs, startInProcessService, testPerson, type InProcessService } from '../support/in-process-service.ts';
import { e2eEngines } from '../support/service-process.ts';

const root = testPerson('root@example.com', [{ team: null, role: 'admin' }]);
const blueAdmin = testPerson('blue-admin@example.com', [{ team: 'blue', role: 'admin' }]);
const ana = testPerson('ana@example.com', [{ team: 'blue', role: 'analyst' }]);
const SECRET = 'audit-canary-7f3b2c1d9e';

describe.each(e2eEngines)('audit log on $name', ({ server }) => {
  let svc: InProcessService;
  // The last test stops the service itself, to run the command line on its database.
  let stopped = false;
  beforeAll(async () => {
    svc = await startInProcessService({ server });
  }, 60_000);
  afterAll(async () => {
    if (!stopped) await svc?.close();
  });

  const audit = async (query = '') => {
    const res = await callAs(svc, root, 'GET', `/audit${query}`);
    expect(res.status, res.text).toBe(200);
    return res.body as { items: Record<string, any>[]; next_after: number | null };
  };

  it('records one case.acknowledge per acknowledgement, naming the analyst, the case and its team', async () => {
    const opened = await callAs(svc, ana, 'POST', '/cases', { title: 'Beaconing host', severity: 'high', team: 'blue' });
    expect(opened.status, opened.text).toBe(201);
    const caseId = opened.body.id as string;
    expect((await callAs(svc, ana, 'POST', `/cases/${caseId}/acknowledge`)).status).toBe(200);
    expect((await callAs(svc, ana, 'POST', `/cases/${caseId}/acknowledge`)).status).toBe(200);

    const { items } = await audit(`?action=case.acknowledge&target_id=${caseId}`);
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({
      action: 'case.acknowledge',
      actor: { email: 'ana@example.com', subject: ana.sub, kind: 'user', via: null },
      target: { type: 'case', id: caseId },
      team: 'blue',
      detail: { case_key: opened.body.key },
    });
    expect(items[0]!.hash).toBe(
      chainHash(items[0]!.prev_hash, Object.fromEntries(Object.entries(items[0]!).filter(([k]) => !['index', 'prev_hash', 'hash'].includes(k)))),
    );
  });

  it('records connection, webhook source and runbook changes without a secret value', async () => {
    const created = await callAs(svc, root, 'POST', '/connections', {
      kind: 'webhook',
      name: 'soc-hook',
      base_url: 'https://hooks.example/soc',
      secret: SECRET,
    });
    expect(created.status, created.text).toBe(201);
    const id = created.body.id as string;
    expect((await callAs(svc, root, 'PUT', `/connections/${id}`, { secret: `${SECRET}-2`, name: 'soc-hook-2' })).status).toBe(200);
    expect((await callAs(svc, root, 'POST', `/connections/${id}/rotate`, { secret: `${SECRET}-3` })).status).toBe(200);
    expect((await callAs(svc, root, 'DELETE', `/connections/${id}`)).status).toBe(204);
    const source = await callAs(svc, root, 'POST', '/webhook-sources', { type: 'detector', slug: 'edr-main', name: 'EDR', team: 'blue' });
    expect(source.status, source.text).toBe(201);
    expect((await callAs(svc, root, 'POST', `/webhook-sources/${source.body.id}/rotate`)).status).toBe(200);
    expect((await callAs(svc, root, 'POST', '/runbooks/sync')).status).toBe(200);

    const { items } = await audit('?target_type=connection');
    expect(items.map((e) => [e.action, e.target.id])).toEqual([
      ['connection.create', id],
      ['connection.update', id],
      ['connection.rotate', id],
      ['connection.delete', id],
    ]);
    expect(items[1]!.detail).toEqual({ kind: 'webhook', name: 'soc-hook-2', changed: ['name', 'secret'] });
    expect(items.every((e) => e.actor.email === 'root@example.com')).toBe(true);
    const sources = await audit('?target_type=webhook_source');
    expect(sources.items.map((e) => [e.action, e.team, e.detail.slug])).toEqual([
      ['webhook_source.create', 'blue', 'edr-main'],
      ['webhook_source.rotate_token', 'blue', 'edr-main'],
    ]);
    expect((await audit('?action=runbook.sync')).items).toHaveLength(1);
    const everything = JSON.stringify((await audit('?limit=500')).items);
    expect(everything).not.toContain(SECRET);
    expect(everything).not.toContain('whs_');
  });

  it('is install-wide admin only, for people and for exchange tokens', async () => {
    expect((await callAs(svc, ana, 'GET', '/audit')).status).toBe(403);
    const teamAdmin = await callAs(svc, blueAdmin, 'GET', '/audit/verify');
    expect(teamAdmin.status).toBe(403);
    expect(teamAdmin.body.code).toBe('forbidden');
    const exchange = async (scope: string) =>
      svc.request('/audit', {
        headers: {
          authorization: `Bearer ${await svc.identity.sign({ token_use: 'exchange', sub: 'settings', scope, act: { sub: root.sub, email: root.email, grants: root.grants } })}`,
        },
      });
    expect((await exchange('svc:cases:read')).status).toBe(403);
    expect((await exchange('svc:admin:read')).status).toBe(200);
    const bad = await callAs(svc, root, 'GET', '/audit?limit=0&action=case.delete');
    expect(bad.status).toBe(422);
    expect(bad.body.detail.map((d: { loc: string[] }) => d.loc)).toEqual(
      expect.arrayContaining([
        ['query', 'limit'],
        ['query', 'action'],
      ]),
    );
  });

  it('pages oldest first from the last index seen', async () => {
    const all = (await audit('?limit=500')).items;
    expect(all.length).toBeGreaterThanOrEqual(5);
    expect(all.map((e) => e.index)).toEqual(all.map((_e, i) => i));
    const first = await audit('?limit=2');
    expect(first.items.map((e) => e.index)).toEqual([0, 1]);
    expect(first.next_after).toBe(1);
    const second = await audit(`?limit=2&after=${first.next_after}`);
    expect(second.items.map((e) => e.index)).toEqual([2, 3]);
    expect(second.items[0]!.prev_hash).toBe(first.items[1]!.hash);
  });

  // Last: it breaks the chain for the rest of this service's life.
  it('finds a tampered row in the table and, after the chain is re-hashed over it, by replaying the events', async () => {
    const { db } = svc.service.opened;
    const store = new PostgresEventStore(db);
    const head = await store.headPosition();
    const readAll = (after: number, limit: number) => store.readAll(after, limit);
    expect((await callAs(svc, root, 'GET', '/audit/verify')).body).toEqual({ valid: true, checked: expect.any(Number), first_broken_index: null });
    const intact = await replayVerifyChains(db, readAll, head);
    expect(intact.audit_log).toEqual({ valid: true, replayed: expect.any(Number), first_mismatch_index: null });
    expect(intact.action_log.valid).toBe(true);

    // Someone with database access rewrites who acknowledged: the stored hashes stay.
    const target = 0;
    const stored = await db.selectFrom('audit_log').select('row').where('chain_index', '=', target).executeTakeFirstOrThrow();
    const forged = { ...stored.row, actor: { ...(stored.row.actor as object), email: 'someone-else@example.com' } };
    await db
      .updateTable('audit_log')
      .set({ row: JSON.stringify(forged) })
      .where('chain_index', '=', target)
      .execute();
    const verify = await callAs(svc, root, 'GET', '/audit/verify');
    expect(verify.body).toEqual({ valid: false, checked: target + 1, first_broken_index: target });

    // A careful forger stores the canonical text and recomputes every hash from there on: the table chain holds again...
    const rows = await db.selectFrom('audit_log').select(['chain_index', 'row', 'prev_hash']).orderBy('chain_index').execute();
    let prev = rows[0]!.prev_hash;
    for (const r of rows) {
      const hash = chainHash(prev, r.row);
      await db
        .updateTable('audit_log')
        .set({ row: canonicalJson(r.row), prev_hash: prev, hash })
        .where('chain_index', '=', r.chain_index)
        .execute();
      prev = hash;
    }
    expect((await callAs(svc, root, 'GET', '/audit/verify')).body.valid).toBe(true);
    // ...but the events still say who acknowledged.
    const replayed = await replayVerifyChains(db, readAll, head);
    expect(replayed.audit_log).toEqual({ valid: false, replayed: expect.any(Number), first_mismatch_index: target });
    expect(replayed.action_log.valid).toBe(true);

    // A removed row shows too.
    const last = Number((await sql<{ n: number }>`select max(chain_index) as n from audit_log`.execute(db)).rows[0]!.n);
    await db.deleteFrom('audit_log').where('chain_index', '=', last).execute();
    expect((await replayVerifyChains(db, readAll, head)).audit_log.first_mismatch_index).toBe(target);

    // The command line gives the same verdict, with a failing exit status.
    stopped = true;
    await svc.service.close();
    const cli = await promisify(execFile)(process.execPath, ['bin/svc.js', 'audit', 'verify'], { cwd: repoRoot, env: { ...process.env, ...svc.env } }).then(
      () => ({ code: 0, stdout: '' }),
      (error: { code: number; stdout: string }) => ({ code: error.code, stdout: error.stdout }),
    );
    expect(cli.code).toBe(1);
    const report = JSON.parse(cli.stdout);
    expect(report.audit_log).toMatchObject({ table: { valid: true }, replay: { valid: false, first_mismatch_index: target } });
    expect(report.action_log.replay.valid).toBe(true);
    if (svc.env.SVC_DATA_DIR) rmSync(svc.env.SVC_DATA_DIR, { recursive: true, force: true });
  }, 60_000);
});
