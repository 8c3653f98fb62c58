/**
 * `GET /diagnostics` on the real service, on every engine (SPEC.md "Metrics, audit,
 * retention, diagnostics"): the `suite-diagnostics/v1` key set is closed, settings show
 * presence and type only (never a secret's value), errors are counts by class, and two
 * captures of an unchanged service differ only in `generatedAt`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrationProvider } from '../../runtime/schema-migrations.ts';
import { SETTINGS } from '../../runtime/diagnostics.ts';
import { callAs, startInProcessService, testPerson, type InProcessService } from '../support/in-process-service.ts';
import { e2eEngines } from '../support/service-process.ts';
import { repoRoot } from '../support/fixtures.ts';
import { manualClock } from '../support/clock.ts';

const CANARY_TOKEN = 'canary-metrics-3e8f1a2b7c';
const CANARY_BOOTSTRAP = 'canary-bootstrap-9d4c6e0f1a';

const root = testPerson('root@example.com', [{ team: null, role: 'admin' }]);
const blueAdmin = testPerson('blue-admin@example.com', [{ team: 'blue', role: 'admin' }]);

describe.each(e2eEngines)('diagnostics on $name', ({ server }) => {
  let svc: InProcessService;
  const clock = manualClock(new Date());
  beforeAll(async () => {
    svc = await startInProcessService(
      { server },
      { clock: clock.now, extraEnv: { METRICS_TOKEN: CANARY_TOKEN, SVC_DETECTOR_BOOTSTRAP_SECRET: CANARY_BOOTSTRAP } },
    );
  }, 60_000);
  afterAll(async () => svc?.close());

  const capture = async () => {
    const res = await callAs(svc, root, 'GET', '/diagnostics');
    expect(res.status, res.text).toBe(200);
    return res;
  };

  it('answers the closed suite-diagnostics/v1 document with settings as presence and type', async () => {
    const { body, text } = await capture();
    expect(Object.keys(body).sort()).toEqual(['configShape', 'errors', 'generatedAt', 'health', 'migrations', 'module', 'schema', 'versions']);
    const latest = Object.keys(await migrationProvider.getMigrations())
      .sort()
      .at(-1);
    expect(body).toMatchObject({ schema: 'suite-diagnostics/v1', module: 'svc', migrations: { current: latest, pending: [] } });
    expect(body.versions.module).toMatch(/^\d+\.\d+\.\d+/);
    expect(Object.keys(body.versions.dependencies)).toContain('kysely');
    expect(Object.keys(body.configShape).sort()).toEqual(Object.keys(SETTINGS).sort());
    expect(body.configShape.METRICS_TOKEN).toEqual({ present: true, type: 'secret' });
    expect(body.configShape.SVC_SECRET_KEY).toEqual({ present: true, type: 'secret' });
    expect(body.configShape.SVC_IDENTITY_URL).toEqual({ present: false, type: 'url' });
    expect(body.configShape.DATABASE_URL).toEqual({ present: server, type: 'secret' });
    for (const setting of Object.values(body.configShape) as Record<string, unknown>[]) expect(Object.keys(setting).sort()).toEqual(['present', 'type']);
    for (const secret of [CANARY_TOKEN, CANARY_BOOTSTRAP, svc.env.SVC_SECRET_KEY, svc.env.DATABASE_URL].filter(Boolean)) expect(text).not.toContain(secret);
    expect(body.errors).toEqual([]);
  });

  it('lists every setting runtime/config.ts reads, so none goes unreported', () => {
    const code = readFileSync(join(repoRoot, 'runtime/config.ts'), 'utf8')
      .split('\n')
      .filter((line) => !/^\s*(\*|\/\/|\/\*)/.test(line))
      .join('\n');
    const read = [...new Set(code.match(/\bSVC_[A-Z0-9_]*[A-Z0-9]\b/g) ?? [])];
    expect(read.filter((name) => !(name in SETTINGS))).toEqual([]);
  });

  it('gives the same document twice but for generatedAt', async () => {
    await expect.poll(async () => (await capture()).body.health, { timeout: 10_000 }).toEqual({ database: 'ok', projector: 'ok', worker: 'ok' });
    const first = (await capture()).body;
    clock.advance(1500);
    const second = (await capture()).body;
    expect(Date.parse(second.generatedAt) - Date.parse(first.generatedAt)).toBe(1500);
    expect({ ...second, generatedAt: null }).toEqual({ ...first, generatedAt: null });
  });

  it('counts errors by class, never with their message or the table they named', async () => {
    const { db } = svc.service.opened;
    await sql`alter table alerts rename to alerts_unavailable`.execute(db);
    try {
      expect((await callAs(svc, root, 'GET', '/alerts')).status).toBe(500);
      expect((await callAs(svc, root, 'GET', '/alerts')).status).toBe(500);
    } finally {
      await sql`alter table alerts_unavailable rename to alerts`.execute(db);
    }
    const { body, text } = await capture();
    expect(body.errors).toEqual([{ type: 'http.internal_error', count: 2, firstSeenAt: expect.any(String), lastSeenAt: expect.any(String) }]);
    expect(text).not.toContain('alerts_unavailable');
    expect(text).not.toContain('relation');
  });

  it('is for install-wide admins only', async () => {
    const refused = await callAs(svc, blueAdmin, 'GET', '/diagnostics');
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('forbidden');
  });
});
