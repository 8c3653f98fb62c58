/**
 * Full-text search on the real service, on every engine (docs/configuration.md "Search";
 * issue 50): a word that appears only in one task comment finds that case for a member of
 * its team and never for someone who cannot see it (another team, a private case); titles
 * outrank comments; observable and custom field values, descriptions and alert titles are
 * found; a case only opened gets the short document, equal to the full one; the case
 * list's `search=` reads the same documents; a merged case is not listed.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeCaseDocuments } from '../../projections/search/documents.ts';
import { callAs, startInProcessService, testPerson, type InProcessService, type TestPerson } from '../support/in-process-service.ts';
import { e2eEngines } from '../support/service-process.ts';

const ana = testPerson('ana@example.com', [{ team: 'blue', role: 'analyst' }]);
const olga = testPerson('olga@example.com', [{ team: 'blue', role: 'analyst' }]);
const rex = testPerson('rex@example.com', [{ team: 'red', role: 'analyst' }]);
const root = testPerson('root@example.com', [{ team: null, role: 'admin' }]);

type Hit = { kind: string; id: string; key: string | null; title: string; snippet: string; rank: number };

describe.each(e2eEngines)('search on $name', ({ server }) => {
  let svc: InProcessService;

  beforeAll(async () => {
    svc = await startInProcessService({ server });
  }, 90_000);
  afterAll(async () => svc?.close());

  const ok = async (who: TestPerson, method: string, path: string, body?: unknown, status = 200) => {
    const answer = await callAs(svc, who, method, path, body);
    expect(answer.status, `${method} ${path}: ${answer.text}`).toBe(status);
    return answer.body;
  };
  const found = async (who: TestPerson, q: string): Promise<Hit[]> => (await ok(who, 'GET', `/search?q=${encodeURIComponent(q)}`)).items;
  const open = async (who: TestPerson, body: Record<string, unknown>) =>
    (await ok(who, 'POST', '/cases', { severity: 'low', team: 'blue', ...body }, 201)).id as string;

  it('finds a word of one task comment for its team only, and never a private case for a non-member', async () => {
    const a = await open(ana, { title: 'Odd VPN logins' });
    const task = await ok(ana, 'POST', `/cases/${a}/tasks`, { title: 'Call the user' }, 201);
    await ok(ana, 'POST', `/cases/${a}/tasks/${task.id}/comments`, { text: 'She was travelling through Zanzibar that week.' }, 201);
    const hidden = await open(ana, { title: 'Insider lead', private: true });
    await ok(ana, 'POST', `/cases/${hidden}/comments`, { body: 'The quokka badge was cloned.' }, 201);

    const hits = await found(olga, 'zanzibar');
    expect(hits).toEqual([
      {
        kind: 'case',
        id: a,
        key: expect.stringMatching(/^SVC-\d+$/),
        title: 'Odd VPN logins',
        snippet: expect.stringContaining('Zanzibar'),
        rank: expect.any(Number),
      },
    ]);
    expect(await found(rex, 'zanzibar')).toEqual([]);
    expect((await found(ana, 'quokka')).map((h) => h.id)).toEqual([hidden]);
    expect(await found(olga, 'quokka')).toEqual([]);
    expect(await found(rex, 'quokka')).toEqual([]);

    // The case list's search reads the same documents, with its own scope.
    expect((await ok(olga, 'GET', '/cases?search=zanzibar')).items.map((c: { id: string }) => c.id)).toEqual([a]);
    expect((await ok(rex, 'GET', '/cases?search=zanzibar')).items).toEqual([]);
  }, 60_000);

  it('ranks a title above a comment and finds descriptions, observable and custom field values, and alerts', async () => {
    const inComment = await open(ana, { title: 'Mailbox rule' });
    await ok(ana, 'POST', `/cases/${inComment}/comments`, { body: 'Looks like the wombat campaign again.' }, 201);
    const inTitle = await open(ana, { title: 'Wombat campaign' });
    expect((await found(ana, 'wombat')).map((h) => h.id)).toEqual([inTitle, inComment]);

    const described = await open(ana, { title: 'Beacon', description: 'Outbound traffic to a platypus host.' });
    // A case only opened gets the short document; it is the full one's, text and vector alike.
    const db = svc.service.opened.db;
    const documentOf = async () =>
      db
        .selectFrom('case_search')
        .select(['text', sql<string>`vector::text`.as('vector')])
        .where('case_id', '=', described)
        .executeTakeFirst();
    const short = await documentOf();
    await writeCaseDocuments(db, [described]);
    expect(await documentOf()).toEqual(short);
    const observed = await open(ana, { title: 'Scan' });
    await ok(ana, 'POST', `/cases/${observed}/observables`, { type: 'domain', value: 'numbat.example' }, 201);
    await ok(root, 'POST', '/custom-fields', { name: 'codename', label: 'Codename', type: 'string' }, 201);
    const named = await open(ana, { title: 'Exfiltration' });
    await ok(ana, 'PUT', `/cases/${named}`, { custom_fields: { codename: 'Echidna' } });
    expect((await found(ana, 'platypus')).map((h) => h.id)).toEqual([described]);
    expect((await found(ana, 'numbat.example')).map((h) => h.id)).toEqual([observed]);
    expect((await found(ana, 'echidna')).map((h) => h.id)).toEqual([named]);

    const alert = await ok(
      ana,
      'POST',
      '/alerts',
      { title: 'Kangaroo beacon seen', severity: 'high', team: 'blue', observables: [{ type: 'ip', value: '198.51.100.77' }] },
      201,
    );
    expect(await found(ana, 'kangaroo')).toEqual([expect.objectContaining({ kind: 'alert', id: alert.id, key: null, title: 'Kangaroo beacon seen' })]);
    expect((await found(ana, '198.51.100.77')).map((h) => h.id)).toEqual([alert.id]);
    expect(await found(rex, 'kangaroo')).toEqual([]);
  }, 60_000);

  it('leaves merged cases out, keeps a removed comment out, and refuses a query too short', async () => {
    const source = await open(ana, { title: 'Duplicate' });
    await ok(ana, 'POST', `/cases/${source}/comments`, { body: 'The bilby host beaconed.' }, 201);
    const gone = await ok(ana, 'POST', `/cases/${source}/comments`, { body: 'A dingo note, withdrawn.' }, 201);
    await ok(ana, 'DELETE', `/cases/${source}/comments/${gone.id}`, undefined, 204);
    expect(await found(ana, 'dingo')).toEqual([]);
    const target = await open(ana, { title: 'Original' });
    await ok(ana, 'POST', `/cases/${target}/merge`, { source_ids: [source], reason: 'same host' });
    expect((await found(ana, 'bilby')).map((h) => h.id)).toEqual([target]);

    const short = await callAs(svc, ana, 'GET', '/search?q=a');
    expect(short.status).toBe(422);
    expect(short.body.detail[0].loc).toEqual(['query', 'q']);
    expect((await callAs(svc, ana, 'GET', '/search?q=ab&limit=51')).status).toBe(422);
    expect(await found(ana, 'the')).toEqual([]);
  }, 60_000);
});
