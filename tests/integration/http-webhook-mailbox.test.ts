/**
 * A `mailbox` webhook source on the real service, on every engine (SPEC.md "Webhook intake":
 * `mailbox` takes normalized email payloads): a reported email opens a case of the source's
 * team with the sender, reply-to, URLs, hosts and attachment hashes as observables and
 * fires the alert runbooks its payload matches; the same Message-ID again is de-duplicated,
 * the same sender joins the case; a bad payload is 422 in the framework shape, a wrong
 * token 401.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callAs, startInProcessService, testPerson, type InProcessService } from '../support/in-process-service.ts';
import { e2eEngines } from '../support/service-process.ts';

const root = testPerson('root@example.com', [{ team: null, role: 'admin' }]);
const ana = testPerson('ana@corp.example', [{ team: 'blue', role: 'analyst' }]);

const hash = '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08';

/** A phish as a reporting add-in sends it (the sender as one string, a Graph-style recipient). */
const reported = {
  message_id: '<20260301091400.4711@mail.billing-portal.example>',
  from: 'Billing Team <Billing@Billing-Portal.example>',
  to: [{ emailAddress: { address: 'ana@corp.example', name: 'Ana' } }],
  reply_to: 'payments@collector.example',
  reported_by: 'ana@corp.example',
  subject: 'Your invoice is overdue',
  text: 'Pay today at https://billing-portal.example/pay?id=7.',
  html: '<p>Pay <a href="https://billing-portal.example/pay?id=7&amp;src=mail">here</a></p>',
  date: 'Sun, 01 Mar 2026 10:14:00 +0100',
  received_at: '2026-03-01T09:14:05Z',
  headers: {
    'Authentication-Results': 'mx.corp.example; spf=pass smtp.mailfrom=billing-portal.example; dkim=none; dmarc=fail header.from=billing-portal.example',
  },
  attachments: [{ filename: 'invoice.pdf.html', content_type: 'text/html', size: 2048, sha256: hash }],
};

/** Tags and comments a reported phish that fails DMARC, from the trigger's email fields. */
const triageRunbook = `
id: triage-reported-phish
name: Triage a reported phish
version: 1
trigger: { type: alert, conditions: { source: phish-reports, authentication.dmarc: fail } }
steps:
  - id: tag
    action: case.update
    autonomous: true
    with:
      tags_add: ["reported-phish", "{{ trigger.sender.domain }}"]
      comment: "{{ trigger.reported_by.address }} reported '{{ trigger.subject }}' from {{ trigger.sender.address }}"
`;

describe.each(e2eEngines)('mailbox webhook source on $name', ({ server }) => {
  let svc: InProcessService;
  let token = '';
  const post = async (slug: string, body: unknown, with_: string | null) => {
    const res = await svc.request(`/webhooks/${slug}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(with_ ? { authorization: `Bearer ${with_}` } : {}) },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as any };
  };

  beforeAll(async () => {
    svc = await startInProcessService({ server }, { runbooks: { 'triage.yml': triageRunbook } });
    const created = await callAs(svc, root, 'POST', '/webhook-sources', {
      type: 'mailbox',
      slug: 'phish-reports',
      name: 'Reported phishing',
      team: 'blue',
      default_severity: 'high',
    });
    expect(created.status, created.text).toBe(201);
    token = created.body.token;
  });
  afterAll(async () => svc?.close());

  let caseId = '';
  let alertId = '';

  it("opens a case of the source's team with the email's observables, and runs the matching runbook on it", async () => {
    const res = await post('phish-reports', reported, token);
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    expect(res.body).toMatchObject({ deduplicated: false, correlated: false, runs: [expect.any(String)] });
    caseId = res.body.case_id;
    alertId = res.body.alert_id;

    const detail = await callAs(svc, ana, 'GET', `/cases/${caseId}`);
    expect(detail.body).toMatchObject({ title: 'Reported email: Your invoice is overdue', severity: 'high', team: 'blue' });
    const [alert] = (await callAs(svc, ana, 'GET', `/cases/${caseId}/alerts`)).body.items;
    expect(alert).toMatchObject({ source: 'phish-reports', external_id: reported.message_id });

    const observables = (await callAs(svc, ana, 'GET', `/cases/${caseId}/observables`)).body.items as { type: string; normalized: string }[];
    const found = observables.map((o) => `${o.type}:${o.normalized}`);
    expect(found).toEqual(
      expect.arrayContaining([
        'email:billing@billing-portal.example',
        'domain:billing-portal.example',
        'email:payments@collector.example',
        'url:https://billing-portal.example/pay?id=7',
        'url:https://billing-portal.example/pay?id=7&src=mail',
        `sha256:${hash}`,
      ]),
    );

    const runId = res.body.runs[0] as string;
    await expect.poll(async () => (await callAs(svc, root, 'GET', `/runs/${runId}`)).body.status, { timeout: 20_000 }).toBe('succeeded');
    // The run's case events reach the case read model on the projector's next pass.
    await expect
      .poll(async () => (await callAs(svc, ana, 'GET', `/cases/${caseId}`)).body.tags, { timeout: 10_000 })
      .toEqual(expect.arrayContaining(['reported-phish', 'billing-portal.example']));
    const timeline = await callAs(svc, ana, 'GET', `/cases/${caseId}/timeline`);
    expect(timeline.text).toContain("ana@corp.example reported 'Your invoice is overdue' from billing@billing-portal.example");
  });

  it('de-duplicates the same Message-ID, however the gateway writes it; a new email from the sender joins the case', async () => {
    const again = await post('phish-reports', { ...reported, message_id: reported.message_id.slice(1, -1), forwarded_by: 'another gateway' }, token);
    expect(again.status).toBe(202);
    expect(again.body).toMatchObject({ deduplicated: true, alert_id: alertId, case_id: caseId, runs: [] });

    const next = await post(
      'phish-reports',
      [{ ...reported, message_id: '<second@mail.billing-portal.example>', subject: 'Final notice', headers: {} }],
      token,
    );
    expect(next.status).toBe(202);
    expect(next.body.results).toEqual([expect.objectContaining({ deduplicated: false, correlated: true, case_id: caseId, runs: [] })]);
  });

  it('refuses a bad payload with 422 in the framework shape, naming the field', async () => {
    const res = await post('phish-reports', [reported, { ...reported, from: 'not an address', attachments: [{ size: '2 kB' }] }], token);
    expect(res.status).toBe(422);
    expect(res.body).not.toHaveProperty('code');
    expect(res.body.detail).toEqual([
      { loc: ['body', 1, 'from'], msg: expect.stringContaining('must be an email address'), type: 'value_error' },
      { loc: ['body', 1, 'attachments', 0, 'size'], msg: expect.any(String), type: 'value_error' },
    ]);
    expect((await post('phish-reports', { subject: 'who sent this?' }, token)).body.detail).toEqual([
      { loc: ['body', 'from'], msg: 'is required: the address the email is from', type: 'value_error' },
    ]);
  });

  it('answers a wrong or missing token with the same 401 as an unknown source', async () => {
    const wrong = await post('phish-reports', reported, 'whs_wrong');
    const missing = await post('phish-reports', reported, null);
    const unknown = await post('no-such-mailbox', reported, token);
    expect([wrong.status, missing.status, unknown.status]).toEqual([401, 401, 401]);
    expect(wrong.body).toEqual(unknown.body);
    expect(wrong.body.code).toBe('unauthenticated');
  });
});
