/**
 * What a custom HTTP action makes of a vendor's answer, on the real service and worker on
 * the embedded engine (peerEngines) (SPEC.md "Managed containment actions", "Exit and verdict handling";
 * docs/configuration.md "Custom actions"): an XML answer from a local receiver read into
 * nested objects and its declared outputs extracted by their paths, a DTD answer left
 * as text, and an action's `effect.outcome` judging a success, a 2xx refusal, an
 * already-present 2xx and an already-absent 404.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver } from '../support/receiver.ts';
import { actionListed, callAs, runWhen, startInProcessService, testPerson, type InProcessService } from '../support/in-process-service.ts';
import { peerEngines } from '../support/service-process.ts';
import { oneStepRunbookYaml } from '../support/runbook-definitions.ts';

const root = testPerson('root@example.com', [{ team: null, role: 'admin' }]);

const ADDRESS_OBJECT = `<?xml version="1.0" encoding="UTF-8"?>
<response status="success" code="19">
  <result total-count="2">
    <entry name="svc-10.0.0.1"><ip-netmask>10.0.0.1/32</ip-netmask><tag><member>svc</member><member>ttl</member></tag></entry>
    <entry name="svc-10.0.0.2"><ip-netmask>10.0.0.2/32</ip-netmask></entry>
  </result>
  <msg lang="en">command succeeded</msg>
</response>`;
const WITH_DTD = '<?xml version="1.0"?><!DOCTYPE response [<!ENTITY x SYSTEM "file:///etc/passwd">]><response status="&x;"/>';

const xmlLookup = {
  name: 'custom.fw.address_lookup',
  title: 'Address object lookup',
  transport: 'http',
  default_connection: 'firewall',
  inputs: [{ name: 'object', type: 'string', required: true }],
  http: { method: 'GET', path: '/objects/{{ inputs.object }}' },
  outputs: [
    { name: 'status', path: '$.response.@status', type: 'string' },
    { name: 'total', path: '$.response.result.@total-count', type: 'string' },
    { name: 'second', path: '$.response.result.entry[1].@name', type: 'string' },
    { name: 'netmask', path: '$.response.result.entry[0].ip-netmask', type: 'string' },
    { name: 'tag', path: '$.response.result.entry[0].tag.member[1]', type: 'string' },
    { name: 'message', path: '$.response.msg.#text', type: 'string' },
    { name: 'code', path: '$.response.@code', type: 'integer' },
  ],
  effect_type: 'enrich',
  risk: 'read',
};

const aliasAdd = {
  name: 'custom.fw.alias_add',
  title: 'Add an address to the block alias',
  transport: 'http',
  default_connection: 'firewall',
  inputs: [{ name: 'ip', type: 'string', required: true }],
  http: { method: 'POST', path: '/alias/svc_block/add', body: { address: '{{ inputs.ip }}' } },
  outputs: [
    { name: 'status', path: '$.status', type: 'string' },
    { name: 'message', path: '$.message', type: 'string' },
  ],
  effect_type: 'none',
  risk: 'write',
  effect: {
    outcome: { output: 'status', success: ['done'], message: 'message', already_present: ['already exists'], already_absent: ['not found'] },
  },
};
/** What the firewall answers for each address. */
const aliasAnswers: Record<string, { status: number; body: unknown }> = {
  '10.0.0.1': { status: 200, body: { status: 'done', message: 'added' } },
  '10.0.0.2': { status: 200, body: { status: 'failed', message: 'address 10.0.0.2 is reserved' } },
  '10.0.0.3': { status: 200, body: { status: 'failed', message: 'Address already exists in alias svc_block' } },
  '10.0.0.4': { status: 404, body: { message: 'address not found in alias svc_block' } },
};

const runbook = oneStepRunbookYaml;

type Run = { id: string; status: string; error: string | null; steps: any[]; action_log: any[] };

describe.each(peerEngines)('custom actions reading vendor answers on $name', ({ server }) => {
  let svc: InProcessService;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let caseId = '';

  beforeAll(async () => {
    receiver = await startReceiver((req, res) => {
      if (req.path === '/api/objects/svc-list') {
        res.writeHead(200, { 'content-type': 'application/xml; charset=utf-8' });
        res.end(ADDRESS_OBJECT);
      } else if (req.path === '/api/alias/svc_block/add') {
        const answer = aliasAnswers[(JSON.parse(req.body) as { address: string }).address] ?? { status: 400, body: {} };
        res.writeHead(answer.status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(answer.body));
      } else if (req.path === '/api/objects/dtd') {
        res.writeHead(200, { 'content-type': 'text/xml' });
        res.end(WITH_DTD);
      } else {
        res.writeHead(404).end();
      }
    });
    svc = await startInProcessService({ server });
    const conn = await callAs(svc, root, 'POST', '/connections', { kind: 'http', name: 'firewall', base_url: `${receiver.url}/api`, secret: 'fw-key' });
    expect(conn.status, conn.text).toBe(201);
    for (const spec of [xmlLookup, aliasAdd]) {
      const created = await callAs(svc, root, 'POST', '/custom-actions', { spec });
      expect(created.status, created.text).toBe(201);
    }
    const kase = await callAs(svc, root, 'POST', '/cases', { title: 'Vendor answers', severity: 'high', team: null });
    expect(kase.status, kase.text).toBe(201);
    caseId = kase.body.id;
    await actionListed(svc, root, xmlLookup.name);
    await actionListed(svc, root, aliasAdd.name);
  }, 60_000);
  afterAll(async () => {
    await svc?.close();
    await receiver?.close();
  });

  const run = async (slug: string, action: string, withMap: string): Promise<Run> => {
    const saved = await callAs(svc, root, 'POST', `/runbooks/${slug}`, { yaml_text: runbook(slug, action, withMap) });
    expect(saved.status, saved.text).toBeLessThan(300);
    const queued = await callAs(svc, root, 'POST', `/cases/${caseId}/runbooks/${slug}/run`, {});
    expect(queued.status, queued.text).toBe(202);
    return runWhen(svc, root, queued.body.id, /^(succeeded|failed)$/);
  };

  it('reads an XML answer into nested objects and extracts the declared outputs by attribute, text and list paths', async () => {
    const done = await run('xml-lookup', xmlLookup.name, '{ object: "svc-list" }');
    expect(done.status, JSON.stringify(done)).toBe('succeeded');
    expect(done.steps.find((s) => s.id === 'call').output).toEqual({
      status: 'success',
      total: '2',
      second: 'svc-10.0.0.2',
      netmask: '10.0.0.1/32',
      tag: 'ttl',
      message: 'command succeeded',
      // Values stay strings: "19" is not an integer, so the declared type check leaves it null.
      code: null,
    });
    expect(receiver.received.at(-1)?.path).toBe('/api/objects/svc-list');
  });

  it('leaves an XML answer with a DTD as text: no entity is resolved and no output is read', async () => {
    const done = await run('xml-dtd', xmlLookup.name, '{ object: "dtd" }');
    expect(done.status, JSON.stringify(done)).toBe('succeeded');
    const output = done.steps.find((s) => s.id === 'call').output;
    expect(Object.values(output).every((value) => value === null)).toBe(true);
    expect(JSON.stringify(done)).not.toContain('root:');
  });

  it('keeps the effect declaration in the saved spec', async () => {
    const listed = await callAs(svc, root, 'GET', '/custom-actions');
    const view = listed.body.items.find((a: { name: string }) => a.name === aliasAdd.name);
    expect(view.spec.effect).toEqual(aliasAdd.effect);
  });

  it('judges each answer by effect.outcome: success, a 2xx refusal, already present, already absent', async () => {
    const added = await run('alias-ok', aliasAdd.name, '{ ip: "10.0.0.1" }');
    expect(added.status, JSON.stringify(added)).toBe('succeeded');
    expect(added.steps.find((s) => s.id === 'call').output).toEqual({ status: 'done', message: 'added' });

    const cases: [string, string, string][] = [
      ['alias-refused', '10.0.0.2', 'vendor_refused: custom.fw.alias_add: address 10.0.0.2 is reserved'],
      ['alias-present', '10.0.0.3', 'vendor_already_present: custom.fw.alias_add: Address already exists in alias svc_block'],
      ['alias-absent', '10.0.0.4', 'vendor_already_absent: custom.fw.alias_add: address not found in alias svc_block'],
    ];
    for (const [slug, ip, error] of cases) {
      const sent = receiver.received.length;
      const done = await run(slug, aliasAdd.name, `{ ip: "${ip}" }`);
      expect(done.status, JSON.stringify(done)).toBe('failed');
      expect(done.steps.find((s) => s.id === 'call').error).toBe(error);
      // A verdict is final: the vendor is asked once.
      expect(receiver.received.length - sent).toBe(1);
    }
  });
});
