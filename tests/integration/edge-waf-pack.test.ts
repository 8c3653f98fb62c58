/**
 * The shipped `edge_waf` adapter pack against the `svc dev edge-waf` stand-in, on every
 * engine (issue 22 "Shipped adapter packs": edge_waf, http bearer, ip, read declares
 * `mode` = `block`, reversal by the rule id the block returned). The stand-in answers in
 * Cloudflare's v4 shapes from ../shared/fixtures/vendors/cloudflare/; the pack is
 * installed from packs/ through the registry, bound in the response policy, and driven by
 * `response.ip_block`, `response.ip_status` and `response.ip_unblock` in runbooks: the rule
 * is stored with its nested configuration, a duplicate reads as already enforced, the
 * read-back says enforced, and the unblock deletes the rule by the recorded id.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDevEdgeWafArgs } from '../../runtime/cli/dev-edge-waf.ts';
import { startEdgeWafStandIn, type EdgeWafStandIn } from '../../runtime/cli/dev-standins/edge-waf.ts';
import { readFixtureJson } from '../support/fixtures.ts';
import { callAs, startInProcessService, testPerson, type InProcessService } from '../support/in-process-service.ts';
import { ipStepRunbookYaml } from '../support/runbook-definitions.ts';
import { installAndBindIpAdapter, runIpStep } from '../support/shipped-adapters.ts';
import { peerEngines } from '../support/service-process.ts';

const root = testPerson('root@example.com', [{ team: null, role: 'admin' }]);
const TOKEN = 'cf-token-for-tests';
const ZONE = '023e105f4ecef8ad9ca31a8372d0c353';

const runbooks = {
  'block.yml': ipStepRunbookYaml('edge-block', 'response.ip_block', ', ttl_seconds: 600, reason: "SVC-1: SSH brute force"'),
  'status.yml': ipStepRunbookYaml('edge-status', 'response.ip_status'),
  'unblock.yml': ipStepRunbookYaml('edge-unblock', 'response.ip_unblock'),
};

describe('svc dev edge-waf', () => {
  it('refuses to start without a token, and takes one from the flag or the environment', () => {
    expect(() => parseDevEdgeWafArgs({ port: 8787 }, {})).toThrow(/token is required/);
    expect(parseDevEdgeWafArgs({ token: 't-1', port: 0 }, {})).toEqual({ port: 0, token: 't-1' });
    expect(parseDevEdgeWafArgs({ port: 8787 }, { SVC_DEV_EDGE_WAF_TOKEN: 't-2' })).toMatchObject({ token: 't-2' });
  });
});

describe('the edge WAF stand-in', () => {
  let waf: EdgeWafStandIn;
  beforeAll(async () => {
    waf = await startEdgeWafStandIn({ token: TOKEN });
  });
  afterAll(async () => {
    await waf?.close();
  });
  const call = async (method: string, path: string, body?: unknown, token = TOKEN) => {
    const res = await fetch(`${waf.url}/client/v4/zones/${ZONE}/firewall/access_rules/rules${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as any };
  };

  it('answers in the vendor shapes of the fixtures: create, duplicate, read, list, delete, not found, bad token, bad body', async () => {
    const request = readFixtureJson<Record<string, unknown>>('vendors/cloudflare/POST_access_rule_create.request.json');
    const created = await call('POST', '', request);
    const fixture = readFixtureJson<{ result: Record<string, unknown> }>('vendors/cloudflare/POST_access_rule_create.200.json');
    expect(created.status).toBe(200);
    expect(Object.keys(created.body).sort()).toEqual(['errors', 'messages', 'result', 'success']);
    expect(Object.keys(created.body.result).sort()).toEqual(Object.keys(fixture.result).sort());
    expect(created.body.result).toMatchObject({ mode: 'challenge', configuration: { target: 'ip', value: '198.51.100.4' } });
    const observed = readFixtureJson<{ duplicate_on_create: { body: unknown } }>('vendors/cloudflare/errors.observed.json');
    expect((await call('POST', '', request)).body).toEqual(observed.duplicate_on_create.body);
    const id = created.body.result.id as string;
    expect((await call('GET', `/${id}`)).body.result).toEqual(created.body.result);
    expect((await call('GET', '?configuration.value=198.51.100.4')).body).toMatchObject({ result: [{ id }], result_info: { count: 1 } });
    const deleted = readFixtureJson<{ result: { id: string } }>('vendors/cloudflare/DELETE_access_rule.200.json');
    expect((await call('DELETE', `/${id}`)).body).toEqual({ ...deleted, result: { id } });
    const gone = await call('DELETE', `/${id}`);
    expect(gone).toMatchObject({ status: 404, body: { success: false, errors: [{ message: 'firewallaccessrules.api.not_found' }] } });
    expect((await call('GET', '', undefined, 'wrong')).body.errors).toEqual([{ code: 10000, message: 'authentication error' }]);
    expect((await call('POST', '', '{"mode":')).status).toBe(400);
    expect((await call('POST', '', { mode: 'block', configuration: { target: 'ip' } })).status).toBe(400);
  });
});

describe.each(peerEngines)('the shipped edge_waf pack on $name', ({ server }) => {
  let svc: InProcessService;
  let waf: EdgeWafStandIn;

  beforeAll(async () => {
    waf = await startEdgeWafStandIn({ token: TOKEN });
    svc = await startInProcessService({ server }, { runbooks, extraEnv: { SVC_PACKS_DIR: join(import.meta.dirname, '../../packs') } });
    const conn = await callAs(svc, root, 'POST', '/connections', { kind: 'http', name: 'edge-waf', base_url: waf.url, secret: TOKEN });
    expect(conn.status, conn.text).toBe(201);
    await installAndBindIpAdapter(svc, root, 'edge_waf', 'edge-waf', { zone: ZONE });
  }, 60_000);
  afterAll(async () => {
    await svc?.close();
    await waf?.close();
  });

  const run = (slug: string, ip: string) => runIpStep(svc, root, slug, ip);

  it('blocks, reads back, treats a duplicate as already enforced, and unblocks by the recorded rule id', async () => {
    const blocked = await run('edge-block', '203.0.113.50');
    expect(blocked.run.status, JSON.stringify(blocked.run.action_log)).toBe('succeeded');
    expect(blocked.step.output).toMatchObject({ enforced: true, enforcement_performed: true });
    const [rule] = [...waf.rules.values()];
    expect(rule).toMatchObject({ scope: { id: ZONE }, mode: 'block', configuration: { target: 'ip', value: '203.0.113.50' }, notes: 'SVC-1: SSH brute force' });
    const effect = (await callAs(svc, root, 'GET', `/effects/${blocked.step.output.effect_id}`)).body;
    expect(effect).toMatchObject({ status: 'active', adapter_id: 'edge_waf', handle: rule?.id });

    const again = await run('edge-block', '203.0.113.50');
    expect(again.step.output).toMatchObject({ enforced: true, enforcement_performed: false });
    expect(waf.rules.size).toBe(1);

    const read = await run('edge-status', '203.0.113.50');
    expect(read.step.output, JSON.stringify(read.step)).toEqual({ target: '203.0.113.50', enforced: true, enforcement_performed: false, state: 'enforced' });

    const released = await run('edge-unblock', '203.0.113.50');
    expect(released.run.status, JSON.stringify(released.run.action_log)).toBe('succeeded');
    expect(waf.rules.size).toBe(0);
    expect(waf.requests.filter((r) => r.method === 'DELETE').map((r) => r.path)).toEqual([`/client/v4/zones/${ZONE}/firewall/access_rules/rules/${rule?.id}`]);
    expect(waf.requests.every((r) => r.headers.authorization === `Bearer ${TOKEN}`)).toBe(true);
  });

  it('releases an effect that found the address already blocked without removing the rule it did not place, and says nothing was performed', async () => {
    const theirs = await fetch(`${waf.url}/client/v4/zones/${ZONE}/firewall/access_rules/rules`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ mode: 'block', configuration: { target: 'ip', value: '203.0.113.60' }, notes: 'blocked by hand' }),
    });
    expect(theirs.status).toBe(200);
    const blocked = await run('edge-block', '203.0.113.60');
    expect(blocked.step.output).toMatchObject({ enforced: true, enforcement_performed: false });
    const deletes = () => waf.requests.filter((r) => r.method === 'DELETE').length;
    const before = deletes();
    const released = await run('edge-unblock', '203.0.113.60');
    expect(released.step.output).toEqual({ target: '203.0.113.60', enforced: false, enforcement_performed: false, effect_id: blocked.step.output.effect_id });
    expect(deletes()).toBe(before);
    expect([...waf.rules.values()].map((r) => r.notes)).toEqual(['blocked by hand']);
  });
});
