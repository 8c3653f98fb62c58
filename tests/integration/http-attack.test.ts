/**
 * `GET /attack/techniques` in the service (docs/configuration.md "ATT&CK catalog"): the
 * techniques of the configured STIX bundle by id, none without one, a catalog that breaks
 * after the start answered 503 in words and read again once it is fixed, and a start
 * refused when the configured file is not there. The route reads no database: one engine.
 */
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../runtime/config.ts';
import { repoRoot } from '../support/fixtures.ts';
import { callAs, startInProcessService, testPerson, type InProcessService } from '../support/in-process-service.ts';

const viewer = testPerson('viewer@example.com', [{ team: 'blue', role: 'viewer' }]);
const nobody = testPerson('nobody@example.com', []);
const excerpt = join(repoRoot, 'tests/fixtures/attack/enterprise-attack-excerpt.json');

describe('the ATT&CK technique catalog', () => {
  let dir = '';
  let catalogPath = '';
  let withCatalog: InProcessService;
  let without: InProcessService;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-attack-'));
    catalogPath = join(dir, 'enterprise-attack.json');
    copyFileSync(excerpt, catalogPath);
    [withCatalog, without] = await Promise.all([
      startInProcessService({ server: false }, { extraEnv: { SVC_ATTACK_CATALOG: catalogPath } }),
      startInProcessService({ server: false }),
    ]);
  });
  afterAll(async () => {
    await withCatalog?.close();
    await without?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("answers the catalog's techniques by id to anyone who reads cases", async () => {
    const res = await callAs(withCatalog, viewer, 'GET', '/attack/techniques');
    expect(res.status, res.text).toBe(200);
    expect(res.body.catalog).toEqual({ name: 'Enterprise ATT&CK', version: '17.1', techniques: 6 });
    expect(res.body.items.map((item: { id: string }) => item.id)).toEqual(['T1059', 'T1059.001', 'T1064', 'T1078', 'T1110.001', 'T1562.001']);
    expect(res.body.items[1]).toEqual({ id: 'T1059.001', name: 'PowerShell', tactics: ['execution'], deprecated: false });
    expect((await callAs(withCatalog, nobody, 'GET', '/attack/techniques')).status).toBe(403);
  });

  it('answers no catalog and no technique when none is configured', async () => {
    const res = await callAs(without, viewer, 'GET', '/attack/techniques');
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ catalog: null, items: [] });
  });

  it('keeps the catalog it read; a catalog broken before its first read answers 503 in words, and is read once fixed', async () => {
    const broken = join(dir, 'broken.json');
    writeFileSync(broken, '{"type": "bundle", "objects": [');
    const svc = await startInProcessService({ server: false }, { extraEnv: { SVC_ATTACK_CATALOG: broken } });
    try {
      const refused = await callAs(svc, viewer, 'GET', '/attack/techniques');
      expect(refused.status).toBe(503);
      expect(refused.body).toMatchObject({
        code: 'attack_catalog_unavailable',
        detail: 'the ATT&CK catalog (SVC_ATTACK_CATALOG) cannot be used: the file is not JSON',
      });
      copyFileSync(excerpt, broken);
      expect((await callAs(svc, viewer, 'GET', '/attack/techniques')).body.catalog.techniques).toBe(6);
      writeFileSync(broken, 'gone');
      expect((await callAs(svc, viewer, 'GET', '/attack/techniques')).body.catalog.techniques).toBe(6);
    } finally {
      await svc.close();
    }
  });

  it('refuses to start when the configured catalog is not a readable file', () => {
    expect(() => loadConfig({ SVC_ATTACK_CATALOG: join(dir, 'missing.json') })).toThrow(
      /^SVC_ATTACK_CATALOG: .*missing\.json is not a readable file \(ENOENT\)$/,
    );
    expect(() => loadConfig({ SVC_ATTACK_CATALOG: dir })).toThrow(/is not a readable file \(not a file\)$/);
  });
});
