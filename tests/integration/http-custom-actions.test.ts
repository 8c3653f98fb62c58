/**
 * Custom action routes on the real service, on every engine (SPEC.md "Custom action
 * (operator-authored)", "Actions and connections"; docs/configuration.md "Custom
 * actions"): realm grants only (a team admin is refused: custom actions are install-wide);
 * create, list, read, update as new versions with their history, disable and
 * enable, each audited; the arbitrary tier for global administrators with the danger
 * acknowledgement; managed effect types, secret-reading templates, escaping paths and
 * malformed bodies refused with nothing written; one name created once under a race.
 * Every answer is checked against /openapi.json by callAs.
 */
import { randomUUID } from 'node:crypto';
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAuditLog, systemActor } from '../../adapters/commands/audit.ts';
import { createCustomActionCommands } from '../../adapters/commands/custom-actions.ts';
import type { EventStore } from '../../adapters/event-store/port.ts';
import { PostgresEventStore } from '../../adapters/event-store/postgres.ts';
import { customActionSpecSchema } from '../../domain/custom-actions/spec.ts';
import { DomainError } from '../../domain/shared/errors.ts';
import { streams } from '../../domain/shared/streams.ts';
import { recordedEvents } from '../support/events.ts';
import { callAs, startInProcessService, testPerson, type InProcessService } from '../support/in-process-service.ts';
import { e2eEngines } from '../support/service-process.ts';

const root = testPerson('root@example.com', [{ team: null, role: 'admin' }]);
const otherRoot = testPerson('other-root@example.com', [{ team: null, role: 'admin' }]);
const blueAdmin = testPerson('blue-admin@example.com', [{ team: 'blue', role: 'admin' }]);
const ana = testPerson('ana@example.com', [{ team: null, role: 'analyst' }]);
/** Manages custom actions through a realm grant without being a global administrator: approvers get `manage_connections` below. */
const integrator = testPerson('integrator@example.com', [{ team: null, role: 'approver' }]);
const permissions = { approver: ['read', 'manage_cases', 'run_runbooks', 'approve_runbooks', 'manage_connections'] };

const lookup = (name: string, over: Record<string, unknown> = {}) => ({
  name,
  title: 'Host lookup',
  transport: 'http',
  default_connection: 'shodan',
  inputs: [
    { name: 'ip', type: 'string', required: true },
    { name: 'api_key', type: 'string', secret: true },
  ],
  http: { method: 'GET', path: '/shodan/host/{{ inputs.ip }}', headers: { 'X-Api-Key': '{{ inputs.api_key }}' }, query: { minify: 'true' } },
  outputs: [{ name: 'org', path: '$.org', type: 'string' }],
  redact: ['$.input.api_key'],
  effect_type: 'enrich',
  risk: 'read',
  target: { type: 'ip', input: 'ip' },
  ...over,
});
const anything = (name: string) => ({
  name,
  title: 'Run anything on the jump host',
  transport: 'ssh',
  inputs: [{ name: 'cmd', type: 'string' }],
  ssh: { command: '/usr/local/bin/runner', args: ['--', '{{ inputs.cmd }}'] },
  effect_type: 'arbitrary',
  risk: 'arbitrary',
});

describe.each(e2eEngines)('custom action routes on $name', ({ server }) => {
  let svc: InProcessService;
  beforeAll(async () => {
    svc = await startInProcessService({ server }, { extraEnv: { SVC_PERMISSIONS: JSON.stringify(permissions) } });
  }, 60_000);
  afterAll(async () => svc?.close());

  /** What the refusals must leave as it was: custom action and name claim events, audit entries and the list. */
  const written = async () => {
    const events = await recordedEvents(svc.service.opened.db, (e) => e.type.startsWith('custom_action.') || e.type === 'audit.recorded');
    return { events: events.length, list: (await callAs(svc, root, 'GET', '/custom-actions')).text };
  };
  const claimOf = async (name: string) => new PostgresEventStore(svc.service.opened.db).readStream(streams.customActionName(name));

  it('creates, lists, reads, updates as versions, disables and enables, and audits each change', async () => {
    const created = await callAs(svc, otherRoot, 'POST', '/custom-actions', { spec: lookup('custom.shodan.host') });
    expect(created.status, created.text).toBe(201);
    const id = created.body.id;
    expect(created.body).toMatchObject({
      name: 'custom.shodan.host',
      version: 1,
      enabled: true,
      source: 'api',
      created_by: 'other-root@example.com',
      updated_by: 'other-root@example.com',
      spec: { name: 'custom.shodan.host', timeout_s: 30, max_attempts: 1, http: { body: null }, idempotency_key: null },
    });
    expect(created.body.spec).not.toHaveProperty('enabled');
    expect(created.body.created_at).toBe(created.body.updated_at);
    // Custom actions are install-wide: a team admin may neither list nor create them.
    expect((await callAs(svc, blueAdmin, 'POST', '/custom-actions', { spec: lookup('custom.team.only') })).body.code).toBe('forbidden');
    expect((await callAs(svc, blueAdmin, 'GET', `/custom-actions/${id}`)).status).toBe(403);
    expect((await callAs(svc, otherRoot, 'POST', '/custom-actions', { spec: lookup('custom.abuse.check') })).status).toBe(201);

    const list = await callAs(svc, otherRoot, 'GET', '/custom-actions');
    expect(list.status).toBe(200);
    expect(list.body.items.map((a: { name: string }) => a.name)).toEqual(['custom.abuse.check', 'custom.shodan.host']);
    expect((await callAs(svc, otherRoot, 'GET', `/custom-actions/${id}`)).body).toEqual(created.body);
    expect((await callAs(svc, otherRoot, 'GET', `/custom-actions/${id.toUpperCase()}`)).body.id).toBe(id);

    const updated = await callAs(svc, root, 'PUT', `/custom-actions/${id}`, { spec: lookup('custom.shodan.host', { title: 'Shodan host v2', timeout_s: 10 }) });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body).toMatchObject({ version: 2, enabled: true, created_by: 'other-root@example.com', updated_by: 'root@example.com' });
    expect(updated.body.spec).toMatchObject({ title: 'Shodan host v2', timeout_s: 10 });
    // The same spec again is no new version.
    const same = await callAs(svc, root, 'PUT', `/custom-actions/${id}`, { spec: lookup('custom.shodan.host', { title: 'Shodan host v2', timeout_s: 10 }) });
    expect(same.body.version).toBe(2);

    const disabled = await callAs(svc, otherRoot, 'POST', `/custom-actions/${id}/disable`);
    expect(disabled.body).toMatchObject({ enabled: false, version: 2 });
    // An update leaves a disabled action disabled unless the spec says enabled.
    const stillOff = await callAs(svc, otherRoot, 'PUT', `/custom-actions/${id}`, { spec: lookup('custom.shodan.host', { title: 'Shodan host v3' }) });
    expect(stillOff.body).toMatchObject({ enabled: false, version: 3 });
    const enabled = await callAs(svc, otherRoot, 'POST', `/custom-actions/${id}/enable`);
    expect(enabled.body).toMatchObject({ enabled: true, version: 3 });
    expect((await callAs(svc, otherRoot, 'POST', `/custom-actions/${id}/enable`)).body).toEqual(enabled.body);

    const versions = await callAs(svc, otherRoot, 'GET', `/custom-actions/${id}/versions`);
    expect(versions.status).toBe(200);
    expect(versions.body.items.map((v: { version: number; enabled: boolean; spec: { title: string } }) => [v.version, v.enabled, v.spec.title])).toEqual([
      [3, false, 'Shodan host v3'],
      [2, true, 'Shodan host v2'],
      [1, true, 'Host lookup'],
    ]);

    const renamed = await callAs(svc, root, 'PUT', `/custom-actions/${id}`, { spec: lookup('custom.shodan.other') });
    expect(renamed.status).toBe(422);
    expect(renamed.body.code).toBe('custom_action_name_immutable');
    const missing = await callAs(svc, root, 'GET', '/custom-actions/6f1c1a52-58a4-4f43-9d0e-2c1c4b7f2a10');
    expect([missing.status, missing.body.code]).toEqual([404, 'custom_action_not_found']);
    for (const path of ['/versions', '/disable', '/enable']) {
      const method = path === '/versions' ? 'GET' : 'POST';
      expect((await callAs(svc, root, method, `/custom-actions/6f1c1a52-58a4-4f43-9d0e-2c1c4b7f2a10${path}`)).status).toBe(404);
    }
    expect((await callAs(svc, root, 'PUT', '/custom-actions/6f1c1a52-58a4-4f43-9d0e-2c1c4b7f2a10', { spec: lookup('custom.shodan.host') })).status).toBe(404);

    const audit = await callAs(svc, root, 'GET', `/audit?target_type=custom_action&target_id=${id}&limit=50`);
    expect(audit.body.items.map((e: { action: string; detail: { version: number } }) => [e.action, e.detail.version])).toEqual([
      ['custom_action.create', 1],
      ['custom_action.update', 2],
      ['custom_action.disable', 2],
      ['custom_action.update', 3],
      ['custom_action.enable', 3],
    ]);
    expect(audit.body.items[0].actor).toMatchObject({ email: 'other-root@example.com', kind: 'user' });
  });

  it('keeps the arbitrary tier to global administrators who acknowledge the danger', async () => {
    const name = 'custom.ops.anything';
    const analyst = await callAs(svc, ana, 'POST', '/custom-actions', { spec: anything(name), acknowledge_danger: true });
    expect([analyst.status, analyst.body.code]).toEqual([403, 'forbidden']);
    const realmNonAdmin = await callAs(svc, integrator, 'POST', '/custom-actions', { spec: anything(name), acknowledge_danger: true });
    expect([realmNonAdmin.status, realmNonAdmin.body.code]).toEqual([403, 'custom_action_arbitrary_forbidden']);
    const riskOnly = await callAs(svc, integrator, 'POST', '/custom-actions', { spec: lookup(name, { risk: 'arbitrary' }), acknowledge_danger: true });
    expect([riskOnly.status, riskOnly.body.code]).toEqual([403, 'custom_action_arbitrary_forbidden']);
    const unacknowledged = await callAs(svc, root, 'POST', '/custom-actions', { spec: anything(name) });
    expect([unacknowledged.status, unacknowledged.body.code]).toEqual([422, 'custom_action_danger_unacknowledged']);
    // Nothing of the refusals was written: the name is still free.
    expect(await claimOf(name)).toEqual([]);

    const saved = await callAs(svc, root, 'POST', '/custom-actions', { spec: anything(name), acknowledge_danger: true });
    expect(saved.status, saved.text).toBe(201);
    const id = saved.body.id;
    expect(saved.body).toMatchObject({ version: 1, spec: { risk: 'arbitrary', effect_type: 'arbitrary' } });
    const versions = await callAs(svc, root, 'GET', `/custom-actions/${id}/versions`);
    expect(versions.body.items[0].acknowledged_danger).toBe(true);

    // A realm grant that is not admin can neither change it (not even out of the tier) nor enable it; anyone may disable it.
    const tame = { ...anything(name), risk: 'read', effect_type: 'none' };
    expect((await callAs(svc, integrator, 'PUT', `/custom-actions/${id}`, { spec: tame })).body.code).toBe('custom_action_arbitrary_forbidden');
    expect((await callAs(svc, integrator, 'POST', `/custom-actions/${id}/disable`)).body.enabled).toBe(false);
    expect((await callAs(svc, integrator, 'POST', `/custom-actions/${id}/enable`)).body.code).toBe('custom_action_arbitrary_forbidden');
    expect((await callAs(svc, root, 'PUT', `/custom-actions/${id}`, { spec: anything(name) })).body.code).toBe('custom_action_danger_unacknowledged');
    expect((await callAs(svc, root, 'POST', `/custom-actions/${id}/enable`)).body.enabled).toBe(true);
    const audit = await callAs(svc, root, 'GET', `/audit?target_type=custom_action&target_id=${id}`);
    expect(audit.body.items[0].detail).toMatchObject({ name, risk: 'arbitrary', acknowledged_danger: true });
  });

  it('refuses managed effects, secret-reading templates, escaping paths and malformed bodies, writing nothing', async () => {
    const before = await written();
    const post = (body: unknown) => callAs(svc, root, 'POST', '/custom-actions', body);

    const managed = await post({ spec: lookup('custom.edr.contain', { effect_type: 'contain', risk: 'write' }) });
    expect([managed.status, managed.body.code]).toEqual([422, 'custom_action_managed_effect']);

    const secret = await post({
      spec: lookup('custom.leak.secret', { http: { method: 'GET', path: '/x', headers: { Authorization: 'Bearer {{ secrets.token }}' } } }),
    });
    expect(secret.status).toBe(422);
    expect(secret.body.detail).toEqual([{ loc: ['body', 'spec', 'http', 'headers', 'Authorization'], msg: expect.any(String), type: 'template_reads_secret' }]);

    const escaping = await post({ spec: lookup('custom.leak.path', { http: { method: 'GET', path: '/api/v1/../../admin/{{ inputs.ip }}' } }) });
    expect(escaping.status).toBe(422);
    expect(escaping.body.detail).toEqual([{ loc: ['body', 'spec', 'http', 'path'], msg: expect.any(String), type: 'path_escapes' }]);
    const partial = await post({ spec: lookup('custom.leak.segment', { http: { method: 'GET', path: '/hosts/x{{ inputs.ip }}' } }) });
    expect(partial.body.detail.map((d: { type: string }) => d.type)).toEqual(['path_escapes']);

    const undeclared = await post({ spec: lookup('custom.bad.input', { target: { type: 'ip', input: 'address' } }) });
    expect(undeclared.body.detail).toEqual([{ loc: ['body', 'spec', 'target', 'input'], msg: expect.any(String), type: 'unknown_input' }]);

    for (const [body, loc] of [
      [{}, ['body', 'spec']],
      [{ spec: lookup('Custom.Bad') }, ['body', 'spec', 'name']],
      [{ spec: lookup('custom.bad.transport', { transport: 'ftp' }) }, ['body', 'spec', 'transport']],
      [{ spec: lookup('custom.bad.ack'), acknowledge_danger: 'yes' }, ['body', 'acknowledge_danger']],
      [{ spec: lookup('custom.bad.method', { http: { method: 'TRACE', path: '/x' } }) }, ['body', 'spec', 'http', 'method']],
      [{ spec: { ...lookup('custom.bad.ssh'), transport: 'ssh', http: null, ssh: { command: 'rm -rf /', args: [] } } }, ['body', 'spec', 'ssh', 'command']],
      [{ spec: { ...lookup('custom.bad.both'), http: null } }, ['body', 'spec']],
    ] as const) {
      const refused = await post(body);
      expect(refused.status, JSON.stringify(body).slice(0, 80)).toBe(422);
      expect(refused.body.detail[0].loc).toEqual(loc);
    }
    const array = await post([{ spec: lookup('custom.bad.array') }]);
    expect(array.status).toBe(422);
    const text = await svc.request('/custom-actions', { method: 'POST', body: 'spec' });
    expect([401, 415]).toContain(text.status);

    expect(await written()).toEqual(before);
    for (const name of ['custom.edr.contain', 'custom.leak.secret', 'custom.leak.path']) expect(await claimOf(name)).toEqual([]);
    expect(svc.errors()).toEqual([]);
  });

  it('creates a name once when two creates race: one 201, one 409 custom_action_exists', async () => {
    for (const name of ['custom.race.one', 'custom.race.two', 'custom.race.three']) {
      const answers = await Promise.all([
        callAs(svc, root, 'POST', '/custom-actions', { spec: lookup(name, { title: 'first' }) }),
        callAs(svc, otherRoot, 'POST', '/custom-actions', { spec: lookup(name, { title: 'second' }) }),
      ]);
      expect(answers.map((a) => a.status).sort()).toEqual([201, 409]);
      expect(answers.find((a) => a.status === 409)?.body.code).toBe('custom_action_exists');
      const winner = answers.find((a) => a.status === 201)?.body;
      const listed = (await callAs(svc, root, 'GET', '/custom-actions')).body.items.filter((a: { name: string }) => a.name === name);
      expect(listed).toEqual([winner]);
      expect((await claimOf(name)).map((e) => e.data.custom_action_id)).toEqual([winner.id]);
    }
    const again = await callAs(svc, root, 'POST', '/custom-actions', { spec: lookup('custom.race.one') });
    expect([again.status, again.body.code]).toEqual([409, 'custom_action_exists']);
  });

  it('lets the name claim decide a race even when both creates read the name as free', async () => {
    // Two stores on one database, as two API processes; each create's first read of the
    // claim waits until both have read it, so both decide on a free name and append.
    const name = 'custom.race.claim';
    const claimStream = streams.customActionName(name);
    let reads = 0;
    let bothRead: () => void = () => undefined;
    const barrier = new Promise<void>((resolve) => {
      bothRead = resolve;
    });
    const racing = (): EventStore => {
      const store = new PostgresEventStore(svc.service.opened.db);
      let first = true;
      return Object.assign(Object.create(store) as EventStore, {
        readStream: async (streamId: string) => {
          const events = await store.readStream(streamId);
          if (streamId === claimStream && first) {
            first = false;
            if (++reads === 2) bothRead();
            await barrier;
          }
          return events;
        },
      });
    };
    const who = { actor: { userId: null, email: 'root@example.com' }, audit: systemActor('test'), globalAdmin: true };
    const now = () => new Date('2026-11-22T10:00:00Z');
    const commands = [racing(), racing()].map((store) =>
      createCustomActionCommands({ store, audit: createAuditLog({ store, ids: randomUUID, now }), ids: randomUUID, now }),
    );
    const spec = v.parse(customActionSpecSchema, lookup(name));
    const outcomes = await Promise.allSettled(commands.map((c) => c.create(spec, { acknowledgeDanger: false, source: 'api' }, who)));
    expect(outcomes.map((o) => o.status).sort()).toEqual(['fulfilled', 'rejected']);
    const refused = outcomes.find((o) => o.status === 'rejected')?.reason;
    expect(refused).toBeInstanceOf(DomainError);
    expect([refused.code, refused.status]).toEqual(['custom_action_exists', 409]);
    const won = outcomes.find((o) => o.status === 'fulfilled');
    const claim = await claimOf(name);
    expect(claim.map((e) => e.data.custom_action_id)).toEqual([won?.status === 'fulfilled' && won.value.customActionId]);
    const created = await recordedEvents(svc.service.opened.db, (e) => e.type === 'custom_action.created' && e.data.name === name);
    expect(created).toHaveLength(1);
  });
});
