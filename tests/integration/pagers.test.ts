/**
 * Paging on the real service, on every engine (issue 7; SPEC.md "Webhook intake", "Case
 * acknowledgement"; docs/configuration.md "Pagers"): `notify.pager_a` and
 * `notify.pager_b` against local servers that check the vendors' documented request
 * formats, the page linked to the case under its default or explicit key, and the
 * pagers' acknowledgement webhooks with the vendors' payloads (pager_a signed as its
 * published test vectors show) acknowledging the case once.
 */
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callAs, runOnCase, startInProcessService, testPerson, type InProcessService } from '../support/in-process-service.ts';
import { readFixtureJson } from '../support/fixtures.ts';
import { startPagerAServer, startPagerBServer } from '../support/pager-servers.ts';
import { e2eEngines } from '../support/service-process.ts';

const ROUTING_KEY = 'R0ut1ngK3yR0ut1ngK3yR0ut1ngK3y32';
const GENIE_KEY = 'eb243592-faa2-4ba2-a551-1afdf565c889';
const vectors = readFixtureJson<{ secret: string; cases: { name: string; body: string; header: string | null }[] }>(
  'vendors',
  'pagerduty',
  'signature_vectors.json',
);

const page = `
id: page-both
name: Page both pagers
version: 1
trigger: { type: manual }
steps:
  - id: a
    action: notify.pager_a
    with: { connection: pd, summary: "{{ case.title }}", severity: "{{ case.severity }}", custom_details: { case: "{{ case.key }}" } }
  - id: b
    action: notify.pager_b
    needs: [a]
    with: { connection: og, message: "{{ case.title }}", priority: P2, tags: [svc] }
`;

const pageExplicit = `
id: page-explicit
name: Page with an explicit key
version: 1
trigger: { type: manual }
steps:
  - id: a
    action: notify.pager_a
    with: { connection: pd, summary: "explicit", dedup_key: "ops-incident-42" }
`;

const pageTooLong = `
id: page-too-long
name: Page the vendor refuses
version: 1
trigger: { type: manual }
steps:
  - id: b
    action: notify.pager_b
    with: { connection: og, message: "ok", tags: ["svc"], details: { why: "x" }, alias: "refused-by-vendor", entity: "{{ case.key }}", description: "d", note: "n", source: "svc", priority: P5 }
`;

const root = testPerson('root@example.com', [{ team: null, role: 'admin' }]);
const oncall = testPerson('oncall@example.com', [{ team: null, role: 'analyst' }]);

describe.each(e2eEngines)('pagers on $name', ({ server }) => {
  let svc: InProcessService;
  let pagerA: Awaited<ReturnType<typeof startPagerAServer>>;
  let pagerB: Awaited<ReturnType<typeof startPagerBServer>>;
  let pagerBToken = '';
  const slugA = 'pd-acks';
  const slugB = 'og-acks';

  const runOn = (caseId: string, slug: string) => runOnCase(svc, root, caseId, slug);
  const openCase = async (title: string) => (await callAs(svc, root, 'POST', '/cases', { title, severity: 'critical' })).body as { id: string; key: string };
  const sendA = (body: string, signature: string | null) =>
    svc.request(`/webhooks/${slugA}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(signature === null ? {} : { 'x-pager-signature': signature }) },
      body,
    });
  const signA = (body: string) => `v1=${createHmac('sha256', vectors.secret).update(body).digest('hex')}`;
  /** The vendor's incident.acknowledged event for `key`, built from the documented event data. */
  const acknowledgedEvent = (key: string) =>
    JSON.stringify({
      event: {
        id: '01BWDWL3NYY7LUFPZCC28QUCMK',
        event_type: 'incident.acknowledged',
        resource_type: 'incident',
        occurred_at: new Date().toISOString(),
        agent: { html_url: 'https://acme.pagerduty.com/users/PLH1HKV', id: 'PLH1HKV', summary: 'Tenex Engineer', type: 'user_reference' },
        client: null,
        data: {
          ...readFixtureJson<Record<string, unknown>>('vendors', 'pagerduty', 'webhook_v3_event_data_incident.json'),
          incident_key: key,
          status: 'acknowledged',
        },
      },
    });
  const sendB = async (action: string, alias: string, username: string, token = pagerBToken) => {
    const body = readFixtureJson<{ alert: Record<string, unknown> }>('vendors', 'opsgenie', 'webhook_action_Acknowledge.json');
    const res = await svc.request(`/webhooks/${slugB}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-svc-token': token },
      body: JSON.stringify({ ...body, action, alert: { ...body.alert, alias, username } }),
    });
    return { status: res.status, body: (await res.json()) as any };
  };

  beforeAll(async () => {
    pagerA = await startPagerAServer();
    pagerB = await startPagerBServer(GENIE_KEY, 'refused-by-vendor');
    svc = await startInProcessService({ server }, { runbooks: { 'page.yml': page, 'explicit.yml': pageExplicit, 'too-long.yml': pageTooLong } });
    for (const c of [
      { kind: 'pager_a', name: 'pd', base_url: pagerA.url, secret: ROUTING_KEY },
      { kind: 'pager_b', name: 'og', base_url: pagerB.url, secret: GENIE_KEY },
    ])
      expect((await callAs(svc, root, 'POST', '/connections', c)).status).toBe(201);
    const a = await callAs(svc, root, 'POST', '/webhook-sources', { type: 'pager_a', slug: slugA, name: 'PD acks', signing_secret: vectors.secret });
    expect(a.status, a.text).toBe(201);
    const b = await callAs(svc, root, 'POST', '/webhook-sources', { type: 'pager_b', slug: slugB, name: 'OG acks' });
    expect(b.status, b.text).toBe(201);
    pagerBToken = b.body.token;
    // The on-call person exists as a user once they have called the service.
    expect((await callAs(svc, oncall, 'GET', '/cases')).status).toBe(200);
  }, 60_000);
  afterAll(async () => {
    await svc?.close();
    await pagerA?.close();
    await pagerB?.close();
  });

  it('pages both pagers in their wire formats under the case key and links the pages to the case', async () => {
    const c = await openCase('DB host unreachable');
    const run = await runOn(c.id, 'page-both');
    expect(run.status).toBe('succeeded');
    const [a] = pagerA.received.splice(0);
    expect(JSON.parse(a!.body)).toEqual({
      routing_key: ROUTING_KEY,
      event_action: 'trigger',
      dedup_key: `svc-case-${c.id}`,
      payload: { summary: 'DB host unreachable', source: 'svc', severity: 'critical', timestamp: expect.any(String), custom_details: { case: c.key } },
      client: 'svc',
    });
    const [b] = pagerB.received.splice(0);
    expect(b!.headers.authorization).toBe(`GenieKey ${GENIE_KEY}`);
    expect(JSON.parse(b!.body)).toEqual({ message: 'DB host unreachable', alias: `svc-case-${c.id}`, priority: 'P2', tags: ['svc'], source: 'svc' });
    const outputs = run.steps.map((s: { id: string; output: unknown }) => [s.id, s.output]);
    expect(outputs).toEqual([
      ['a', { key: `svc-case-${c.id}`, linked_case_id: c.id, status: 202 }],
      ['b', { key: `svc-case-${c.id}`, linked_case_id: c.id, status: 202 }],
    ]);
    const timeline = (await callAs(svc, root, 'GET', `/cases/${c.id}/timeline`)).body.items.filter((i: { kind: string }) => i.kind === 'page_linked');
    expect(timeline.map((i: { payload: { pager: string; key: string } }) => [i.payload.pager, i.payload.key])).toEqual([
      ['pager_a', `svc-case-${c.id}`],
      ['pager_b', `svc-case-${c.id}`],
    ]);
    // No secret in what the run recorded.
    expect(JSON.stringify(run)).not.toContain(ROUTING_KEY);
    expect(JSON.stringify(run)).not.toContain(GENIE_KEY);
  });

  it('keeps an explicit key, and fails the step with the pager’s own explanation when it refuses', async () => {
    const c = await openCase('Explicit');
    expect((await runOn(c.id, 'page-explicit')).steps[0].output).toMatchObject({ key: 'ops-incident-42', linked_case_id: c.id });
    expect(JSON.parse(pagerA.received.splice(0)[0]!.body).dedup_key).toBe('ops-incident-42');

    const refused = await runOn(c.id, 'page-too-long');
    expect(refused.status).toBe('failed');
    expect(pagerB.received.splice(0)).toHaveLength(1);
    expect(JSON.stringify(refused.action_log)).toContain('Request body is not processable');
  });

  it('acknowledges the case once from a signed pager_a incident.acknowledged, and explains every no-change', async () => {
    const c = await openCase('Paged by A');
    await runOn(c.id, 'page-both');
    const body = acknowledgedEvent(`svc-case-${c.id}`);
    expect((await sendA(body, null)).status).toBe(401);
    expect((await sendA(body, `v1=${'0'.repeat(64)}`)).status).toBe(401);
    expect((await sendA(body, signA(`${body} `))).status).toBe(401);

    const first = await sendA(body, `v1=${'1'.repeat(64)},${signA(body)}`);
    expect(first.status).toBe(202);
    expect(await first.json()).toEqual({
      page_ack: { pager: 'pager_a', key: `svc-case-${c.id}`, acknowledged: true, reason: 'acknowledged', case_id: c.id, case_key: c.key },
    });
    const theCase = (await callAs(svc, root, 'GET', `/cases/${c.id}`)).body;
    expect(theCase.acknowledged_at).toEqual(expect.any(String));
    const ack = (await callAs(svc, root, 'GET', `/cases/${c.id}/timeline`)).body.items.find((i: { kind: string }) => i.kind === 'acknowledged');
    expect(ack.payload).toMatchObject({ via: { pager: 'pager_a', agent: 'Tenex Engineer' }, acknowledged_by: 'pager_a:Tenex Engineer' });
    const audited = (await callAs(svc, root, 'GET', `/audit?action=case.acknowledge&target_id=${c.id}`)).body.items;
    expect(audited).toEqual([
      expect.objectContaining({
        actor: expect.objectContaining({ kind: 'webhook', via: `webhook_source:${slugA}` }),
        detail: expect.objectContaining({ pager: 'pager_a' }),
      }),
    ]);

    const repeat = await sendA(body, signA(body));
    expect(await repeat.json()).toMatchObject({ page_ack: { acknowledged: false, reason: 'already_acknowledged', case_id: c.id } });
    const unknown = acknowledgedEvent('never-paged');
    expect(await (await sendA(unknown, signA(unknown))).json()).toMatchObject({ page_ack: { acknowledged: false, reason: 'unknown_key', case_id: null } });
    // The vendor's published vector verifies through the route; a priority change is no acknowledgement.
    const valid = vectors.cases.find((v) => v.name === 'valid')!;
    const answer = await sendA(valid.body, valid.header);
    expect(answer.status).toBe(202);
    expect(await answer.json()).toMatchObject({ page_ack: { acknowledged: false, reason: 'not_an_acknowledgement' } });
    const mismatch = vectors.cases.find((v) => v.name === 'mismatch')!;
    expect((await sendA(mismatch.body, mismatch.header)).status).toBe(401);
    expect((await callAs(svc, root, 'GET', `/audit?action=case.acknowledge&target_id=${c.id}`)).body.items).toHaveLength(1);
  });

  it('acknowledges from pager_b as the matching active user, and changes nothing for a closed case or another action', async () => {
    const c = await openCase('Paged by B');
    await runOn(c.id, 'page-both');
    expect((await sendB('Acknowledge', `svc-case-${c.id}`, oncall.email, 'wrong-token')).status).toBe(401);
    expect((await sendB('Create', `svc-case-${c.id}`, oncall.email)).body).toMatchObject({ page_ack: { reason: 'not_an_acknowledgement' } });
    const done = await sendB('Acknowledge', `svc-case-${c.id}`, 'OnCall@Example.com');
    expect(done).toMatchObject({ status: 202, body: { page_ack: { pager: 'pager_b', acknowledged: true, case_id: c.id } } });
    const theCase = (await callAs(svc, root, 'GET', `/cases/${c.id}`)).body;
    expect(theCase.acknowledged_by).toBe(oncall.email);
    const ack = (await callAs(svc, root, 'GET', `/cases/${c.id}/timeline`)).body.items.find((i: { kind: string }) => i.kind === 'acknowledged');
    expect(ack.payload).toMatchObject({ via: { pager: 'pager_b', agent: 'OnCall@Example.com' }, by_user_id: expect.any(String) });

    const closed = await openCase('Closed before the ack');
    await runOn(closed.id, 'page-both');
    expect((await callAs(svc, root, 'POST', `/cases/${closed.id}/status`, { status: 'closed' })).status).toBe(200);
    expect((await sendB('Acknowledge', `svc-case-${closed.id}`, oncall.email)).body).toMatchObject({
      page_ack: { acknowledged: false, reason: 'case_closed', case_id: closed.id },
    });
    expect((await callAs(svc, root, 'GET', `/cases/${closed.id}`)).body.acknowledged_at).toBeNull();
  });
});
