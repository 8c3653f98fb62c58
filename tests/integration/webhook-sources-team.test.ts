/**
 * Who manages which webhook source, on every engine (issue 46 finding 4; SPEC.md "Webhook
 * source"; docs/configuration.md "Webhook sources"): a team admin sees and changes only the
 * sources of their own team, a source of another team answers exactly like an unknown id,
 * no one creates or moves a source into a team they do not manage, and a source with no
 * team is a realm admin's alone. A refused rotation leaves the team's token working.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callAs, nativeAlert, startInProcessService, testPerson, type InProcessService, type TestPerson } from '../support/in-process-service.ts';
import { e2eEngines } from '../support/service-process.ts';

const root = testPerson('root@example.com', [{ team: null, role: 'admin' }]);
const blueAdmin = testPerson('blue-admin@example.com', [{ team: 'blue', role: 'admin' }]);
const redAdmin = testPerson('red-admin@example.com', [{ team: 'red', role: 'admin' }]);

type Source = { id: string; slug: string; token: string; team: string | null };

describe.each(e2eEngines)('webhook sources by team on $name', ({ server }) => {
  let svc: InProcessService;
  let blueSource: Source;
  let orgSource: Source;

  const create = async (who: TestPerson, body: Record<string, unknown>): Promise<Source> => {
    const created = await callAs(svc, who, 'POST', '/webhook-sources', body);
    expect(created.status, created.text).toBe(201);
    return created.body;
  };
  const slugsSeenBy = async (who: TestPerson) => {
    const listed = await callAs(svc, who, 'GET', '/webhook-sources');
    expect(listed.status, listed.text).toBe(200);
    return listed.body.items.map((s: { slug: string }) => s.slug).sort();
  };
  /** PATCH, DELETE and rotate of `id` as `who`: the three answers. */
  const changesBy = async (who: TestPerson, id: string) => [
    await callAs(svc, who, 'PATCH', `/webhook-sources/${id}`, { name: 'taken over' }),
    await callAs(svc, who, 'POST', `/webhook-sources/${id}/rotate`),
    await callAs(svc, who, 'DELETE', `/webhook-sources/${id}`),
  ];
  const notFound = (id: string) => ({ status: 404, body: { detail: 'webhook source not found', code: 'webhook_source_not_found', params: { source_id: id } } });
  const detectorPost = async (token: string) =>
    (
      await svc.request('/webhooks/detector', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-svc-token': token },
        body: JSON.stringify(nativeAlert(randomUUID())),
      })
    ).status;

  beforeAll(async () => {
    svc = await startInProcessService({ server });
    blueSource = await create(blueAdmin, { type: 'detector', slug: 'blue-edr', name: 'Blue EDR', team: 'blue' });
    await create(redAdmin, { type: 'detector', slug: 'red-edr', name: 'Red EDR', team: 'red' });
    orgSource = await create(root, { type: 'generic', slug: 'org-siem', name: 'Org SIEM', field_map: { rule_title: 'rule.name' } });
  }, 60_000);
  afterAll(async () => svc?.close());

  it("hides another team's sources from a team admin and answers their changes exactly as an unknown id", async () => {
    expect(await slugsSeenBy(redAdmin)).toEqual(['red-edr']);
    expect(await slugsSeenBy(root)).toEqual(['blue-edr', 'org-siem', 'red-edr']);

    const unknown = randomUUID();
    const refused = (await changesBy(redAdmin, blueSource.id)).map((a) => ({ status: a.status, body: a.body }));
    const absent = (await changesBy(redAdmin, unknown)).map((a) => ({ status: a.status, body: a.body }));
    expect(refused).toEqual([notFound(blueSource.id), notFound(blueSource.id), notFound(blueSource.id)]);
    expect(absent).toEqual([notFound(unknown), notFound(unknown), notFound(unknown)]);

    // Nothing changed: the source is there under its name, and team blue's token still takes alerts.
    const listed = (await callAs(svc, root, 'GET', '/webhook-sources')).body.items.find((s: Source) => s.id === blueSource.id);
    expect(listed).toMatchObject({ name: 'Blue EDR', team: 'blue' });
    expect(await detectorPost(blueSource.token)).toBe(202);
    const audited = (await callAs(svc, root, 'GET', `/audit?target_type=webhook_source&target_id=${blueSource.id}`)).body.items;
    expect(audited.map((e: { action: string }) => e.action)).toEqual(['webhook_source.create']);
  });

  it("refuses an alert of a team's source that names another team, so it never opens or joins that team's cases", async () => {
    const post = (team: string) =>
      svc.request('/webhooks/detector', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-svc-token': blueSource.token },
        body: JSON.stringify({ ...nativeAlert(randomUUID()), team }),
      });
    const refused = await post('red');
    expect(refused.status).toBe(422);
    expect(JSON.stringify(await refused.json())).toContain('this source takes alerts of team blue only');
    expect((await post('blue')).status).toBe(202);
  });

  it('refuses creating or moving a source into a team the caller does not manage', async () => {
    const intoBlue = await callAs(svc, redAdmin, 'POST', '/webhook-sources', { type: 'detector', slug: 'red-into-blue', name: 'x', team: 'blue' });
    expect([intoBlue.status, intoBlue.body.code, intoBlue.body.params]).toEqual([403, 'forbidden', { permission: 'manage_connections', team: 'blue' }]);
    const orgWide = await callAs(svc, redAdmin, 'POST', '/webhook-sources', { type: 'detector', slug: 'red-org-wide', name: 'x' });
    expect([orgWide.status, orgWide.body.code]).toEqual([403, 'forbidden']);

    const red = (await callAs(svc, redAdmin, 'GET', '/webhook-sources')).body.items[0] as Source;
    for (const team of ['blue', null]) {
      const moved = await callAs(svc, redAdmin, 'PATCH', `/webhook-sources/${red.id}`, { team });
      expect([moved.status, moved.body.code]).toEqual([403, 'forbidden']);
    }
    expect(await slugsSeenBy(root)).toEqual(['blue-edr', 'org-siem', 'red-edr']);
    expect(((await callAs(svc, root, 'GET', '/webhook-sources')).body.items as Source[]).find((s) => s.id === red.id)?.team).toBe('red');
  });

  it("lets a team admin manage their own team's sources", async () => {
    const own = await create(blueAdmin, { type: 'detector', slug: 'blue-ndr', name: 'Blue NDR', team: 'blue' });
    expect(await slugsSeenBy(blueAdmin)).toEqual(['blue-edr', 'blue-ndr']);
    const renamed = await callAs(svc, blueAdmin, 'PATCH', `/webhook-sources/${own.id}`, { name: 'Blue NDR 2', team: 'blue' });
    expect([renamed.status, renamed.body.name]).toEqual([200, 'Blue NDR 2']);
    const rotated = await callAs(svc, blueAdmin, 'POST', `/webhook-sources/${own.id}/rotate`);
    expect(rotated.status, rotated.text).toBe(200);
    expect(await detectorPost(rotated.body.token)).toBe(202);
    expect(await detectorPost(own.token)).toBe(401);
    expect((await callAs(svc, blueAdmin, 'DELETE', `/webhook-sources/${own.id}`)).status).toBe(204);
    expect(await slugsSeenBy(blueAdmin)).toEqual(['blue-edr']);
  });

  it('keeps a source with no team to realm admins', async () => {
    expect(await slugsSeenBy(blueAdmin)).not.toContain('org-siem');
    expect((await changesBy(blueAdmin, orgSource.id)).map((a) => ({ status: a.status, body: a.body }))).toEqual([
      notFound(orgSource.id),
      notFound(orgSource.id),
      notFound(orgSource.id),
    ]);
    const renamed = await callAs(svc, root, 'PATCH', `/webhook-sources/${orgSource.id}`, { name: 'Org SIEM 2' });
    expect([renamed.status, renamed.body.name, renamed.body.team]).toEqual([200, 'Org SIEM 2', null]);
    // A realm admin may move a source into any team, and back.
    expect((await callAs(svc, root, 'PATCH', `/webhook-sources/${orgSource.id}`, { team: 'red' })).body.team).toBe('red');
    expect(await slugsSeenBy(redAdmin)).toEqual(['org-siem', 'red-edr']);
    expect((await callAs(svc, root, 'PATCH', `/webhook-sources/${orgSource.id}`, { team: null })).body.team).toBeNull();
    expect(await slugsSeenBy(redAdmin)).toEqual(['red-edr']);
  });
});
