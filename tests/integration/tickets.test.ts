/**
 * Ticketing on the real service, on every engine (issue 7; SPEC.md "Ticket link",
 * `GET /cases/<id>/tickets`, `GET /tickets/<link_id>`; docs/configuration.md "Tickets"):
 * `notify.ticket_a` and `notify.ticket_b` open tickets on local servers that check the
 * vendors' documented create requests, link them to the run's case, and the links are
 * listed within the case's team and privacy scope.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callAs, runOnCase, startInProcessService, testPerson, type InProcessService } from '../support/in-process-service.ts';
import { JIRA_TOKEN, SNOW_PASSWORD, startTicketAServer, startTicketBServer } from '../support/ticket-servers.ts';
import { e2eEngines } from '../support/service-process.ts';

const openTickets = `
id: open-tickets
name: Open tickets in both products
version: 1
trigger: { type: manual }
steps:
  - id: jira
    action: notify.ticket_a
    with: { connection: jira, title: "{{ case.key }} {{ case.title }}", description: "Opened by svc\\nSeverity {{ case.severity }}", labels: [svc, incident] }
  - id: snow
    action: notify.ticket_b
    needs: [jira]
    with: { connection: snow, title: "{{ case.title }}", urgency: "1", impact: "2" }
`;

const badProject = `
id: bad-project
name: Ticket in a project that does not exist
version: 1
trigger: { type: manual }
steps:
  - id: jira
    action: notify.ticket_a
    with: { connection: jira, title: "x", project_key: NOPE }
`;

const blue = testPerson('blue@example.com', [{ team: 'blue', role: 'analyst' }]);
const red = testPerson('red@example.com', [{ team: 'red', role: 'analyst' }]);

describe.each(e2eEngines)('tickets on $name', ({ server }) => {
  let svc: InProcessService;
  let jira: Awaited<ReturnType<typeof startTicketAServer>>;
  let snow: Awaited<ReturnType<typeof startTicketBServer>>;
  const admin = testPerson('admin@example.com', [{ team: null, role: 'admin' }]);

  const runOn = (caseId: string, slug: string) => runOnCase(svc, blue, caseId, slug);

  beforeAll(async () => {
    jira = await startTicketAServer('svc-bot@example.com', JIRA_TOKEN, ['SEC']);
    snow = await startTicketBServer('svc.integration', SNOW_PASSWORD);
    svc = await startInProcessService({ server }, { runbooks: { 'tickets.yml': openTickets, 'bad.yml': badProject } });
    for (const c of [
      { kind: 'ticket_a', name: 'jira', base_url: jira.url, config: { email: 'svc-bot@example.com', project_key: 'SEC' }, secret: JIRA_TOKEN },
      { kind: 'ticket_b', name: 'snow', base_url: snow.url, config: { username: 'svc.integration' }, secret: SNOW_PASSWORD },
    ]) {
      const created = await callAs(svc, admin, 'POST', '/connections', c);
      expect(created.status, created.text).toBe(201);
    }
  }, 60_000);
  afterAll(async () => {
    await svc?.close();
    await jira?.close();
    await snow?.close();
  });

  it('opens a ticket in each product in its wire format and links both to the case', async () => {
    const c = (await callAs(svc, blue, 'POST', '/cases', { title: 'Ransomware note found', severity: 'critical', team: 'blue' })).body;
    const run = await runOn(c.id, 'open-tickets');
    expect(run.status).toBe('succeeded');

    const [toJira] = jira.received;
    expect(JSON.parse(toJira!.body)).toEqual({
      fields: {
        project: { key: 'SEC' },
        summary: `${c.key} Ransomware note found`,
        issuetype: { name: 'Task' },
        description: {
          type: 'doc',
          version: 1,
          content: [
            { type: 'paragraph', content: [{ type: 'text', text: 'Opened by svc' }] },
            { type: 'paragraph', content: [{ type: 'text', text: 'Severity critical' }] },
          ],
        },
        labels: ['svc', 'incident'],
      },
    });
    const [toSnow] = snow.received;
    expect(toSnow!.path).toBe('/api/now/table/incident');
    expect(JSON.parse(toSnow!.body)).toEqual({
      short_description: 'Ransomware note found',
      urgency: '1',
      impact: '2',
      correlation_id: `svc-case-${c.id}`,
      correlation_display: 'svc',
    });

    const listed = (await callAs(svc, blue, 'GET', `/cases/${c.id}/tickets`)).body.items;
    expect(listed.map((l: { provider: string; ticket_id: string }) => [l.provider, l.ticket_id])).toEqual([
      ['ticket_a', 'SEC-1'],
      ['ticket_b', 'INC0010002'],
    ]);
    expect(listed[0]).toMatchObject({ case_id: c.id, connection: 'jira', url: `${jira.url}/browse/SEC-1`, remote_status: null, last_poll_error: null });
    expect(listed[1].url).toContain('nav_to.do?uri=incident.do');
    expect(run.steps.map((s: { output: { link_id: string } }) => s.output.link_id)).toEqual(listed.map((l: { id: string }) => l.id));

    const one = await callAs(svc, blue, 'GET', `/tickets/${listed[0].id}`);
    expect(one.body).toEqual(listed[0]);
    expect((await callAs(svc, red, 'GET', `/tickets/${listed[0].id}`)).body).toMatchObject({ code: 'ticket_link_not_found' });
    expect((await callAs(svc, red, 'GET', `/cases/${c.id}/tickets`)).status).toBe(404);
    const timeline = (await callAs(svc, blue, 'GET', `/cases/${c.id}/timeline`)).body.items.filter((i: { kind: string }) => i.kind === 'ticket_linked');
    expect(timeline.map((i: { payload: { remote_key: string } }) => i.payload.remote_key)).toEqual(['SEC-1', 'INC0010002']);
    expect(JSON.stringify(run)).not.toContain(JIRA_TOKEN);
    expect(JSON.stringify(run)).not.toContain(SNOW_PASSWORD);
  });

  it('fails the step with the product’s own explanation and links nothing when the ticket is refused', async () => {
    const c = (await callAs(svc, blue, 'POST', '/cases', { title: 'Refused', severity: 'low', team: 'blue' })).body;
    const run = await runOn(c.id, 'bad-project');
    expect(run.status).toBe('failed');
    expect(JSON.stringify(run.action_log)).toContain('project: valid project is required');
    expect((await callAs(svc, blue, 'GET', `/cases/${c.id}/tickets`)).body.items).toEqual([]);
  });
});
