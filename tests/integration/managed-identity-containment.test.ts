/**
 * Managed identity containment end to end, on every engine (SPEC.md "Managed containment
 * actions", "Managed containment effects", effect type `disable_identity` on an identity;
 * docs/containment.md): runbooks call `response.identity_disable`, `response.identity_status`
 * and `response.identity_enable`, the response policy binds `disable_identity`/`identity`
 * to the shipped idp_user_suspend_a pack installed from packs/, and the worker carries
 * them out against the Okta stand-in of tests/support/idp-servers.ts. Covered: a
 * suspension inside an automatic grant (effect active, user SUSPENDED, read back
 * enforced) that the TTL's end lifts through the pack's unsuspend by the injected clock; a
 * protected identity, however it is spelled, refused before the approval gate a request
 * of its TTL would meet and before any vendor call; an early enable; and a runbook
 * without a TTL refused at validation.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manualClock } from '../support/clock.ts';
import { startOktaStandIn, type OktaStandIn } from '../support/idp-servers.ts';
import { callAs, startInProcessService, testPerson, type InProcessService } from '../support/in-process-service.ts';
import { adapterActions, installPack, packBinding, runTargetStep } from '../support/shipped-adapters.ts';
import { e2eEngines } from '../support/service-process.ts';

/** A service start, a pack install and its binding: past 60 s in a pack's setup on a loaded CI machine. */
const SETUP_TIMEOUT_MS = 120_000;
const PACKS_DIR = join(import.meta.dirname, '../../packs');
const TOKEN = 'okta-api-token-for-tests';

const root = testPerson('root@example.com', [{ team: null, role: 'admin' }]);
const ana = testPerson('ana@example.com', [{ team: null, role: 'analyst' }]);

/** A manual runbook whose one step `act` runs `action` on the `identity` input. */
const identityStep = (slug: string, action: string, extra = ''): string => `
id: ${slug}
name: ${slug}
version: 1
trigger: { type: manual }
inputs:
  - { name: identity, type: string, required: true }
steps:
  - id: act
    action: ${action}
    with: { identity: "{{ inputs.identity }}"${extra} }
`;

const runbooks = {
  'disable.yml': identityStep('identity-disable', 'response.identity_disable', ', ttl_seconds: 120, reason: "SVC-9: password spray"'),
  // Over the automatic grant: an identity nothing protects waits for a person here.
  'disable-long.yml': identityStep('identity-disable-long', 'response.identity_disable', ', ttl_seconds: 1800'),
  'status.yml': identityStep('identity-status', 'response.identity_status'),
  'enable.yml': identityStep('identity-enable', 'response.identity_enable'),
};

const USERS = {
  suspect: { id: '00u1suspectUSER000001', login: 'mallory@example.com', status: 'ACTIVE' as const },
  breakGlass: { id: '00u1breakGlassUSER001', login: 'break.glass@example.com', status: 'ACTIVE' as const },
  waiting: { id: '00u1waitingUSER000003', login: 'eve@example.com', status: 'ACTIVE' as const },
  released: { id: '00u1releasedUSER00004', login: 'trent@example.com', status: 'ACTIVE' as const },
};

describe.each(e2eEngines)('managed identity containment on $name', ({ server }) => {
  const clock = manualClock(new Date());
  let svc: InProcessService;
  let okta: OktaStandIn;

  beforeAll(async () => {
    okta = await startOktaStandIn(TOKEN, Object.values(USERS));
    svc = await startInProcessService({ server }, { runbooks, clock: clock.now, extraEnv: { SVC_PACKS_DIR: PACKS_DIR } });
    const conn = await callAs(svc, root, 'POST', '/connections', {
      kind: 'http',
      name: 'okta',
      base_url: okta.url,
      secret: TOKEN,
      config: { auth_header: 'Authorization', auth_prefix: 'SSWS ' },
    });
    expect(conn.status, conn.text).toBe(201);
    await installPack(svc, root, 'idp_user_suspend_a', Object.values(adapterActions('idp_user_suspend_a')));
    const policy = await callAs(svc, root, 'PUT', '/response-policy', {
      protected_targets: [{ type: 'identity', value: 'Break.Glass@Example.com' }],
      ttl: { min_seconds: 60, max_seconds: 86_400 },
      automatic_grants: [{ effect_type: 'disable_identity', target_type: 'identity', max_ttl_seconds: 900 }],
      adapters: [{ effect_type: 'disable_identity', target_type: 'identity', ...packBinding('idp_user_suspend_a', 'okta', {}) }],
    });
    expect(policy.status, policy.text).toBe(200);
    expect(policy.body.protected_targets).toEqual([{ type: 'identity', value: 'break.glass@example.com' }]);
  }, SETUP_TIMEOUT_MS);
  afterAll(async () => {
    await svc?.close();
    await okta?.close();
  });

  const run = (slug: string, identity: string) => runTargetStep(svc, ana, slug, { identity });
  const statusOf = (user: { id: string }) => okta.users.get(user.id)?.status;
  const effectsOn = async (identity: string): Promise<any[]> =>
    (await callAs(svc, ana, 'GET', `/effects?target_type=identity&target=${encodeURIComponent(identity)}`)).body.items;
  const lifecycle = (user: { login: string }, verb: string) => `POST /api/v1/users/${encodeURIComponent(user.login)}/lifecycle/${verb}`;

  it('suspends the identity inside the policy, reads it back suspended, and unsuspends it when the TTL ends', async () => {
    const before = okta.requests.length;
    const disabled = await run('identity-disable', 'Mallory@EXAMPLE.com');
    expect(disabled.run.status, JSON.stringify(disabled.run.action_log)).toBe('succeeded');
    expect(disabled.run.gates).toEqual([]);
    expect(disabled.step.output).toEqual({ target: 'mallory@example.com', enforced: true, enforcement_performed: true, effect_id: expect.any(String) });
    expect(statusOf(USERS.suspect)).toBe('SUSPENDED');
    expect(okta.requests.slice(before).map((r) => `${r.method} ${r.path}`)).toEqual([lifecycle(USERS.suspect, 'suspend')]);
    expect(okta.requests.at(-1)?.headers.authorization).toBe(`SSWS ${TOKEN}`);
    const [effect] = await effectsOn('MALLORY@example.com');
    expect(effect).toMatchObject({
      id: disabled.step.output.effect_id,
      effect_type: 'disable_identity',
      target_type: 'identity',
      target: 'mallory@example.com',
      status: 'active',
      adapter_id: 'idp_user_suspend_a',
      handle: null,
      ttl_seconds: 120,
    });

    const read = await run('identity-status', 'mallory@example.com');
    expect(read.step.output, JSON.stringify(read.step)).toEqual({
      target: 'mallory@example.com',
      enforced: true,
      enforcement_performed: false,
      state: 'enforced',
    });

    clock.advance(121_000);
    await expect.poll(async () => (await effectsOn('mallory@example.com'))[0]?.status, { timeout: 15_000 }).toBe('reversed');
    expect(statusOf(USERS.suspect)).toBe('ACTIVE');
    expect(okta.requests.filter((r) => r.method === 'POST').map((r) => `${r.method} ${r.path}`)).toContain(lifecycle(USERS.suspect, 'unsuspend'));
    const audit = (await callAs(svc, root, 'GET', '/audit?action=effect.reverse')).body.items;
    expect(audit.find((e: any) => e.target.id === effect.id)).toMatchObject({
      actor: { kind: 'system', via: 'effect_expiry' },
      detail: { target: 'mallory@example.com', reason: 'ttl_expired', outcome: 'reversed', adapter_id: 'idp_user_suspend_a' },
    });
    expect((await run('identity-status', 'mallory@example.com')).step.output).toMatchObject({ enforced: false, state: 'not_enforced' });
  });

  it('refuses a protected identity, however spelled, before the approval gate and before any vendor call', async () => {
    const before = okta.requests.length;
    const waiting = await run('identity-disable-long', USERS.waiting.login);
    expect(waiting.run.status).toBe('waiting_approval');
    expect(waiting.run.gates).toMatchObject([{ step_id: 'act', status: 'pending', reason: 'response_policy' }]);

    for (const spelling of ['BREAK.GLASS@example.com', 'ｂｒｅａｋ.ｇｌａｓｓ@example.com']) {
      const refused = await run('identity-disable-long', spelling);
      expect(refused.run.status, JSON.stringify(refused.run.action_log)).toBe('failed');
      expect(refused.run.gates).toEqual([]);
      expect(refused.step.error).toMatch(/^target_protected: break\.glass@example\.com is protected/);
    }
    expect(okta.requests.length).toBe(before);
    expect(statusOf(USERS.breakGlass)).toBe('ACTIVE');
    expect(await effectsOn(USERS.breakGlass.login)).toEqual([]);
  });

  it('enables a suspended identity early through the pack, the effect reversed', async () => {
    const disabled = await run('identity-disable', USERS.released.login);
    expect(statusOf(USERS.released)).toBe('SUSPENDED');
    const enabled = await run('identity-enable', USERS.released.login);
    expect(enabled.run.status, JSON.stringify(enabled.run.action_log)).toBe('succeeded');
    expect(enabled.step.output).toMatchObject({
      target: USERS.released.login,
      enforced: false,
      enforcement_performed: true,
      effect_id: disabled.step.output.effect_id,
    });
    expect(statusOf(USERS.released)).toBe('ACTIVE');
    expect(okta.requests.at(-1)).toMatchObject({ method: 'POST', path: `/api/v1/users/${encodeURIComponent(USERS.released.login)}/lifecycle/unsuspend` });
    expect((await effectsOn(USERS.released.login))[0]).toMatchObject({ status: 'reversed' });
  });

  it('refuses at validation a suspension without a TTL', async () => {
    const checked = await callAs(svc, ana, 'POST', '/runbooks/validate', {
      yaml_text: identityStep('identity-forever', 'response.identity_disable').replace('"{{ inputs.identity }}"', 'mallory@example.com'),
    });
    expect(checked.status, checked.text).toBe(200);
    expect(checked.body.errors).toEqual([expect.objectContaining({ loc: ['steps', 0, 'with', 'ttl_seconds'] })]);
  });
});
