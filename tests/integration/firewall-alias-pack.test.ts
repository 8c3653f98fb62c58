/**
 * The shipped `firewall_alias_a` adapter pack against a local stand-in of the OPNsense
 * alias API (tests/support/opnsense-server.ts), on the embedded engine (peerEngines) (issue 22 "Shipped adapter
 * packs": firewall_alias_a, http, ip, shared alias with ownership read; the read declares
 * `entry`, the exact entry, since the alias table carries no `alias_type`). The stand-in
 * answers in the vendor's shapes from ../shared/fixtures/vendors/opnsense/; the pack is
 * installed from packs/ through the registry, bound in the response policy with the alias
 * only svc writes to, and driven by `response.ip_block`, `response.ip_status` and
 * `response.ip_unblock`: the address lands in svc's alias, a second block is already
 * enforced with nothing written, the read-back is exact (203.0.113.70 in the alias is no
 * block of 203.0.113.7, which is really added), the release removes only svc's entry, a
 * reversal whose entry is already gone calls no delete and leaves the operator's own
 * alias alone, and a runbook calling the adapter directly, around the policy, is refused.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFixtureJson } from '../support/fixtures.ts';
import { callAs, startInProcessService, testPerson, type InProcessService } from '../support/in-process-service.ts';
import { opnsenseAuthorization, startOpnsenseStandIn, type OpnsenseStandIn } from '../support/opnsense-server.ts';
import { ipStepRunbookYaml } from '../support/runbook-definitions.ts';
import { installAndBindIpAdapter, runIpStep } from '../support/shipped-adapters.ts';
import { peerEngines } from '../support/service-process.ts';

const root = testPerson('root@example.com', [{ team: null, role: 'admin' }]);
const KEY = 'w86XNZob/8Oq8aC5r0kbNarNtdpoQU781fyoeaOBQsBwkXUt';
const SECRET = 'XeD26XVrJ5ilAc/EmglCRC+0j2e57tRsjHwFepOseySWLM53pJASeTA3';
const OPERATOR_ENTRY = '198.51.100.9';

/** The operator's own block list with one entry of theirs, and the alias only svc writes to. */
const firewallAliases = () => [
  { name: 'blocklist', type: 'host' as const, description: 'blocked by hand', content: [OPERATOR_ENTRY] },
  { name: 'blocklist_svc', type: 'host' as const, description: 'written by svc only' },
];

const runbooks = {
  'block.yml': ipStepRunbookYaml('alias-block', 'response.ip_block', ', ttl_seconds: 600, reason: "SVC-1: SSH brute force"'),
  'status.yml': ipStepRunbookYaml('alias-status', 'response.ip_status'),
  'unblock.yml': ipStepRunbookYaml('alias-unblock', 'response.ip_unblock'),
};

type AliasUtilFixture = { endpoints: Record<string, Record<string, unknown>> };

describe('the OPNsense alias stand-in', () => {
  let fw: OpnsenseStandIn;
  beforeAll(async () => {
    fw = await startOpnsenseStandIn({ key: KEY, secret: SECRET, aliases: [...firewallAliases(), { name: 'nets', type: 'network' }] });
  });
  afterAll(async () => {
    await fw?.close();
  });
  const call = async (method: string, path: string, body?: string, type = 'application/json', authorization = opnsenseAuthorization(KEY, SECRET)) => {
    const res = await fetch(`${fw.url}${path}`, { method, headers: { authorization, 'content-type': type }, ...(body === undefined ? {} : { body }) });
    return { status: res.status, body: (await res.json()) as any };
  };

  it('answers add and delete with the literal answers of the fixture, form or JSON, whether or not the address is there', async () => {
    const { endpoints } = readFixtureJson<AliasUtilFixture>('vendors/opnsense/alias_util_responses.json');
    const add = endpoints['POST /api/firewall/alias_util/add/{alias} form/json field address'] ?? {};
    const del = endpoints['POST /api/firewall/alias_util/delete/{alias} field address'] ?? {};

    expect((await call('POST', '/api/firewall/alias_util/add/blocklist_svc', 'address=203.0.113.7', 'application/x-www-form-urlencoded')).body).toEqual(add.ok);
    expect((await call('POST', '/api/firewall/alias_util/add/blocklist_svc', JSON.stringify({ address: '203.0.113.7' }))).body).toEqual(add.ok);
    expect(fw.aliases.get('blocklist_svc')?.content).toEqual(['203.0.113.7']);
    expect((await call('POST', '/api/firewall/alias_util/add/blocklist_svc', JSON.stringify({ address: 'fw.example.net' }))).body).toEqual(
      add.invalid_characters_in_address,
    );
    expect((await call('GET', '/api/firewall/alias_util/add/blocklist_svc')).body).toEqual(add.GET_or_missing_address);
    expect((await call('POST', '/api/firewall/alias_util/add/blocklist_svc', JSON.stringify({ ip: '203.0.113.8' }))).body).toEqual(add.GET_or_missing_address);

    expect((await call('POST', '/api/firewall/alias_util/delete/blocklist_svc', JSON.stringify({ address: '203.0.113.7' }))).body).toEqual(del.ok);
    expect((await call('POST', '/api/firewall/alias_util/delete/blocklist_svc', JSON.stringify({ address: '203.0.113.7' }))).body).toEqual(del.ok);
    expect((await call('GET', '/api/firewall/alias_util/delete/blocklist_svc')).body).toEqual(del.GET_or_missing_address);
    expect(fw.aliases.get('blocklist_svc')?.content).toEqual([]);
  });

  it('masks an address on a network alias, lists tables sorted as pfctl shows them, and searches aliases word by word', async () => {
    expect((await call('POST', '/api/firewall/alias_util/add/nets', JSON.stringify({ address: '192.0.2.50' }))).body).toEqual({ status: 'done' });
    expect((await call('POST', '/api/firewall/alias_util/add/nets', JSON.stringify({ address: '2001:db8::5' }))).body).toEqual({ status: 'done' });
    expect((await call('POST', '/api/firewall/alias_util/add/nets', JSON.stringify({ address: '192.0.2.5' }))).body).toEqual({ status: 'done' });
    expect((await call('POST', '/api/firewall/alias_util/add/nets', JSON.stringify({ address: '198.51.100.0/24' }))).body).toEqual({ status: 'done' });
    expect(fw.aliases.get('nets')?.content).toEqual(['192.0.2.50/32', '2001:db8::5/128', '192.0.2.5/32', '198.51.100.0/24']);
    expect((await call('GET', '/api/firewall/alias_util/list/nets')).body).toEqual({
      total: 4,
      rowCount: 9999,
      current: 1,
      rows: [{ ip: '192.0.2.5' }, { ip: '192.0.2.50' }, { ip: '198.51.100.0/24' }, { ip: '2001:db8::5' }],
    });
    expect((await call('GET', '/api/firewall/alias_util/list/nope')).body).toEqual({ total: 0, rowCount: 9999, current: 1, rows: [] });
    expect((await call('POST', '/api/firewall/alias_util/delete/nets', JSON.stringify({ address: '192.0.2.5' }))).body).toEqual({ status: 'done' });
    expect(fw.aliases.get('nets')?.content).toEqual(['192.0.2.50/32', '2001:db8::5/128', '198.51.100.0/24']);

    const found = await call('GET', `/api/firewall/alias/search_item?searchPhrase=${encodeURIComponent(`blocklist ${OPERATOR_ENTRY}`)}`);
    expect(found.body).toMatchObject({
      total: 1,
      rowCount: 1,
      current: 1,
      rows: [{ name: 'blocklist', type: 'host', '%type': 'Host(s)', content: OPERATOR_ENTRY }],
    });
    expect(Object.keys(found.body.rows[0]).sort()).toEqual(['%type', 'content', 'description', 'enabled', 'name', 'type', 'uuid']);
    expect((await call('GET', '/api/firewall/alias/search_item?searchPhrase=blocklist_svc+198.51.100.9')).body).toMatchObject({ total: 0, rows: [] });
    expect((await call('POST', '/api/firewall/alias/search_item', JSON.stringify({ searchPhrase: 'HOST(S) blocklist' }))).body.total).toBe(2);
  });

  it('refuses a wrong key, an empty JSON body, an unknown alias, a missing alias segment and an unknown endpoint in the vendor words', async () => {
    const wrong = await call('GET', '/api/firewall/alias_util/list/blocklist', undefined, 'application/json', opnsenseAuthorization(KEY, 'wrong'));
    expect(wrong).toEqual({ status: 401, body: { status: 401, message: 'Authentication Failed' } });
    expect((await call('GET', '/api/firewall/alias_util/list/blocklist', undefined, 'application/json', '')).status).toBe(401);
    expect(await call('POST', '/api/firewall/alias_util/add/blocklist_svc', '')).toEqual({
      status: 400,
      body: { message: 'Invalid JSON syntax', status: 400 },
    });
    expect((await call('POST', '/api/firewall/alias_util/add/nope', JSON.stringify({ address: '203.0.113.7' }))).body).toEqual({
      status: 'failed',
      status_msg: 'non existing alias nope',
    });
    expect(await call('POST', '/api/firewall/alias_util/delete', JSON.stringify({ address: '203.0.113.7' }))).toEqual({
      status: 400,
      body: { message: 'action delete expects at least 1 parameter(s)', status: 400 },
    });
    expect((await call('GET', '/api/firewall/alias/flush_everything')).status).toBe(404);
  });
});

describe.each(peerEngines)('the shipped firewall_alias_a pack on $name', ({ server }) => {
  let svc: InProcessService;
  let fw: OpnsenseStandIn;

  beforeAll(async () => {
    fw = await startOpnsenseStandIn({ key: KEY, secret: SECRET, aliases: firewallAliases() });
    svc = await startInProcessService({ server }, { runbooks, extraEnv: { SVC_PACKS_DIR: join(import.meta.dirname, '../../packs') } });
    const conn = await callAs(svc, root, 'POST', '/connections', {
      kind: 'http',
      name: 'opnsense',
      base_url: fw.url,
      secret: Buffer.from(`${KEY}:${SECRET}`).toString('base64'),
      config: { auth_prefix: 'Basic ' },
    });
    expect(conn.status, conn.text).toBe(201);
    await installAndBindIpAdapter(svc, root, 'firewall_alias_a', 'opnsense', { alias: 'blocklist_svc' });
  }, 60_000);
  afterAll(async () => {
    await svc?.close();
    await fw?.close();
  });

  const run = (slug: string, ip: string) => runIpStep(svc, root, slug, ip);
  const writes = () => fw.requests.filter((r) => /^\/api\/firewall\/alias_util\/(add|delete)\//.test(r.path));
  const listed = (alias: string) => fw.aliases.get(alias)?.content ?? [];
  const effect = async (id: string) => (await callAs(svc, root, 'GET', `/effects/${id}`)).body;

  it('passes its own pack test: every fixture (a read that finds nothing among them) and template', async () => {
    const tested = await callAs(svc, root, 'POST', '/integration-packs/registry/firewall_alias_a/test', {});
    expect(tested.status, tested.text).toBe(200);
    expect(tested.body.summary.fail, tested.text).toBe(0);
    expect(tested.body.rows.filter((r: any) => r.check === 'fixtures').map((r: any) => r.status)).toEqual(Array(6).fill('pass'));
  });

  it('blocks into its own alias, reads back, writes nothing for a second block, and the release removes only its entry', async () => {
    const blocked = await run('alias-block', '203.0.113.7');
    expect(blocked.run.status, JSON.stringify(blocked.run.action_log)).toBe('succeeded');
    expect(blocked.step.output).toMatchObject({ enforced: true, enforcement_performed: true });
    expect(listed('blocklist_svc')).toEqual(['203.0.113.7']);
    expect(await effect(blocked.step.output.effect_id)).toMatchObject({ status: 'active', adapter_id: 'firewall_alias_a', already_enforced: false });
    const [added] = writes();
    expect(added).toMatchObject({ method: 'POST', path: '/api/firewall/alias_util/add/blocklist_svc' });
    expect(JSON.parse(added?.body ?? '')).toEqual({ address: '203.0.113.7' });

    const again = await run('alias-block', '203.0.113.7');
    expect(again.step.output).toMatchObject({ enforced: true, enforcement_performed: false });
    expect(await effect(again.step.output.effect_id)).toMatchObject({ status: 'active', already_enforced: true });
    expect(writes()).toHaveLength(1);
    expect(listed('blocklist_svc')).toEqual(['203.0.113.7']);

    const read = await run('alias-status', '203.0.113.7');
    expect(read.step.output, JSON.stringify(read.step)).toEqual({ target: '203.0.113.7', enforced: true, enforcement_performed: false, state: 'enforced' });
    // The status reads svc's alias only: the operator's own list is not svc's block.
    expect((await run('alias-status', OPERATOR_ENTRY)).step.output).toMatchObject({ enforced: false, state: 'not_enforced' });
    expect((await run('alias-status', '192.0.2.1')).step.output).toMatchObject({ enforced: false, state: 'not_enforced' });

    const released = await run('alias-unblock', '203.0.113.7');
    expect(released.run.status, JSON.stringify(released.run.action_log)).toBe('succeeded');
    expect(released.step.output).toMatchObject({ enforced: false, enforcement_performed: true });
    expect(listed('blocklist_svc')).toEqual([]);
    expect(listed('blocklist')).toEqual([OPERATOR_ENTRY]);
    const deleted = writes().filter((r) => r.path.startsWith('/api/firewall/alias_util/delete/'));
    expect(deleted.map((r) => [r.path, JSON.parse(r.body)])).toEqual([['/api/firewall/alias_util/delete/blocklist_svc', { address: '203.0.113.7' }]]);
    expect((await run('alias-status', '203.0.113.7')).step.output).toMatchObject({ enforced: false, state: 'not_enforced' });
    expect(fw.requests.every((r) => r.headers.authorization === opnsenseAuthorization(KEY, SECRET))).toBe(true);
  });

  it('really blocks 203.0.113.7 beside 203.0.113.70 in its alias, and reads each address back exactly', async () => {
    fw.aliases.get('blocklist_svc')?.content.push('203.0.113.70');
    // A text search finds 203.0.113.7 inside 203.0.113.70: read as enforced, the block would place nothing.
    expect((await run('alias-status', '203.0.113.7')).step.output).toMatchObject({ enforced: false, state: 'not_enforced' });
    const before = writes().length;

    const blocked = await run('alias-block', '203.0.113.7');
    expect(blocked.run.status, JSON.stringify(blocked.run.action_log)).toBe('succeeded');
    expect(blocked.step.output).toMatchObject({ enforced: true, enforcement_performed: true });
    expect(await effect(blocked.step.output.effect_id)).toMatchObject({ status: 'active', already_enforced: false });
    expect(
      writes()
        .slice(before)
        .map((r) => [r.path, JSON.parse(r.body)]),
    ).toEqual([['/api/firewall/alias_util/add/blocklist_svc', { address: '203.0.113.7' }]]);
    expect(listed('blocklist_svc')).toEqual(['203.0.113.70', '203.0.113.7']);
    expect((await run('alias-status', '203.0.113.7')).step.output).toMatchObject({ enforced: true, state: 'enforced' });
    expect((await run('alias-status', '203.0.113.8')).step.output).toMatchObject({ enforced: false, state: 'not_enforced' });

    const released = await run('alias-unblock', '203.0.113.7');
    expect(released.step.output).toMatchObject({ enforced: false, enforcement_performed: true });
    expect(
      writes()
        .slice(before + 1)
        .map((r) => [r.path, JSON.parse(r.body)]),
    ).toEqual([['/api/firewall/alias_util/delete/blocklist_svc', { address: '203.0.113.7' }]]);
    expect(listed('blocklist_svc')).toEqual(['203.0.113.70']);
    expect((await run('alias-status', '203.0.113.7')).step.output).toMatchObject({ enforced: false, state: 'not_enforced' });
    expect((await run('alias-status', '203.0.113.70')).step.output).toMatchObject({ enforced: true, state: 'enforced' });
    const alias = fw.aliases.get('blocklist_svc');
    if (alias) alias.content = [];
  });

  it("reverses an effect whose entry is already gone as already reversed, with no delete, and leaves the operator's entry", async () => {
    const blocked = await run('alias-block', '203.0.113.20');
    expect(blocked.step.output).toMatchObject({ enforced: true, enforcement_performed: true });
    const alias = fw.aliases.get('blocklist_svc');
    if (alias) alias.content = alias.content.filter((e) => e !== '203.0.113.20');
    fw.aliases.get('blocklist')?.content.push('203.0.113.20');
    const before = writes().length;

    const released = await callAs(svc, root, 'POST', `/effects/${blocked.step.output.effect_id}/release`);
    expect(released.body, released.text).toMatchObject({ status: 'reversed' });
    expect(writes()).toHaveLength(before);
    expect(listed('blocklist')).toEqual([OPERATOR_ENTRY, '203.0.113.20']);
    const audit = (await callAs(svc, root, 'GET', '/audit?action=effect.reverse')).body.items;
    expect(audit.find((e: any) => e.target.id === blocked.step.output.effect_id)?.detail).toMatchObject({
      adapter_id: 'firewall_alias_a',
      outcome: 'already_reversed',
    });
  });

  it('refuses a runbook that calls the adapter around the response policy, so no entry is written outside an effect', async () => {
    const direct = await callAs(svc, root, 'POST', '/runbooks/alias-direct', {
      yaml_text: ipStepRunbookYaml('alias-direct', 'custom.firewall_alias_a.block', ', alias: blocklist_svc, connection: opnsense'),
    });
    expect(direct.status, direct.text).toBe(422);
    expect(direct.text).toMatch(/custom\.firewall_alias_a\.block' is a containment adapter/);
  });
});
