/**
 * The shipped `dns_gateway_list` adapter pack, on the embedded engine (peerEngines) (issue 22 "Shipped adapter
 * packs": dns_gateway_list, http bearer, domain, no read). Installed from packs/, bound as
 * `block`/`domain` without a status action, and driven by `response.domain_block`,
 * `response.domain_status` and `response.domain_unblock` against a gateway-list stand-in
 * in Cloudflare's Zero Trust lists shape: the block appends the normalized name to the
 * list (an array body), the read answers `adapter_no_status_action` before any call, the
 * release and the TTL's end remove the name, a duplicate fails with the vendor's message
 * (never a phantom success), and a protected name or its parent is refused before the
 * gateway sees a request.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manualClock } from '../support/clock.ts';
import { startGatewayListServer, type GatewayListServer } from '../support/gateway-list-server.ts';
import { callAs, startInProcessService, testPerson, type InProcessService } from '../support/in-process-service.ts';
import { targetStepRunbookYaml } from '../support/runbook-definitions.ts';
import { peerEngines } from '../support/service-process.ts';
import { installPack, publishBinding, runTargetStep } from '../support/shipped-adapters.ts';

const root = testPerson('root@example.com', [{ team: null, role: 'admin' }]);
const TOKEN = 'zt-token-for-tests';
const ACCOUNT = '699d98642c564d2e855e9661899b7252';
const LIST = 'f174e90a-fafe-4643-bbbc-4a0ed4fc8415';

const runbooks = {
  'block.yml': targetStepRunbookYaml('dns-block', 'response.domain_block', 'domain', ', ttl_seconds: 600, reason: "SVC-7: C2 domain"'),
  'short.yml': targetStepRunbookYaml('dns-block-short', 'response.domain_block', 'domain', ', ttl_seconds: 60'),
  'status.yml': targetStepRunbookYaml('dns-status', 'response.domain_status', 'domain'),
  'unblock.yml': targetStepRunbookYaml('dns-unblock', 'response.domain_unblock', 'domain'),
};

describe.each(peerEngines)('the shipped dns_gateway_list pack on $name', ({ server }) => {
  const clock = manualClock(new Date());
  let svc: InProcessService;
  let gateway: GatewayListServer;

  beforeAll(async () => {
    gateway = await startGatewayListServer({ token: TOKEN, account: ACCOUNT, list: LIST });
    svc = await startInProcessService({ server }, { runbooks, clock: clock.now, extraEnv: { SVC_PACKS_DIR: join(import.meta.dirname, '../../packs') } });
    const conn = await callAs(svc, root, 'POST', '/connections', { kind: 'http', name: 'gateway', base_url: gateway.url, secret: TOKEN });
    expect(conn.status, conn.text).toBe(201);
    await installPack(svc, root, 'dns_gateway_list', ['custom.dns_gateway_list.block', 'custom.dns_gateway_list.unblock']);
    const binding = {
      effect_type: 'block',
      target_type: 'domain',
      adapter_id: 'dns_gateway_list',
      block_action: 'custom.dns_gateway_list.block',
      unblock_action: 'custom.dns_gateway_list.unblock',
      status_action: null,
      connection_name: 'gateway',
      parameters: { account: ACCOUNT, list: LIST },
    };
    await publishBinding(svc, root, binding, { type: 'domain', value: 'login.example.com' }, true);
  }, 60_000);
  afterAll(async () => {
    await svc?.close();
    await gateway?.close();
  });

  const run = async (slug: string, domain: string) => (await runTargetStep(svc, root, slug, { domain })).step;

  it('adds the normalized name to the list, has no read, fails a duplicate with the vendor message, and removes the name on release', async () => {
    const blocked = await run('dns-block', 'Evil.Example.');
    expect(blocked.output, JSON.stringify(blocked)).toMatchObject({ target: 'evil.example', enforced: true, enforcement_performed: true });
    expect(gateway.values(LIST)).toEqual(['evil.example']);
    expect(JSON.parse(gateway.requests.at(-1)?.body ?? '{}')).toEqual({ append: [{ value: 'evil.example', description: 'SVC-7: C2 domain' }] });
    expect((await callAs(svc, root, 'GET', `/effects/${blocked.output.effect_id}`)).body).toMatchObject({ status: 'active', adapter_id: 'dns_gateway_list' });

    const before = gateway.requests.length;
    const read = await run('dns-status', 'evil.example');
    expect(read.status).not.toBe('ok');
    expect(read.error).toMatch(/^adapter_no_status_action: /);
    expect(gateway.requests).toHaveLength(before);

    const again = await run('dns-block', 'evil.example');
    expect(again.status).not.toBe('ok');
    expect(again.error).toMatch(
      /^http_status: custom\.dns_gateway_list\.block: 127\.0\.0\.1:\d+ answered HTTP 400: duplicate item: evil\.example is already in the list$/,
    );
    expect(gateway.values(LIST)).toEqual(['evil.example']);

    const released = await run('dns-unblock', 'evil.example');
    expect(released.status, JSON.stringify(released)).toBe('ok');
    expect(gateway.values(LIST)).toEqual([]);
    expect(JSON.parse(gateway.requests.at(-1)?.body ?? '{}')).toEqual({ remove: ['evil.example'] });
    expect((await callAs(svc, root, 'GET', `/effects/${blocked.output.effect_id}`)).body.status).toBe('reversed');
  });

  it('refuses a runbook that calls the adapter directly, around the response policy', async () => {
    const direct = targetStepRunbookYaml(
      'dns-direct',
      'custom.dns_gateway_list.block',
      'domain',
      `, account: ${ACCOUNT}, list: ${LIST}, connection: gateway`,
    ).replace('domain: "{{ inputs.domain }}"', 'value: "{{ inputs.domain }}"');
    const checked = await callAs(svc, root, 'POST', '/runbooks/validate', { yaml_text: direct });
    expect(checked.body.errors).toEqual([
      expect.objectContaining({
        msg: expect.stringMatching(/custom\.dns_gateway_list\.block' is a containment adapter: a runbook calls it through the response\.\* actions/),
      }),
    ]);
    const saved = await callAs(svc, root, 'POST', '/runbooks/dns-direct', { yaml_text: direct });
    expect(saved.status).toBe(422);
  });

  it('refuses a protected name and a parent of one before the gateway sees a request', async () => {
    const before = gateway.requests.length;
    for (const domain of ['login.example.com', 'sso.login.example.com', 'example.com']) {
      const refused = await run('dns-block', domain);
      expect(refused.error, domain).toMatch(/^target_protected: /);
    }
    const malformed = await run('dns-block', '*.example.net');
    expect(malformed.error).toMatch(/^target_invalid: /);
    expect(gateway.requests).toHaveLength(before);
  });

  it('removes the name when the TTL ends, through the worker and the injected clock', async () => {
    const blocked = await run('dns-block-short', 'c2.example.org');
    expect(blocked.output).toMatchObject({ enforced: true });
    expect(gateway.values(LIST)).toContain('c2.example.org');
    clock.advance(61_000);
    await expect.poll(async () => (await callAs(svc, root, 'GET', `/effects/${blocked.output.effect_id}`)).body.status, { timeout: 15_000 }).toBe('reversed');
    expect(gateway.values(LIST)).not.toContain('c2.example.org');
  });
});
