/**
 * Webhook sources on the real service, on every engine (SPEC.md "Webhook source",
 * "Webhook intake", "Authentication"): tokens generated, sealed and shown only on create
 * and rotate; rotation kills the old token at once; a `generic` source maps real Elastic
 * Security, Wazuh and CrowdSec alert documents through its `field_map`; a `detector` source's
 * token works on `/webhooks/detector`; every refusal names its field, and no token or
 * signing secret appears in any answer or log line.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFixtureJson, repoRoot } from '../support/fixtures.ts';
import { callAs, startInProcessService, testPerson, type InProcessService } from '../support/in-process-service.ts';
import { e2eEngines } from '../support/service-process.ts';

const root = testPerson('root@example.com', [{ team: null, role: 'admin' }]);
const ana = testPerson('ana@example.com', [{ team: 'blue', role: 'analyst' }]);

const elastic = readFixtureJson<{ value: { source: Record<string, unknown> } }>('vendors', 'elastic_security', 'alert_doc.threat_match.8.1.0.json').value
  .source;
const wazuh = JSON.parse(readFileSync(resolve(repoRoot, 'tests/fixtures/vendors/wazuh/alert.sshd_5763.json'), 'utf8')) as Record<string, any>;
const crowdsec = readFixtureJson<Record<string, unknown>[]>('vendors', 'crowdsec', 'lapi_POST_v1_alerts.alert_ssh-bf.json');

describe.each(e2eEngines)('webhook sources on $name', ({ server }) => {
  let svc: InProcessService;
  const shown: string[] = [];
  const post = async (slug: string, body: unknown, token: string | null, headers: Record<string, string> = {}) => {
    const res = await svc.request(`/webhooks/${slug}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { 'x-svc-token': token } : {}), ...headers },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as any };
  };
  const create = async (body: Record<string, unknown>) => {
    const res = await callAs(svc, root, 'POST', '/webhook-sources', body);
    expect(res.status, res.text).toBe(201);
    shown.push(res.body.token);
    return res.body as { id: string; token: string; endpoint: string };
  };

  let elasticSource = { id: '', token: '', endpoint: '' };
  beforeAll(async () => {
    svc = await startInProcessService({ server });
    elasticSource = await create({
      type: 'generic',
      slug: 'elastic',
      name: 'Elastic Security',
      team: 'blue',
      field_map: {
        rule_title: 'kibana.alert.rule.name',
        severity: 'kibana.alert.severity',
        external_id: 'kibana.alert.uuid',
        correlation_root: 'kibana.alert.rule.uuid',
      },
    });
  });
  afterAll(async () => svc?.close());

  it('shows the token once, on create, and never in the list', async () => {
    expect(elasticSource.token).toMatch(/^whs_[A-Za-z0-9_-]{43}$/);
    expect(elasticSource.endpoint).toBe('/webhooks/elastic');
    const listed = await callAs(svc, root, 'GET', '/webhook-sources');
    expect(listed.body.items).toEqual([expect.objectContaining({ slug: 'elastic', type: 'generic', team: 'blue', default_severity: 'medium', enabled: true })]);
    expect(listed.text).not.toContain(elasticSource.token);
    expect(listed.body.items[0]).not.toHaveProperty('token');
  });

  it("maps a real Elastic Security alert through the field_map into a case of the source's team, and de-duplicates its repeat", async () => {
    const first = await post('elastic', elastic, elasticSource.token);
    expect(first.status, JSON.stringify(first.body)).toBe(202);
    expect(first.body).toMatchObject({ deduplicated: false });
    const detail = await callAs(svc, ana, 'GET', `/cases/${first.body.case_id}`);
    expect(detail.body).toMatchObject({ title: 'threat-match-rule', severity: 'low', team: 'blue' });
    const alerts = (await callAs(svc, ana, 'GET', `/cases/${first.body.case_id}/alerts`)).body.items;
    expect(alerts[0]).toMatchObject({ source: 'elastic' });
    const observables = (await callAs(svc, ana, 'GET', `/cases/${first.body.case_id}/observables`)).body.items;
    expect(observables).toContainEqual(expect.objectContaining({ type: 'hostname', normalized: 'security-linux-1' }));
    const again = await post('elastic', elastic, elasticSource.token);
    expect(again.body).toMatchObject({ deduplicated: true, alert_id: first.body.alert_id });
  });

  it('takes a batch without an external id, de-duplicated on the content, with its ECS observables', async () => {
    const source = await create({
      type: 'generic',
      slug: 'crowdsec',
      name: 'CrowdSec LAPI',
      field_map: { rule_title: 'scenario', correlation_root: 'source.value' },
      default_severity: 'high',
    });
    const first = await post('crowdsec', crowdsec, source.token);
    expect(first.status, JSON.stringify(first.body)).toBe(202);
    expect(first.body.results).toHaveLength(1);
    const caseId = first.body.results[0].case_id;
    expect((await callAs(svc, root, 'GET', `/cases/${caseId}`)).body).toMatchObject({ title: 'crowdsecurity/ssh-bf', severity: 'high', team: null });
    const observables = (await callAs(svc, root, 'GET', `/cases/${caseId}/observables`)).body.items;
    expect(observables).toContainEqual(expect.objectContaining({ type: 'ip', normalized: '91.121.79.195', source: 'alert' }));
    expect((await post('crowdsec', crowdsec, source.token)).body.results[0]).toMatchObject({ deduplicated: true });
  });

  it('maps a real Wazuh alert: a numeric rule.level is no severity word, so the default applies; a second alert from the same srcip joins the case', async () => {
    const source = await create({
      type: 'generic',
      slug: 'wazuh',
      name: 'Wazuh manager',
      field_map: { rule_title: 'rule.description', severity: 'rule.level', external_id: 'id', correlation_root: 'data.srcip' },
      default_severity: 'high',
    });
    const first = await post('wazuh', wazuh, source.token);
    expect(first.status, JSON.stringify(first.body)).toBe(202);
    expect(first.body).toMatchObject({ deduplicated: false, correlated: false });
    const caseId = first.body.case_id;
    expect((await callAs(svc, root, 'GET', `/cases/${caseId}`)).body).toMatchObject({ title: wazuh.rule.description, severity: 'high' });
    const alert = (await callAs(svc, root, 'GET', `/cases/${caseId}/alerts`)).body.items[0];
    expect(alert).toMatchObject({ source: 'wazuh', external_id: wazuh.id });
    const later = { ...wazuh, id: '1784088711.122907', timestamp: '2026-11-20T04:12:01.402+0000' };
    const second = await post('wazuh', later, source.token);
    expect(second.body).toMatchObject({ deduplicated: false, correlated: true, case_id: caseId });
    expect((await post('wazuh', wazuh, source.token)).body).toMatchObject({ deduplicated: true, alert_id: first.body.alert_id });
  });

  it('refuses a payload whose title path finds nothing, naming the path', async () => {
    const res = await post('elastic', { message: 'no rule here' }, elasticSource.token);
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([
      { loc: ['body', 'kibana.alert.rule.name'], msg: 'field_map.rule_title points here and finds no text', type: 'value_error' },
    ]);
    expect((await post('elastic', [{ ok: 1 }, 'text'], elasticSource.token)).status).toBe(422);
  });

  it('answers one 401 for a wrong token, an unknown slug and a disabled source', async () => {
    const wrong = await post('elastic', elastic, 'whs_wrong');
    const missing = await post('elastic', elastic, null);
    const unknown = await post('nope', elastic, elasticSource.token);
    expect([wrong.status, missing.status, unknown.status]).toEqual([401, 401, 401]);
    expect(unknown.body).toEqual(wrong.body);
    const bearer = await post('elastic', elastic, null, { authorization: `Bearer ${elasticSource.token}` });
    expect(bearer.status).toBe(202);
    const off = await create({ type: 'generic', slug: 'switched-off', name: 'Off', field_map: { rule_title: 'title' } });
    expect((await callAs(svc, root, 'PATCH', `/webhook-sources/${off.id}`, { enabled: false })).body.enabled).toBe(false);
    expect((await post('switched-off', { title: 'x' }, off.token)).body).toEqual(wrong.body);
  });

  it('rotates a token: the new one works, the old one stops at once', async () => {
    const source = await create({ type: 'generic', slug: 'rotating', name: 'Rotating', field_map: { rule_title: 'title' } });
    const rotated = await callAs(svc, root, 'POST', `/webhook-sources/${source.id}/rotate`);
    expect(rotated.status).toBe(200);
    shown.push(rotated.body.token);
    expect(rotated.body.token).not.toBe(source.token);
    expect((await post('rotating', { title: 'after rotation' }, source.token)).status).toBe(401);
    expect((await post('rotating', { title: 'after rotation' }, rotated.body.token)).status).toBe(202);
  });

  it("accepts a detector source's token on /webhooks/detector and on its own slug", async () => {
    const source = await create({ type: 'detector', slug: 'detector-eu', name: 'Detector EU', team: 'blue' });
    const native = { alert_id: 'eu-1', rule: { id: 'r-eu', title: 'EU detector alert', severity: 'high' }, matched_log: {} };
    expect((await post('detector', native, source.token)).status).toBe(202);
    const own = await post('detector-eu', { ...native, alert_id: 'eu-2' }, source.token);
    expect(own.status).toBe(202);
    expect((await callAs(svc, root, 'GET', `/cases/${own.body.case_id}`)).body.team).toBe('blue');
    expect((await post('detector', native, elasticSource.token)).status).toBe(401);
  });

  it('validates sources field by field and keeps the signing secret write-only', async () => {
    const refused = async (body: Record<string, unknown>, loc: (string | number)[]) => {
      const res = await callAs(svc, root, 'POST', '/webhook-sources', body);
      expect(res.status, res.text).toBe(422);
      expect(res.body.detail.map((d: { loc: unknown }) => d.loc)).toContainEqual(loc);
    };
    await refused({ type: 'generic', slug: 'no-title', name: 'x', field_map: { severity: 'sev' } }, ['body', 'field_map', 'rule_title']);
    await refused({ type: 'generic', slug: 'detector', name: 'x', field_map: { rule_title: 't' } }, ['body', 'slug']);
    await refused({ type: 'generic', slug: 'Bad Slug', name: 'x', field_map: { rule_title: 't' } }, ['body', 'slug']);
    await refused({ type: 'generic', slug: 'extra', name: 'x', field_map: { rule_title: 't', owner: 'x' } }, ['body', 'field_map', 'owner']);
    await refused({ type: 'pager_a', slug: 'pager', name: 'Pager' }, ['body', 'signing_secret']);
    await refused({ type: 'detector', slug: 'det', name: 'x', signing_secret: 'a-long-signing-secret' }, ['body', 'signing_secret']);
    await refused({ type: 'webhook', slug: 'nope', name: 'x' }, ['body', 'type']);
    const dup = await callAs(svc, root, 'POST', '/webhook-sources', { type: 'generic', slug: 'elastic', name: 'again', field_map: { rule_title: 't' } });
    expect(dup.status).toBe(409);
    expect(dup.body.code).toBe('webhook_source_slug_taken');

    const signing = 'pager-signing-secret-0123456789';
    const pager = await create({ type: 'pager_a', slug: 'pager', name: 'Pager', signing_secret: signing });
    expect(pager).toMatchObject({ signing_secret_configured: true });
    const listed = await callAs(svc, root, 'GET', '/webhook-sources');
    expect(listed.text).not.toContain(signing);
    // A pager_a source authenticates by signature: its token alone is refused.
    expect((await post('pager', {}, pager.token)).status).toBe(401);
    // A mailbox source takes emails (http-webhook-mailbox.test.ts): one without a sender is refused.
    const mailbox = await create({ type: 'mailbox', slug: 'mail', name: 'Mail' });
    expect((await post('mail', {}, mailbox.token)).status).toBe(422);
    expect((await callAs(svc, ana, 'GET', '/webhook-sources')).status).toBe(403);
    expect((await callAs(svc, root, 'DELETE', `/webhook-sources/${pager.id}`)).status).toBe(204);
    expect((await callAs(svc, root, 'DELETE', `/webhook-sources/${pager.id}`)).body.code).toBe('webhook_source_not_found');
    expect(JSON.stringify(svc.errors())).not.toContain(signing);
  });

  it('never logged a token', () => {
    const logged = JSON.stringify(svc.errors());
    for (const token of shown) expect(logged).not.toContain(token);
  });
});
