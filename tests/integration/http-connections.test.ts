/**
 * Connection routes on the real service, on every engine (SPEC.md "Actions and
 * connections"): change, delete and rotate with `manage_connections`; the rotation
 * overlap deadline on every answer; secrets never returned; each refusal names its field;
 * the `test_mode` config key of http and ssh connections (ours: integration pack tests).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callAs, startInProcessService, testPerson, type InProcessService } from '../support/in-process-service.ts';
import { e2eEngines } from '../support/service-process.ts';

const root = testPerson('root@example.com', [{ team: null, role: 'admin' }]);
const ana = testPerson('ana@example.com', [{ team: 'blue', role: 'analyst' }]);
const OLD = 'whsec_b2xkLXNlY3JldC1vbGQtc2VjcmV0';
const NEW = 'whsec_bmV3LXNlY3JldC1uZXctc2VjcmV0';

describe.each(e2eEngines)('connection routes on $name', ({ server }) => {
  let svc: InProcessService;
  beforeAll(async () => {
    svc = await startInProcessService({ server });
  });
  afterAll(async () => svc?.close());

  it('rotates with an overlap deadline, changes and deletes, never showing a secret', async () => {
    const created = await callAs(svc, root, 'POST', '/connections', { kind: 'webhook', name: 'soc-hook', base_url: 'https://hooks.example/soc', secret: OLD });
    expect(created.status, created.text).toBe(201);
    expect(created.body.rotation_overlap_until).toBeNull();
    const id = created.body.id;

    const rotated = await callAs(svc, root, 'POST', `/connections/${id}/rotate`, { secret: NEW });
    expect(rotated.status, rotated.text).toBe(200);
    const deadline = Date.parse(rotated.body.rotation_overlap_until);
    expect(deadline - Date.parse(rotated.body.updated_at)).toBe(24 * 3600 * 1000);
    expect((await callAs(svc, root, 'GET', `/connections/${id}`)).body.rotation_overlap_until).toBe(rotated.body.rotation_overlap_until);

    const changed = await callAs(svc, root, 'PUT', `/connections/${id}`, { name: 'soc-hook-2', base_url: 'https://hooks.example/v2' });
    expect(changed.body).toMatchObject({ name: 'soc-hook-2', base_url: 'https://hooks.example/v2', kind: 'webhook', secret_configured: true });
    const answers = [created.text, rotated.text, changed.text, (await callAs(svc, root, 'GET', '/connections')).text];
    for (const text of answers) for (const secret of [OLD, NEW]) expect(text).not.toContain(secret);

    // `kind` cannot change: like every key a body does not declare, it is ignored.
    const bad = await callAs(svc, root, 'PUT', `/connections/${id}`, { secret: '', kind: 'http' });
    expect(bad.status).toBe(422);
    expect(bad.body.detail.map((d: { loc: string[] }) => d.loc)).toEqual([['body', 'secret']]);
    expect((await callAs(svc, root, 'POST', `/connections/${id}/rotate`, {})).body.detail[0].loc).toEqual(['body', 'secret']);
    expect((await callAs(svc, ana, 'POST', `/connections/${id}/rotate`, { secret: NEW })).status).toBe(403);

    expect((await callAs(svc, root, 'DELETE', `/connections/${id}`)).status).toBe(204);
    const gone = await callAs(svc, root, 'GET', `/connections/${id}`);
    expect(gone.status).toBe(404);
    expect(gone.body.code).toBe('connection_not_found');
    expect(JSON.stringify(svc.errors())).not.toContain(NEW.slice(6));
  });

  it('takes test_mode on http and ssh connections: false unless set, true kept, anything but a boolean refused', async () => {
    const ssh = { host: '127.0.0.1', username: 'svc', accept_unknown_host_key: true };
    const plain = await callAs(svc, root, 'POST', '/connections', { kind: 'http', name: 'vendor', base_url: 'https://api.example' });
    expect(plain.status, plain.text).toBe(201);
    expect(plain.body.config).toEqual({ test_mode: false });
    const sandbox = await callAs(svc, root, 'POST', '/connections', { kind: 'ssh', name: 'sandbox-ssh', config: { ...ssh, test_mode: true } });
    expect(sandbox.status, sandbox.text).toBe(201);
    expect(sandbox.body.config).toMatchObject({ test_mode: true });
    expect((await callAs(svc, root, 'GET', `/connections/${sandbox.body.id}`)).body.config.test_mode).toBe(true);

    for (const [kind, config] of [
      ['http', { test_mode: 'yes' }],
      ['ssh', { ...ssh, test_mode: 1 }],
    ] as const) {
      const refused = await callAs(svc, root, 'POST', '/connections', { kind, name: `bad-${kind}`, base_url: 'https://api.example', config });
      expect(refused.status, refused.text).toBe(422);
      expect(refused.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'config', 'test_mode'], msg: 'must be true or false' })]);
    }
    const put = await callAs(svc, root, 'PUT', `/connections/${plain.body.id}`, { config: { test_mode: null } });
    expect(put.status).toBe(422);
    expect((await callAs(svc, root, 'PUT', `/connections/${plain.body.id}`, { config: { test_mode: true } })).body.config).toEqual({ test_mode: true });
  });
});
