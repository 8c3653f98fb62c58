/**
 * Runbook management over HTTP on every engine (SPEC.md "Runbooks and runs",
 * "Versioning", "Runbook source rules"; rules in adapters/runbooks/runbook-store.ts):
 * save with the version rule and history, enable/disable, directory sync, products
 * that are not installed, permissions, and runbooks surviving a restart.
 */
import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callAs, runWhen, startInProcessService, testPerson, type InProcessService } from '../support/in-process-service.ts';
import { e2eEngines } from '../support/service-process.ts';

const admin = testPerson('admin@example.com', [{ team: null, role: 'admin' }]);
const teamAdmin = testPerson('team-admin@example.com', [{ team: 'blue', role: 'admin' }]);
const analyst = testPerson('analyst@example.com', [{ team: null, role: 'analyst' }]);

const doc = (id: string, version: number, extra = '', stepWith = '{ tags_add: [triage] }') => `
id: ${id}
name: ${id} runbook
version: ${version}
trigger: { type: manual }
${extra}steps:
  - id: tag
    action: case.update
    with: ${stepWith}
`;

describe.each(e2eEngines)('runbook management on $name', ({ server }) => {
  let svc: InProcessService;
  const runbooksDir = () => svc.env.SVC_RUNBOOKS_DIR ?? '';
  const save = (slug: string, yaml: string, who = admin) => callAs(svc, who, 'POST', `/runbooks/${slug}`, { yaml_text: yaml });

  beforeAll(async () => {
    svc = await startInProcessService({ server }, { runbooks: { 'from-file.yml': doc('from-file', 1) } });
  });
  afterAll(async () => svc?.close());

  it('creates a runbook, then updates it only with a bumped version, writing a version row per save', async () => {
    const created = await save('phish-triage', doc('phish-triage', 1));
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({
      created: true,
      changed: true,
      runbook: { id: 'phish-triage', version: 1, enabled: true, source: 'api:admin@example.com' },
    });

    const same = await save('phish-triage', doc('phish-triage', 1));
    expect(same.status).toBe(200);
    expect(same.body).toMatchObject({ created: false, changed: false });

    const notBumped = await save('phish-triage', doc('phish-triage', 1, 'description: changed\n'));
    expect(notBumped.status).toBe(422);
    expect(notBumped.body).toMatchObject({ code: 'runbook_version_not_bumped', params: { version: 1, stored_version: 1 } });

    const bumped = await save('phish-triage', doc('phish-triage', 3, 'description: changed\n'));
    expect(bumped.status, bumped.text).toBe(200);
    expect(bumped.body).toMatchObject({ created: false, changed: true, runbook: { version: 3, description: 'changed' } });

    const decrease = await save('phish-triage', doc('phish-triage', 2));
    expect(decrease.status).toBe(422);
    expect(decrease.body).toMatchObject({ code: 'runbook_version_decrease', params: { version: 2, stored_version: 3 } });

    const detail = await callAs(svc, analyst, 'GET', '/runbooks/phish-triage');
    expect(detail.status).toBe(200);
    expect(detail.body).toMatchObject({ id: 'phish-triage', version: 3, yaml_text: doc('phish-triage', 3, 'description: changed\n') });
    expect(detail.body.versions.map((v: { version: number }) => v.version)).toEqual([3, 1]);
    expect(detail.body.versions[0]).toMatchObject({ saved_by: 'api:admin@example.com', saved_at: expect.any(String) });
  });

  it('answers each saved version with its YAML, so the console can show a diff between two', async () => {
    const first = await callAs(svc, analyst, 'GET', '/runbooks/phish-triage/versions/1');
    expect(first.status, first.text).toBe(200);
    expect(first.body).toEqual({ version: 1, saved_at: expect.any(String), saved_by: 'api:admin@example.com', yaml_text: doc('phish-triage', 1) });
    expect((await callAs(svc, analyst, 'GET', '/runbooks/phish-triage/versions/3')).body.yaml_text).toBe(doc('phish-triage', 3, 'description: changed\n'));
    const never = await callAs(svc, analyst, 'GET', '/runbooks/phish-triage/versions/2');
    expect(never.status).toBe(404);
    expect(never.body).toMatchObject({ code: 'runbook_version_not_found', params: { slug: 'phish-triage', version: 2 } });
    expect((await callAs(svc, analyst, 'GET', '/runbooks/no-such-book/versions/1')).body.code).toBe('runbook_not_found');
    expect((await callAs(svc, analyst, 'GET', '/runbooks/phish-triage/versions/first')).status).toBe(422);
  });

  it('dry-runs a draft that is not saved, for an author only, and stores no runbook', async () => {
    const caseId = (await callAs(svc, admin, 'POST', '/cases', { title: 'Draft trial', severity: 'low' })).body.id;
    const tryDraft = (body: Record<string, unknown>, who = admin, slug = 'draft-book') =>
      callAs(svc, who, 'POST', `/cases/${caseId}/runbooks/${slug}/run`, body);

    const queued = await tryDraft({ dry_run: true, yaml_text: doc('draft-book', 1) });
    expect(queued.status, queued.text).toBe(202);
    expect(queued.body).toMatchObject({ runbook_id: 'draft-book', runbook_version: 1, dry_run: true, case_id: caseId });
    const run = await runWhen(svc, admin, queued.body.id, /^(succeeded|failed)$/);
    expect(run.status, JSON.stringify(run)).toBe('succeeded');
    expect(run.steps).toEqual([expect.objectContaining({ id: 'tag', status: 'ok', output: { case_id: caseId, changes: { tags_add: ['triage'] } } })]);
    expect(run.action_log).toEqual(expect.arrayContaining([expect.objectContaining({ step_id: 'tag', status: 'dry_run' })]));
    expect((await callAs(svc, admin, 'GET', '/runbooks/draft-book')).status).toBe(404);
    expect((await callAs(svc, admin, 'GET', `/cases/${caseId}`)).body.tags).not.toContain('triage');

    const live = await tryDraft({ yaml_text: doc('draft-book', 1) });
    expect(live.status).toBe(422);
    expect(live.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'dry_run'] })]);
    const byAnalyst = await tryDraft({ dry_run: true, yaml_text: doc('draft-book', 1) }, analyst);
    expect(byAnalyst.status).toBe(403);
    const invalid = await tryDraft({ dry_run: true, yaml_text: doc('draft-book', 1).replace('case.update', 'case.nope') });
    expect(invalid.status).toBe(422);
    expect(invalid.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'yaml_text', 'steps', '0', 'action'], type: 'runbook_invalid' })]);
    const otherSlug = await tryDraft({ dry_run: true, yaml_text: doc('draft-book', 1) }, admin, 'another-book');
    expect(otherSlug.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'yaml_text', 'id'] })]);
  });

  it('refuses invalid YAML with per-field errors and writes nothing', async () => {
    const bad = await save(
      'broken-one',
      doc('broken-one', 1, '', '{ tags_add: nope, colour: red }').replace('action: case.update', 'action: case.update\n    retries: 99'),
    );
    expect(bad.status).toBe(422);
    expect(bad.body.detail).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ loc: ['body', 'yaml_text', 'steps', '0', 'retries'], type: 'runbook_invalid' }),
        expect.objectContaining({ loc: ['body', 'yaml_text', 'steps', '0', 'with', 'tags_add'] }),
        expect.objectContaining({ loc: ['body', 'yaml_text', 'steps', '0', 'with', 'colour'] }),
      ]),
    );
    const mismatch = await save('other-slug', doc('broken-one', 1));
    expect(mismatch.status).toBe(422);
    expect(mismatch.body.detail).toEqual([
      expect.objectContaining({ loc: ['body', 'yaml_text', 'id'], msg: "must equal the slug in the path ('other-slug')" }),
    ]);
    expect((await save('Bad_Slug', doc('broken-one', 1))).body.detail[0].loc).toEqual(['path', 'slug']);
    // An undeclared key is ignored (as on every route); the missing yaml_text is what is refused.
    expect((await callAs(svc, admin, 'POST', '/runbooks/broken-one', { yaml: 'x' })).body.detail.map((d: { loc: string[] }) => d.loc)).toEqual([
      ['body', 'yaml_text'],
    ]);
    for (const slug of ['broken-one', 'other-slug']) expect((await callAs(svc, admin, 'GET', `/runbooks/${slug}`)).status).toBe(404);
  });

  it('needs manage_runbooks from a realm-wide grant to write, read permission to read', async () => {
    expect((await save('analyst-made', doc('analyst-made', 1), analyst)).status).toBe(403);
    const team = await save('team-made', doc('team-made', 1), teamAdmin);
    expect(team.status).toBe(403);
    expect(team.body.code).toBe('forbidden');
    expect((await callAs(svc, teamAdmin, 'POST', '/runbooks/phish-triage/disable')).status).toBe(403);
    expect((await callAs(svc, analyst, 'POST', '/runbooks/sync')).status).toBe(403);
    expect((await callAs(svc, analyst, 'GET', '/runbooks')).status).toBe(200);
  });

  it('enables and disables a runbook; a disabled one cannot be run', async () => {
    const off = await callAs(svc, admin, 'POST', '/runbooks/phish-triage/disable');
    expect(off.status, off.text).toBe(200);
    expect(off.body).toMatchObject({ id: 'phish-triage', enabled: false });
    const list = await callAs(svc, analyst, 'GET', '/runbooks');
    expect(list.body.items.find((r: { id: string }) => r.id === 'phish-triage')).toMatchObject({ enabled: false, version: 3 });
    const caseId = (await callAs(svc, admin, 'POST', '/cases', { title: 'Phish', severity: 'low' })).body.id;
    const run = await callAs(svc, admin, 'POST', `/cases/${caseId}/runbooks/phish-triage/run`, {});
    expect(run.status).toBe(422);
    expect(run.body.code).toBe('runbook_disabled');
    const on = await callAs(svc, admin, 'POST', '/runbooks/phish-triage/enable');
    expect(on.body).toMatchObject({ enabled: true, versions: [{ version: 3 }, { version: 1 }] });
    expect((await callAs(svc, admin, 'POST', `/cases/${caseId}/runbooks/phish-triage/run`, {})).status).toBe(202);
    expect((await callAs(svc, admin, 'POST', '/runbooks/no-such-book/enable')).status).toBe(404);
  });

  it('syncs the local directory under the same version rule', async () => {
    const dir = runbooksDir();
    writeFileSync(`${dir}/from-file.yml`, doc('from-file', 2));
    writeFileSync(`${dir}/new-file.yaml`, doc('new-file', 1));
    writeFileSync(`${dir}/older.yml`, doc('phish-triage', 2));
    writeFileSync(`${dir}/invalid.yml`, 'id: x\n');
    writeFileSync(`${dir}/needs-detector.yml`, doc('needs-detector', 1, '', '{ alert_id: a1 }').replace('action: case.update', 'action: detector.get_alert'));
    writeFileSync(`${dir}/notes.txt`, 'not a runbook');
    const sync = await callAs(svc, admin, 'POST', '/runbooks/sync');
    expect(sync.status, sync.text).toBe(200);
    expect(sync.body.created).toEqual(['new-file']);
    expect(sync.body.updated).toEqual(['from-file']);
    expect(sync.body.skipped).toEqual([expect.objectContaining({ file: 'needs-detector.yml', id: 'needs-detector', reason: 'product_not_installed' })]);
    expect(sync.body.errors.map((e: { file: string }) => e.file)).toEqual(['invalid.yml', 'older.yml']);
    expect(sync.body.errors[1].errors).toEqual([{ loc: ['version'], msg: 'version 2 is below the stored version 3' }]);

    const again = await callAs(svc, admin, 'POST', '/runbooks/sync');
    expect(again.body.created).toEqual([]);
    expect(again.body.updated).toEqual([]);
    expect(again.body.skipped.map((s: { id: string; reason: string }) => `${s.id}:${s.reason}`)).toEqual([
      'from-file:unchanged',
      'needs-detector:product_not_installed',
      'new-file:unchanged',
    ]);
    const fromFile = await callAs(svc, analyst, 'GET', '/runbooks/from-file');
    expect(fromFile.body).toMatchObject({ version: 2, source: 'file:from-file.yml', versions: [{ version: 2 }, { version: 1 }] });
    expect((await callAs(svc, analyst, 'GET', '/runbooks/needs-detector')).status).toBe(404);
  });
});

describe.each(e2eEngines)('stored runbooks across restarts on $name', ({ server }) => {
  let svc: InProcessService | null = null;
  afterAll(async () => svc?.close());

  /** Restarts on the same database (and data dir) with `products` installed. */
  const restart = async (previous: InProcessService, products: string) => {
    await previous.service.close();
    const keep = {
      SVC_DATA_DIR: previous.env.SVC_DATA_DIR ?? '',
      SVC_SECRET_KEY: previous.env.SVC_SECRET_KEY ?? '',
      ...(previous.env.DATABASE_URL ? { DATABASE_URL: previous.env.DATABASE_URL } : {}),
    };
    return startInProcessService({ server }, { extraEnv: { ...keep, SVC_INSTALLED_PRODUCTS: products } });
  };

  it('keeps API-saved runbooks, and hides one whose product is not installed without deleting it', async () => {
    const first = await startInProcessService({ server }, { extraEnv: { SVC_INSTALLED_PRODUCTS: 'detector' } });
    const detectorBook = doc('detector-look', 1, '', '{ alert_id: "{{ inputs.alert }}" }').replace('action: case.update', 'action: detector.get_alert');
    expect((await callAs(first, admin, 'POST', '/runbooks/detector-look', { yaml_text: detectorBook })).status).toBe(201);
    expect((await callAs(first, admin, 'POST', '/runbooks/api-saved', { yaml_text: doc('api-saved', 4) })).status).toBe(201);

    const second = await restart(first, 'none');
    expect((await callAs(second, admin, 'GET', '/runbooks/api-saved')).body).toMatchObject({ version: 4, source: 'api:admin@example.com' });
    expect((await callAs(second, admin, 'GET', '/runbooks/detector-look')).status).toBe(404);
    expect((await callAs(second, admin, 'GET', '/runbooks')).body.items.map((r: { id: string }) => r.id)).toEqual(['api-saved']);
    expect((await callAs(second, admin, 'POST', '/runbooks/detector-look/disable')).status).toBe(404);
    const caseId = (await callAs(second, admin, 'POST', '/cases', { title: 'Hidden runbook', severity: 'low' })).body.id;
    expect((await callAs(second, admin, 'POST', `/cases/${caseId}/runbooks/detector-look/run`, { inputs: { alert: 'a' } })).status).toBe(404);
    expect(await second.service.opened.db.selectFrom('runbooks').select('slug').where('slug', '=', 'detector-look').executeTakeFirst()).toBeDefined();

    svc = await restart(second, 'detector');
    expect((await callAs(svc, admin, 'GET', '/runbooks/detector-look')).body).toMatchObject({ id: 'detector-look', version: 1 });
  });
});
