/**
 * The managed containment actions end to end, on every engine (SPEC.md "Managed
 * containment actions", "Managed containment effects"; docs/containment.md): runbooks
 * call `response.ip_block`, `response.ip_status` and `response.ip_unblock`, the response
 * policy binds them to custom actions of a local stand-in of a firewall API, and the
 * worker carries them out. Covered: an applied block (effect active, rule stored, read
 * back enforced), a duplicate (already enforced, nothing performed), the policy refusals
 * before any vendor call (protected target, TTL over the policy), the approval gate when
 * no automatic grant covers the request, adapter refusals leaving the effect degraded
 * (nothing bound, a test-mode connection), an early release, a read without a handle,
 * and the TTL expiry by the injected clock.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { labOutcome, labWafActions, labWafBinding } from '../support/lab-firewall.ts';
import { manualClock } from '../support/clock.ts';
import {
  actionListed,
  callAs,
  detectorIntake,
  nativeAlert,
  runWhen,
  startInProcessService,
  testPerson,
  type InProcessService,
} from '../support/in-process-service.ts';
import { startReceiver } from '../support/receiver.ts';
import { e2eEngines } from '../support/service-process.ts';

const root = testPerson('root@example.com', [{ team: null, role: 'admin' }]);
const ana = testPerson('ana@example.com', [{ team: null, role: 'analyst' }]);

const common = { transport: 'http', default_connection: 'waf', effect_type: 'notify' };

const aliasOwnership = { read: 'custom.lab_alias.owned', refusal: 'the alias holds this domain, but svc did not add it' };
const aliasActions = [
  ...['add', 'remove'].map((verb) => ({
    ...common,
    name: `custom.lab_alias.${verb}`,
    title: `${verb} an alias entry`,
    inputs: [{ name: 'target', type: 'string', required: true }],
    http: { method: 'POST', path: `/alias/${verb}`, body: { target: '{{ inputs.target }}' } },
    outputs: [
      { name: 'status', path: '$.status', type: 'string' },
      { name: 'message', path: '$.message', type: 'string' },
    ],
    effect: { outcome: labOutcome, ownership: aliasOwnership },
    risk: 'write',
  })),
  ...['has', 'owned'].map((verb) => ({
    ...common,
    name: `custom.lab_alias.${verb}`,
    title: `Read the alias: ${verb}`,
    inputs: [{ name: 'target', type: 'string', required: true }],
    http: { method: 'GET', path: `/alias/${verb}/{{ inputs.target }}` },
    outputs: [{ name: verb === 'has' ? 'present' : 'owned', path: verb === 'has' ? '$.present' : '$.owned', type: 'string' }],
    effect: { enforced_output: verb === 'has' ? 'present' : 'owned', enforced_values: ['yes'] },
    risk: 'read',
  })),
];

const binding = (effectType: string, targetType: string, connection: string) => labWafBinding(effectType, targetType, connection, 'z-1');
const policy = {
  protected_targets: [{ type: 'ip', value: '10.0.0.0/8' }],
  ttl: { min_seconds: 60, max_seconds: 3600 },
  automatic_grants: [{ effect_type: 'block', target_type: 'ip', max_ttl_seconds: 900 }],
  adapters: [binding('block', 'ip', 'waf'), binding('contain', 'host', 'sandbox')],
};

const oneStep = (id: string, action: string, withMap: string) => `
id: ${id}
name: ${id}
version: 1
trigger: { type: manual }
inputs:
  - { name: target, type: string, required: true }
  - { name: ttl, type: number, required: false }
steps:
  - id: act
    action: ${action}
    with: ${withMap}
`;
const runbooks = {
  'block.yml': oneStep('block-ip', 'response.ip_block', '{ ip: "{{ inputs.target }}", ttl_seconds: "{{ inputs.ttl }}", reason: "lab test" }'),
  'status.yml': oneStep('ip-status', 'response.ip_status', '{ ip: "{{ inputs.target }}" }'),
  'unblock.yml': oneStep('unblock-ip', 'response.ip_unblock', '{ ip: "{{ inputs.target }}" }'),
  'domain.yml': oneStep('block-domain', 'response.domain_block', '{ domain: "{{ inputs.target }}", ttl_seconds: "{{ inputs.ttl }}" }'),
  'isolate.yml': oneStep('isolate-host', 'response.host_isolate', '{ host: "{{ inputs.target }}", ttl_seconds: "{{ inputs.ttl }}" }'),
  'block-each.yml': `
id: block-each
name: block-each
version: 1
trigger: { type: manual }
inputs:
  - { name: first, type: string, required: true }
  - { name: second, type: string, required: true }
steps:
  - id: act
    action: response.ip_block
    for_each: "{{ inputs.first | append: ',' | append: inputs.second | split: ',' }}"
    with: { ip: "{{ item }}", ttl_seconds: 600, reason: "each" }
`,
  'alert.yml': `
id: contain-source
name: Contain the source of a critical detector alert
version: 1
trigger: { type: alert, conditions: { source: detector, severity: [critical] } }
steps:
  - id: act
    action: response.ip_block
    autonomous: true
    with: { ip: "{{ trigger.matched_log['source.ip'] }}", ttl_seconds: 600, reason: "{{ case.key }}: {{ trigger.rule.title }}" }
  - id: verify
    action: response.ip_status
    needs: [act]
    with: { ip: "{{ trigger.matched_log['source.ip'] }}" }
`,
};

type Rule = { ip: string; note: string | null };

describe.each(e2eEngines)('managed containment on $name', ({ server }) => {
  const clock = manualClock(new Date());
  let svc: InProcessService;
  let waf: Awaited<ReturnType<typeof startReceiver>>;
  const rules = new Map<string, Rule>();
  /** The shared alias: domain to who added it (`svc` or an operator). */
  const aliasEntries = new Map<string, string>();
  let deleteRefusal = false;
  let caseId = '';
  let next = 1;

  beforeAll(async () => {
    const json = (res: import('node:http').ServerResponse, status: number, body: unknown) =>
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    waf = await startReceiver((req, res) => {
      if (req.headers.authorization !== 'Bearer waf-key-1') return json(res, 401, { status: 'failed', message: 'bad key' });
      const one = /^\/zones\/z-1\/rules\/([\w-]+)$/.exec(req.path);
      if (req.method === 'POST' && req.path === '/zones/z-1/rules') {
        const body = JSON.parse(req.body) as Rule;
        if ([...rules.values()].some((r) => r.ip === body.ip)) return json(res, 409, { status: 'failed', message: 'duplicate rule for this address' });
        const id = `rule-${next++}`;
        rules.set(id, { ip: body.ip, note: body.note ?? null });
        return json(res, 200, { status: 'done', rule_id: id });
      }
      if (one && req.method === 'DELETE' && deleteRefusal) return json(res, 409, { status: 'failed', message: 'rule cannot be deleted now' });
      if (one && !rules.has(one[1]!)) return json(res, 404, { status: 'failed', message: 'rule not found' });
      const alias = /^\/alias\/(add|remove|has|owned)(?:\/([\w.-]+))?$/.exec(req.path);
      if (alias) {
        const domain = alias[2] ?? (JSON.parse(req.body) as { target: string }).target;
        if (alias[1] === 'add') aliasEntries.set(domain, aliasEntries.get(domain) ?? 'svc');
        if (alias[1] === 'remove') aliasEntries.delete(domain);
        // Like a shared firewall alias API: adding or removing answers "done" whether or not anything changed.
        return json(res, 200, {
          status: 'done',
          present: aliasEntries.has(domain) ? 'yes' : 'no',
          owned: aliasEntries.get(domain) === 'svc' ? 'yes' : 'no',
        });
      }
      if (one && req.method === 'GET') return json(res, 200, { status: 'done', mode: 'block' });
      if (one && req.method === 'DELETE') {
        rules.delete(one[1]!);
        return json(res, 200, { status: 'done' });
      }
      return json(res, 404, { status: 'failed', message: 'no such route' });
    });
    svc = await startInProcessService({ server }, { runbooks, clock: clock.now });
    for (const c of [
      { kind: 'http', name: 'waf', base_url: waf.url, secret: 'waf-key-1' },
      { kind: 'http', name: 'sandbox', base_url: waf.url, secret: 'waf-key-1', config: { test_mode: true } },
    ]) {
      const conn = await callAs(svc, root, 'POST', '/connections', c);
      expect(conn.status, conn.text).toBe(201);
    }
    for (const spec of [...labWafActions, ...aliasActions]) {
      const created = await callAs(svc, root, 'POST', '/custom-actions', { spec });
      expect(created.status, created.text).toBe(201);
      await actionListed(svc, root, spec.name);
    }
    const published = await callAs(svc, root, 'PUT', '/response-policy', policy);
    expect(published.status, published.text).toBe(200);
    const created = await callAs(svc, ana, 'POST', '/cases', { title: 'Containment', severity: 'high' });
    expect(created.status, created.text).toBe(201);
    caseId = created.body.id;
  }, 60_000);
  afterAll(async () => {
    await svc?.close();
    await waf?.close();
  });

  const run = async (slug: string, inputs: Record<string, unknown>, who = ana) => {
    const queued = await callAs(svc, who, 'POST', `/cases/${caseId}/runbooks/${slug}/run`, { inputs });
    expect(queued.status, queued.text).toBe(202);
    return runWhen(svc, who, queued.body.id, /^(succeeded|failed|waiting_approval)$/);
  };
  const step = (r: any) => r.action_log.find((row: any) => row.step_id === 'act');
  const effectsOn = async (target: string) => (await callAs(svc, ana, 'GET', `/effects?target_type=ip&target=${encodeURIComponent(target)}`)).body.items;
  const calls = () => waf.received.length;

  it('blocks inside the policy: the rule is stored with the bound parameters, the effect is active until now + TTL, and the read-back says enforced', async () => {
    const r = await run('block-ip', { target: '203.0.113.7', ttl: 600 });
    expect(r.status, JSON.stringify(r.action_log)).toBe('succeeded');
    expect(r.gates).toEqual([]);
    const out = step(r).output;
    expect(out).toMatchObject({ target: '203.0.113.7', enforced: true, enforcement_performed: true, effect_id: expect.any(String) });
    expect([...rules.values()]).toContainEqual({ ip: '203.0.113.7', note: 'lab test' });
    const [effect] = await effectsOn('203.0.113.7');
    expect(effect).toMatchObject({
      id: out.effect_id,
      status: 'active',
      adapter_id: 'lab_waf',
      handle: expect.stringMatching(/^rule-/),
      ttl_seconds: 600,
      case_id: caseId,
    });
    expect(Date.parse(effect.expires_at) - Date.parse(effect.applied_at)).toBe(600_000);
    const posted = waf.received.find((x) => x.method === 'POST');
    expect(posted?.headers['idempotency-key']).toEqual(expect.any(String));

    const read = await run('ip-status', { target: '::ffff:203.0.113.7' });
    expect(read.status).toBe('succeeded');
    expect(step(read).output).toEqual({ target: '203.0.113.7', enforced: true, enforcement_performed: false, state: 'enforced' });
    expect(waf.received.at(-1)).toMatchObject({ method: 'GET', path: `/zones/z-1/rules/${effect.handle}` });
    expect(r.chain.valid).toBe(true);
  });

  it('reads a duplicate as already enforced: active, nothing performed', async () => {
    const r = await run('block-ip', { target: '203.0.113.7', ttl: 300 });
    expect(r.status, JSON.stringify(r.action_log)).toBe('succeeded');
    expect(step(r).output).toMatchObject({ enforced: true, enforcement_performed: false });
    const effects = await effectsOn('203.0.113.7');
    expect(effects).toHaveLength(2);
    expect(effects.find((e: any) => e.id === step(r).output.effect_id)).toMatchObject({ status: 'active', already_enforced: true, handle: null });
  });

  it('blocks every item of a for_each step as its own effect', async () => {
    const r = await run('block-each', { first: '192.0.2.61', second: '192.0.2.62' });
    expect(r.status, JSON.stringify(r.action_log)).toBe('succeeded');
    const [one] = await effectsOn('192.0.2.61');
    const [two] = await effectsOn('192.0.2.62');
    expect(one).toMatchObject({ status: 'active', already_enforced: false });
    expect(two).toMatchObject({ status: 'active', already_enforced: false });
    expect(one.id).not.toBe(two.id);
    expect([...rules.values()].map((x) => x.ip)).toEqual(expect.arrayContaining(['192.0.2.61', '192.0.2.62']));
  });

  it('refuses a protected target and a TTL outside the policy before any vendor call, on the action log, with no effect', async () => {
    const before = calls();
    const protectedRun = await run('block-ip', { target: '10.20.30.40', ttl: 600 });
    expect(protectedRun.status).toBe('failed');
    expect(step(protectedRun).error).toMatch(/^target_protected: 10\.20\.30\.40 is protected/);
    const long = await run('block-ip', { target: '198.51.100.4', ttl: 7200 });
    expect(step(long).error).toMatch(/^ttl_out_of_policy: /);
    const zero = await run('block-ip', { target: '198.51.100.4', ttl: 0 });
    expect(step(zero).error).toMatch(/^invalid input: ttl_seconds/);
    const malformed = await run('block-ip', { target: '198.51.100.4/33', ttl: 600 });
    expect(step(malformed).error).toMatch(/^target_invalid: /);
    expect(calls()).toBe(before);
    expect(await effectsOn('10.20.30.40')).toEqual([]);
    expect(await effectsOn('198.51.100.4')).toEqual([]);
  });

  it('waits for approval when no automatic grant covers the TTL, and blocks once approved', async () => {
    const before = calls();
    const waiting = await run('block-ip', { target: '198.51.100.9', ttl: 1800 });
    expect(waiting.status).toBe('waiting_approval');
    expect(waiting.gates).toMatchObject([{ step_id: 'act', status: 'pending', reason: 'response_policy', roles: ['approver', 'admin'] }]);
    expect(calls()).toBe(before);
    const approved = await callAs(svc, root, 'POST', `/runs/${waiting.id}/approve`, { step_id: 'act', note: 'contain it' });
    expect(approved.status, approved.text).toBe(200);
    const done = await runWhen(svc, ana, waiting.id, /^(succeeded|failed)$/);
    expect(done.status, JSON.stringify(done.action_log)).toBe('succeeded');
    expect((await effectsOn('198.51.100.9'))[0]).toMatchObject({ status: 'active', ttl_seconds: 1800 });
  });

  it('leaves the effect degraded on an adapter refusal, never active and with no vendor call', async () => {
    const before = calls();
    const unbound = await run('block-domain', { target: 'Evil.Example.NET.', ttl: 600 });
    expect(step(unbound).error).toMatch(/^integration_not_configured: /);
    const sandbox = await run('isolate-host', { target: 'WS-042', ttl: 600 });
    expect(step(sandbox).error).toMatch(/^adapter_connection_test_mode: /);
    expect(calls()).toBe(before);
    const domain = (await callAs(svc, ana, 'GET', '/effects?target_type=domain&target=evil.example.net')).body.items;
    expect(domain).toMatchObject([{ status: 'degraded', last_error: 'integration_not_configured', adapter_id: null }]);
    const host = (await callAs(svc, ana, 'GET', '/effects?target_type=host&target=ws-042')).body.items;
    expect(host).toMatchObject([{ status: 'degraded', last_error: 'adapter_connection_test_mode', adapter_id: 'lab_waf' }]);
  });

  it('releases every unresolved effect on a target early, and a later read without a handle is refused', async () => {
    const r = await run('unblock-ip', { target: '203.0.113.7' });
    expect(r.status, JSON.stringify(r.action_log)).toBe('succeeded');
    expect(step(r).output).toMatchObject({ target: '203.0.113.7', enforced: false, enforcement_performed: true });
    expect([...rules.values()].map((x) => x.ip)).not.toContain('203.0.113.7');
    await expect.poll(async () => (await effectsOn('203.0.113.7')).map((e: any) => e.status), { timeout: 10_000 }).toEqual(['reversed', 'reversed']);
    const read = await run('ip-status', { target: '203.0.113.7' });
    expect(step(read).error).toMatch(/^adapter_input_unsatisfied:rule_id: /);
  });

  it('lets an approver release an effect early, audited by name; an analyst may not, and a released effect is not released twice', async () => {
    const r = await run('block-ip', { target: '192.0.2.80', ttl: 600 });
    const id = step(r).output.effect_id;
    expect((await callAs(svc, ana, 'POST', `/effects/${id}/release`)).status).toBe(403);
    const released = await callAs(svc, root, 'POST', `/effects/${id}/release`);
    expect(released.status, released.text).toBe(200);
    expect(released.body).toMatchObject({ id, status: 'reversed', reversed_at: expect.any(String) });
    expect([...rules.values()].map((x) => x.ip)).not.toContain('192.0.2.80');
    const again = await callAs(svc, root, 'POST', `/effects/${id}/release`);
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('effect_not_active');
    const audit = (await callAs(svc, root, 'GET', '/audit?action=effect.reverse')).body.items;
    expect(audit.find((e: any) => e.target.id === id)).toMatchObject({
      actor: { email: 'root@example.com' },
      detail: { target: '192.0.2.80', reason: 'released', outcome: 'reversed', adapter_id: 'lab_waf' },
    });
  });

  it('blocks the source of a critical detector alert unattended inside an automatic grant, and reads it back', async () => {
    const intake = await detectorIntake(
      svc,
      nativeAlert('crit-1', { rule: { id: 'ssh-bf-crit', title: 'SSH brute force', severity: 'critical' }, matched_log: { source: { ip: '198.51.100.23' } } }),
    );
    expect(intake.status, intake.text).toBe(202);
    await expect.poll(async () => (await effectsOn('198.51.100.23'))[0]?.status, { timeout: 15_000 }).toBe('active');
    const [effect] = await effectsOn('198.51.100.23');
    const done = await runWhen(svc, root, effect.run_id, /^(succeeded|failed|waiting_approval)$/);
    expect(done.status, JSON.stringify(done.action_log)).toBe('succeeded');
    expect(done.gates).toEqual([]);
    expect(done.action_log.find((row: any) => row.step_id === 'verify').output).toMatchObject({ enforced: true, state: 'enforced' });
    expect(rules.get(effect.handle)).toMatchObject({ ip: '198.51.100.23', note: expect.stringMatching(/^SVC-\d+: SSH brute force$/) });
  });

  it('reads a refused reversal back: already reversed when the rule is gone, reversal_failed while it is still there', async () => {
    const gone = step(await run('block-ip', { target: '192.0.2.90', ttl: 600 })).output.effect_id;
    const stays = step(await run('block-ip', { target: '192.0.2.91', ttl: 600 })).output.effect_id;
    const handleOf = async (id: string) => (await callAs(svc, root, 'GET', `/effects/${id}`)).body.handle as string;
    rules.delete(await handleOf(gone));
    deleteRefusal = true;
    try {
      expect((await callAs(svc, root, 'POST', `/effects/${gone}/release`)).body).toMatchObject({ status: 'reversed' });
      const failed = (await callAs(svc, root, 'POST', `/effects/${stays}/release`)).body;
      expect(failed).toMatchObject({ status: 'reversal_failed', last_error: 'http_status', reversal_attempts: 1 });
      expect(rules.has(await handleOf(stays))).toBe(true);
    } finally {
      deleteRefusal = false;
    }
    const audit = (await callAs(svc, root, 'GET', '/audit?action=effect.reverse')).body.items;
    expect(audit.find((e: any) => e.target.id === gone)?.detail.outcome).toBe('already_reversed');
    expect((await callAs(svc, root, 'POST', `/effects/${stays}/release`)).body).toMatchObject({ status: 'reversed' });
  });

  it('never takes over or removes an operator entry on a shared object: ownership decides before anything is written', async () => {
    const withAlias = {
      ...policy,
      adapters: [
        ...policy.adapters,
        {
          effect_type: 'block',
          target_type: 'domain',
          adapter_id: 'lab_alias',
          block_action: 'custom.lab_alias.add',
          unblock_action: 'custom.lab_alias.remove',
          status_action: 'custom.lab_alias.has',
          connection_name: 'waf',
          parameters: {},
        },
      ],
      automatic_grants: [...policy.automatic_grants, { effect_type: 'block', target_type: 'domain', max_ttl_seconds: 900 }],
    };
    expect((await callAs(svc, root, 'PUT', '/response-policy', withAlias)).status).toBe(200);
    const writes = () => waf.received.filter((r) => r.path === '/alias/add' || r.path === '/alias/remove').length;
    const domainEffects = async (d: string) => (await callAs(svc, ana, 'GET', `/effects?target_type=domain&target=${d}`)).body.items;

    aliasEntries.set('operator.example.net', 'operator');
    const before = writes();
    const refusedRun = await run('block-domain', { target: 'operator.example.net', ttl: 600 });
    expect(step(refusedRun).error).toBe('adapter_ownership_refused: the alias holds this domain, but svc did not add it');
    expect(writes()).toBe(before);
    expect((await domainEffects('operator.example.net'))[0]).toMatchObject({ status: 'failed', last_error: 'adapter_ownership_refused' });

    const first = await run('block-domain', { target: 'ours.example.net', ttl: 600 });
    expect(step(first).output).toMatchObject({ enforced: true, enforcement_performed: true });
    expect(aliasEntries.get('ours.example.net')).toBe('svc');
    const afterFirst = writes();
    const again = await run('block-domain', { target: 'ours.example.net', ttl: 600 });
    expect(step(again).output).toMatchObject({ enforced: true, enforcement_performed: false });
    expect(writes()).toBe(afterFirst);

    // An operator replaced our entry with their own: releasing ours leaves theirs in place.
    aliasEntries.set('ours.example.net', 'operator');
    const released = await callAs(svc, root, 'POST', `/effects/${step(first).output.effect_id}/release`);
    expect(released.body).toMatchObject({ status: 'reversed' });
    expect(aliasEntries.get('ours.example.net')).toBe('operator');
    expect(writes()).toBe(afterFirst);
    expect((await callAs(svc, root, 'PUT', '/response-policy', policy)).status).toBe(200);
  });

  it('reverses an effect when its TTL ends, through the worker and the injected clock', async () => {
    const r = await run('block-ip', { target: '192.0.2.44', ttl: 120 });
    expect(r.status, JSON.stringify(r.action_log)).toBe('succeeded');
    expect([...rules.values()].map((x) => x.ip)).toContain('192.0.2.44');
    clock.advance(121_000);
    await expect.poll(async () => (await effectsOn('192.0.2.44'))[0]?.status, { timeout: 15_000 }).toBe('reversed');
    expect([...rules.values()].map((x) => x.ip)).not.toContain('192.0.2.44');
    expect((await effectsOn('198.51.100.9'))[0]?.status).toBe('active');
    const audit = (await callAs(svc, root, 'GET', '/audit?action=effect.reverse')).body.items;
    expect(audit.find((e: any) => e.detail.target === '192.0.2.44')).toMatchObject({
      actor: { kind: 'system', via: 'effect_expiry' },
      detail: { reason: 'ttl_expired', outcome: 'reversed' },
    });
  });
});
