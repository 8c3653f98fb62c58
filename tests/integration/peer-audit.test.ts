/**
 * The peer audit route on every engine (docs/suite-contracts.md "Peer audit route"):
 * identity's status-scope token only, cursor paging oldest first, filters by action and
 * time, 400 for malformed queries, and a chain the reader verifies from the answer alone.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chainHash, createChainVerifier } from '../../domain/shared/hash-chain.ts';
import { callAs, expectDeclared, startInProcessService, testPerson, type InProcessService } from '../support/in-process-service.ts';
import { e2eEngines } from '../support/service-process.ts';

const root = testPerson('root@example.com', [{ team: null, role: 'admin' }]);
const ana = testPerson('ana@example.com', [{ team: 'blue', role: 'analyst' }]);

type Item = Record<string, unknown> & { index: number; at: string; action: string; prev_hash: string; hash: string };
type Page = { contract_version: number; product: string; items: Item[]; next_after: number | null };

/** The entry as it was hashed: the item without the fields the page adds around it. */
const entryOf = (item: Item) => Object.fromEntries(Object.entries(item).filter(([k]) => !['index', 'prev_hash', 'hash'].includes(k)));

describe.each(e2eEngines)('peer audit route on $name', ({ server }) => {
  let svc: InProcessService;
  const statusToken = () => svc.identity.sign({ token_use: 'service', sub: 'identity', scope: 'svc:peer:status:read' });
  const get = async (query: string, token?: string) => {
    const res = await svc.request(`/peer/v1/audit${query}`, { headers: { authorization: `Bearer ${token ?? (await statusToken())}` } });
    const text = await res.text();
    await expectDeclared(svc, 'GET', '/peer/v1/audit', res, text);
    return { status: res.status, body: JSON.parse(text), cache: res.headers.get('cache-control') };
  };
  const page = async (query: string) => {
    const res = await get(query);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.cache).toBe('no-store');
    return res.body as Page;
  };

  beforeAll(async () => {
    svc = await startInProcessService({ server });
    for (const title of ['Beaconing host', 'Phishing wave', 'Lateral movement']) {
      const opened = await callAs(svc, ana, 'POST', '/cases', { title, severity: 'high', team: 'blue' });
      expect(opened.status, opened.text).toBe(201);
      expect((await callAs(svc, ana, 'POST', `/cases/${opened.body.id}/acknowledge`)).status).toBe(200);
    }
    const connection = await callAs(svc, root, 'POST', '/connections', {
      kind: 'webhook',
      name: 'soc-hook',
      base_url: 'https://hooks.example/soc',
      secret: 's3cret-value',
    });
    expect(connection.status, connection.text).toBe(201);
  }, 60_000);
  afterAll(async () => {
    await svc?.close();
  });

  it('pages the whole chain oldest first, and the pages verify on their own against the service verdict', async () => {
    const all: Item[] = [];
    let after: number | null = null;
    for (let pages = 0; pages < 50; pages += 1) {
      const p: Page = await page(`?limit=2${after === null ? '' : `&after=${after}`}`);
      expect(p).toMatchObject({ contract_version: 1, product: 'svc' });
      all.push(...p.items);
      after = p.next_after;
      if (after === null) break;
    }
    expect(all.map((i) => i.index)).toEqual(all.map((_, n) => n));
    const verifier = createChainVerifier();
    for (const item of all) verifier.push({ prev_hash: item.prev_hash, hash: item.hash, row: entryOf(item) });
    const verdict = await callAs(svc, root, 'GET', '/audit/verify');
    expect(verifier.result()).toEqual({ valid: true, checked: verdict.body.checked, first_broken_index: null });
  });

  it('filters by action and by time, each entry still hashing to its stored hash', async () => {
    const acks = (await page('?action=case.acknowledge')).items;
    expect(acks).toHaveLength(3);
    for (const item of acks) {
      expect(item.action).toBe('case.acknowledge');
      expect(item.hash).toBe(chainHash(item.prev_hash, entryOf(item)));
    }
    const everything = (await page('')).items;
    const middle = acks[1] as Item;
    const since = (await page(`?since=${encodeURIComponent(middle.at)}`)).items;
    expect(since.map((i) => i.index)).toEqual(everything.filter((i) => Date.parse(i.at) >= Date.parse(middle.at)).map((i) => i.index));
    expect(since[0]?.index).toBeLessThanOrEqual(middle.index);
    const until = (await page(`?until=${encodeURIComponent(middle.at)}`)).items;
    expect(until.map((i) => i.index)).toEqual(everything.filter((i) => Date.parse(i.at) < Date.parse(middle.at)).map((i) => i.index));
    expect((await page('?since=2999-01-01T00:00:00Z')).items).toEqual([]);
  });

  it("accepts identity's status-scope token only", async () => {
    const human = await callAs(svc, root, 'GET', '/peer/v1/audit');
    expect(human.status).toBe(403);
    const otherScope = await get('', await svc.identity.sign({ token_use: 'service', sub: 'identity', scope: 'svc:peer:account:write' }));
    expect(otherScope.status).toBe(403);
    expect(otherScope.body).toMatchObject({ code: 'forbidden' });
    const workload = await get('', await svc.identity.sign({ token_use: 'exchange', sub: 'reporting', scope: 'svc:peer:status:read svc:admin:read' }));
    expect(workload.status).toBe(403);
    const anonymous = await svc.request('/peer/v1/audit');
    expect(anonymous.status).toBe(401);
  });

  it.each([
    ['?limit=0', 'limit'],
    ['?limit=501', 'limit'],
    ['?limit=1e2', 'limit'],
    ['?after=x', 'after'],
    ['?action=case.deleted', 'action'],
    ['?since=yesterday', 'since'],
    ['?until=2026-13-01T00:00:00Z', 'until'],
    ['?limit=1&limit=2', 'limit'],
    ['?acton=case.acknowledge', 'acton'],
  ])('answers %s with 400 naming %s', async (query, parameter) => {
    const res = await get(query);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'peer_bad_request', params: { parameter } });
    expect(res.body.detail).toContain(parameter);
  });
});
