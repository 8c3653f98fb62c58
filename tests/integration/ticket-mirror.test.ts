/**
 * Ticket updates flowing back into cases, on every engine (issue 7; SPEC.md "Webhook
 * intake" ticket sources, "Ticket mirroring"): Jira webhooks (`jira:issue_updated` with a
 * status changelog, `comment_created` with an ADF body) and a ServiceNow business rule
 * (`result.comment_sys_id`) apply a remote comment once and a mapped status once; our own
 * mirrored comments are skipped; a status the map cannot apply is audited and reported as
 * `ticket_status_sync` in the 202.
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
    with: { connection: jira, title: "{{ case.title }}" }
  - id: snow
    action: notify.ticket_b
    needs: [jira]
    with: { connection: snow, title: "{{ case.title }}" }
`;

const admin = testPerson('admin@example.com', [{ team: null, role: 'admin' }]);

/** A Jira Cloud webhook delivery of `event` for issue `issue` (documented envelope). */
const jiraEvent = (event: string, issue: { id: string; key: string; status?: string }, extra: Record<string, unknown> = {}) => ({
  timestamp: Date.now(),
  webhookEvent: event,
  issue: {
    id: issue.id,
    self: `https://your-domain.atlassian.net/rest/api/3/issue/${issue.id}`,
    key: issue.key,
    fields: { summary: 'x', ...(issue.status && { status: { name: issue.status } }) },
  },
  ...extra,
});
/** Opens a case and a ticket in each product for it; the case and its two links. */
async function openLinkedCase(svc: InProcessService, title: string) {
  const c = (await callAs(svc, admin, 'POST', '/cases', { title, severity: 'high' })).body;
  expect((await runOnCase(svc, admin, c.id, 'open-tickets')).status).toBe('succeeded');
  const links = (await callAs(svc, admin, 'GET', `/cases/${c.id}/tickets`)).body.items as {
    id: string;
    provider: string;
    remote_id: string;
    ticket_id: string;
  }[];
  return { case: c, jira: links.find((l) => l.provider === 'ticket_a')!, snow: links.find((l) => l.provider === 'ticket_b')! };
}

const adf = (text: string) => ({ type: 'doc', version: 1, content: [{ type: 'paragraph', content: [{ type: 'text', text }] }] });

describe.each(e2eEngines)('ticket mirroring in on $name', ({ server }) => {
  let svc: InProcessService;
  let jira: Awaited<ReturnType<typeof startTicketAServer>>;
  let snow: Awaited<ReturnType<typeof startTicketBServer>>;
  const tokens: Record<string, string> = {};

  const deliver = async (slug: string, body: unknown, token = tokens[slug]) => {
    const res = await svc.request(`/webhooks/${slug}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-svc-token': token ?? '' },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as any };
  };
  const caseOf = async (id: string) => (await callAs(svc, admin, 'GET', `/cases/${id}`)).body;
  const comments = async (id: string) => ((await callAs(svc, admin, 'GET', `/cases/${id}/comments`)).body.items as { body: string }[]).map((c) => c.body);

  beforeAll(async () => {
    jira = await startTicketAServer('svc-bot@example.com', JIRA_TOKEN, ['SEC']);
    snow = await startTicketBServer('svc.integration', SNOW_PASSWORD);
    svc = await startInProcessService({ server }, { runbooks: { 'tickets.yml': openTickets } });
    for (const c of [
      {
        kind: 'ticket_a',
        name: 'jira',
        base_url: jira.url,
        config: { email: 'svc-bot@example.com', project_key: 'SEC', inbound_status_map: { 'In Progress': 'in_progress', Done: 'resolved' } },
        secret: JIRA_TOKEN,
      },
      {
        kind: 'ticket_b',
        name: 'snow',
        base_url: snow.url,
        config: { username: 'svc.integration', inbound_status_map: { '2': 'in_progress', '6': 'resolved' } },
        secret: SNOW_PASSWORD,
      },
    ])
      expect((await callAs(svc, admin, 'POST', '/connections', c)).status).toBe(201);
    for (const [type, slug] of [
      ['ticket_a', 'jira-updates'],
      ['ticket_b', 'snow-updates'],
    ] as const) {
      const created = await callAs(svc, admin, 'POST', '/webhook-sources', { type, slug, name: slug });
      expect(created.status, created.text).toBe(201);
      tokens[slug] = created.body.token;
    }
  }, 60_000);
  afterAll(async () => {
    await svc?.close();
    await jira?.close();
    await snow?.close();
  });

  it('takes a Jira comment once, skips our own echo, and applies a mapped status once', async () => {
    const { case: c, jira: link } = await openLinkedCase(svc, 'Phishing wave');
    const issue = { id: link.remote_id, key: link.ticket_id };
    const comment = jiraEvent('comment_created', issue, {
      comment: {
        id: '10050',
        body: adf('Mail gateway rule deployed.'),
        author: { displayName: 'Jane Doe', accountId: '5b10a2844c20165700ede21g' },
        created: '2026-11-23T10:00:00.000+0000',
      },
    });
    expect(await deliver('jira-updates', comment)).toEqual({
      status: 202,
      body: { ticket: { provider: 'ticket_a', remote_id: issue.id, links: 1, comments_ingested: 1, status_changes: 0 } },
    });
    expect((await deliver('jira-updates', comment)).body.ticket.comments_ingested).toBe(0);
    const echo = jiraEvent('comment_created', issue, {
      comment: { id: '10051', body: 'Mirrored from svc [svc-mirror:3f0c8a52-5d0e-4b7e-9d67-0f5a3c1e2b4d]', author: { displayName: 'svc bot' } },
    });
    expect((await deliver('jira-updates', echo)).body.ticket.comments_ingested).toBe(0);
    expect(await comments(c.id)).toEqual([`Comment on ticket_a ${issue.key} by Jane Doe:\nMail gateway rule deployed.`]);

    const moved = jiraEvent(
      'jira:issue_updated',
      { ...issue, status: 'In Progress' },
      { changelog: { id: '1', items: [{ field: 'status', fieldtype: 'jira', from: '10000', fromString: 'To Do', to: '3', toString: 'In Progress' }] } },
    );
    expect((await deliver('jira-updates', moved)).body.ticket.status_changes).toBe(1);
    expect((await caseOf(c.id)).status).toBe('in_progress');
    expect((await deliver('jira-updates', moved)).body.ticket.status_changes).toBe(0);
    expect((await callAs(svc, admin, 'GET', `/tickets/${link.id}`)).body.remote_status).toBe('In Progress');
    const timeline = (await callAs(svc, admin, 'GET', `/cases/${c.id}/timeline`)).body.items.map((e: { kind: string }) => e.kind);
    expect(timeline).toEqual(expect.arrayContaining(['ticket_comment', 'ticket_status']));
  });

  it('reports and audits a status it cannot apply, changing nothing', async () => {
    const { case: c, jira: link } = await openLinkedCase(svc, 'Blocked ticket');
    const blocked = jiraEvent('jira:issue_updated', { id: link.remote_id, key: link.ticket_id, status: 'Blocked' });
    const answer = await deliver('jira-updates', blocked);
    expect(answer).toMatchObject({
      status: 202,
      body: {
        ticket_status_sync: [{ link_id: link.id, case_id: c.id, remote_status: 'Blocked', local_status: null, applied: false, reason: 'unmapped_status' }],
      },
    });
    expect((await caseOf(c.id)).status).toBe('new');
    expect((await deliver('jira-updates', blocked)).body.ticket_status_sync).toBeUndefined();
    const audit = (await callAs(svc, admin, 'GET', '/audit?limit=500')).body.items.filter((e: { action: string }) => e.action === 'ticket.status_sync');
    expect(audit.at(-1)).toMatchObject({
      actor: { kind: 'webhook', via: 'webhook_source:jira-updates' },
      target: { type: 'ticket_link', id: link.id },
      detail: { remote_status: 'Blocked', reason: 'unmapped_status' },
    });
  });

  it('takes a ServiceNow business rule comment by comment_sys_id, resolves, and never reopens a resolved case', async () => {
    const { case: c, snow: link } = await openLinkedCase(svc, 'Malware on laptop');
    const rule = (state: string, extra: Record<string, unknown> = {}) => ({ result: { sys_id: link.remote_id, number: link.ticket_id, state, ...extra } });
    const resolved = await deliver(
      'snow-updates',
      rule('6', { comments: 'Reimaged the laptop.', comment_sys_id: 'a1b2c3d4e5f60718293a4b5c6d7e8f90', sys_updated_by: 'beth.anglin' }),
    );
    expect(resolved.body.ticket).toMatchObject({ links: 1, comments_ingested: 1, status_changes: 1 });
    expect((await caseOf(c.id)).status).toBe('resolved');
    expect(await comments(c.id)).toEqual([expect.stringContaining('Reimaged the laptop.')]);
    const reopen = await deliver('snow-updates', rule('2', { comments: 'Reimaged the laptop.', comment_sys_id: 'a1b2c3d4e5f60718293a4b5c6d7e8f90' }));
    expect(reopen.body).toMatchObject({
      ticket: { comments_ingested: 0, status_changes: 0 },
      ticket_status_sync: [{ remote_status: '2', local_status: 'in_progress', reason: 'case_closed' }],
    });
    expect((await caseOf(c.id)).status).toBe('resolved');
  });

  it('refuses a wrong token and a malformed body, and answers an unknown ticket with no links', async () => {
    expect((await deliver('jira-updates', jiraEvent('jira:issue_updated', { id: '1', key: 'SEC-1' }), 'wrong')).status).toBe(401);
    expect((await deliver('jira-updates', { webhookEvent: 'jira:issue_updated' })).status).toBe(422);
    expect((await deliver('snow-updates', { result: { number: 'INC1' } })).status).toBe(422);
    expect((await deliver('jira-updates', jiraEvent('jira:issue_updated', { id: '999999', key: 'SEC-999', status: 'Done' }))).body).toEqual({
      ticket: { provider: 'ticket_a', remote_id: '999999', links: 0, comments_ingested: 0, status_changes: 0 },
    });
  });
});

describe.each(e2eEngines)('ticket polling on $name', ({ server }) => {
  let svc: InProcessService;
  let jira: Awaited<ReturnType<typeof startTicketAServer>>;
  let snow: Awaited<ReturnType<typeof startTicketBServer>>;

  const link = async (id: string) => (await callAs(svc, admin, 'GET', `/tickets/${id}`)).body;
  /** Makes the link due now, as if its poll interval had passed. */
  const due = (id: string) =>
    svc.service.opened.db
      .updateTable('case_tickets')
      .set({ last_polled_at: new Date(0) })
      .where('link_id', '=', id)
      .execute();
  const caseComments = async (id: string) => ((await callAs(svc, admin, 'GET', `/cases/${id}/comments`)).body.items as { body: string }[]).map((x) => x.body);

  beforeAll(async () => {
    jira = await startTicketAServer('svc-bot@example.com', JIRA_TOKEN, ['SEC']);
    snow = await startTicketBServer('svc.integration', SNOW_PASSWORD);
    svc = await startInProcessService({ server }, { runbooks: { 'tickets.yml': openTickets }, extraEnv: { SVC_TICKET_POLL_TICK_MS: '100' } });
    for (const c of [
      {
        kind: 'ticket_a',
        name: 'jira',
        base_url: jira.url,
        config: {
          email: 'svc-bot@example.com',
          project_key: 'SEC',
          inbound_status_map: { 'To Do': 'new', 'In Progress': 'in_progress', Done: 'resolved' },
          outbound_status_map: { in_progress: 'In Progress', resolved: 'Done', closed: 'Archived' },
        },
        secret: JIRA_TOKEN,
      },
      {
        kind: 'ticket_b',
        name: 'snow',
        base_url: snow.url,
        config: {
          username: 'svc.integration',
          inbound_status_map: { '1': 'new', '2': 'in_progress', '6': 'resolved' },
          outbound_status_map: { in_progress: '2', resolved: '6' },
        },
        secret: SNOW_PASSWORD,
      },
    ])
      expect((await callAs(svc, admin, 'POST', '/connections', c)).status).toBe(201);
  }, 60_000);
  const outbox = (linkId: string) =>
    svc.service.opened.db.selectFrom('ticket_outbox').selectAll().where('link_id', '=', linkId).orderBy('event_position').execute();
  afterAll(async () => {
    await svc?.close();
    await jira?.close();
    await snow?.close();
  });

  it('polls each link of an open case, takes what changed once, stores a failed poll and stops at a closed case', async () => {
    const { case: c, jira: jiraLink, snow: snowLink } = await openLinkedCase(svc, 'Polled tickets');
    // A new link is polled at once: the ticket's first status is mapped onto the case status it already has.
    await expect.poll(async () => (await link(jiraLink.id)).remote_status, { timeout: 15_000 }).toBe('To Do');
    await expect.poll(async () => (await link(snowLink.id)).remote_status, { timeout: 15_000 }).toBe('1');

    const ticket = jira.tickets.get(jiraLink.remote_id)!;
    ticket.status = 'In Progress';
    ticket.comments.push({ id: '20001', text: 'Looking into it.', author: 'Jane Doe', created: '2026-11-23T10:00:00.000+0000' });
    const snowTicket = snow.tickets.get(snowLink.remote_id)!;
    snowTicket.comments.push({ id: 'b'.repeat(32), text: 'Caller confirmed the laptop.', author: 'beth.anglin', created: '2026-11-23 10:05:00' });
    await due(jiraLink.id);
    await due(snowLink.id);
    await expect.poll(async () => (await callAs(svc, admin, 'GET', `/cases/${c.id}`)).body.status, { timeout: 15_000 }).toBe('in_progress');
    await expect.poll(async () => (await caseComments(c.id)).length, { timeout: 15_000 }).toBe(2);
    // The next poll reads both old comments again with a new one: only the new one is taken (one append per poll).
    ticket.comments.push({ id: '20002', text: 'Host isolated.', author: 'Jane Doe', created: '2026-11-23T10:10:00.000+0000' });
    await due(jiraLink.id);
    await expect.poll(async () => (await caseComments(c.id)).length, { timeout: 15_000 }).toBe(3);
    expect((await caseComments(c.id)).filter((b) => b.includes('Looking into it.'))).toHaveLength(1);

    jira.failReads(503);
    await due(jiraLink.id);
    await expect.poll(async () => (await link(jiraLink.id)).last_poll_error, { timeout: 15_000 }).toBe('http_status:503');
    jira.failReads(null);
    await due(jiraLink.id);
    await expect.poll(async () => (await link(jiraLink.id)).last_poll_error, { timeout: 15_000 }).toBeNull();
    expect(JSON.stringify(await link(jiraLink.id))).not.toContain(JIRA_TOKEN);

    expect((await callAs(svc, admin, 'POST', `/cases/${c.id}/status`, { status: 'closed' })).status).toBe(200);
    await due(jiraLink.id);
    await new Promise((r) => setTimeout(r, 500));
    expect((await link(jiraLink.id)).last_polled_at).toBe(new Date(0).toISOString());
  });

  it('drops a polled status read before a local status change or before our own push of it, so the reading cannot undo the change', async () => {
    // The first poll of the new Jira link reads "To Do" and is held while the analyst moves the case on.
    const held = jira.holdReads();
    const { case: c, jira: jiraLink, snow: snowLink } = await openLinkedCase(svc, 'Stale reading');
    await held.arrived;
    expect((await callAs(svc, admin, 'POST', `/cases/${c.id}/status`, { status: 'in_progress' })).status).toBe(200);
    held.release();
    // The held "To Do" (and ServiceNow's "1", read while our "2" waits in the outbox) map to new: neither is taken.
    // One loop polls, then pushes: once both tickets show our status, both stale readings were applied.
    await expect.poll(() => jira.tickets.get(jiraLink.remote_id)!.status, { timeout: 15_000 }).toBe('In Progress');
    await expect.poll(() => snow.tickets.get(snowLink.remote_id)!.status, { timeout: 15_000 }).toBe('2');
    expect((await callAs(svc, admin, 'GET', `/cases/${c.id}`)).body.status).toBe('in_progress');
    // A later reading is current again: a real change in Jira is taken.
    jira.tickets.get(jiraLink.remote_id)!.status = 'Done';
    await due(jiraLink.id);
    await expect.poll(async () => (await callAs(svc, admin, 'GET', `/cases/${c.id}`)).body.status, { timeout: 15_000 }).toBe('resolved');
  });

  it('mirrors local comments and mapped statuses out once, never echoes them back, and sends a ticket-caused status to the other links only', async () => {
    const { case: c, jira: jiraLink, snow: snowLink } = await openLinkedCase(svc, 'Mirrored out');
    const jiraTicket = jira.tickets.get(jiraLink.remote_id)!;
    const snowTicket = snow.tickets.get(snowLink.remote_id)!;

    expect((await callAs(svc, admin, 'POST', `/cases/${c.id}/comments`, { body: 'Blocked the sender domain.' })).status).toBe(201);
    await expect.poll(() => jiraTicket.comments.length, { timeout: 15_000 }).toBe(1);
    await expect.poll(() => snowTicket.comments.length, { timeout: 15_000 }).toBe(1);
    expect(jiraTicket.comments[0]!.text).toMatch(/^admin@example\.com commented in svc:\nBlocked the sender domain\.\n\n\[svc-mirror:[0-9a-f-]{36}\]$/);
    expect(snowTicket.comments[0]!.text).toBe(jiraTicket.comments[0]!.text);

    expect((await callAs(svc, admin, 'POST', `/cases/${c.id}/status`, { status: 'in_progress' })).status).toBe(200);
    await expect.poll(() => jiraTicket.status, { timeout: 15_000 }).toBe('In Progress');
    await expect.poll(() => snowTicket.status, { timeout: 15_000 }).toBe('2');

    // The polls read our own comment and status back: neither is taken in again.
    jiraTicket.comments.push({ id: '40001', text: 'Seen, thanks.', author: 'Jane Doe', created: '2026-11-23T11:00:00.000+0000' });
    await due(jiraLink.id);
    await due(snowLink.id);
    await expect.poll(async () => (await caseComments(c.id)).length, { timeout: 15_000 }).toBe(2);
    expect((await caseComments(c.id)).filter((b) => b.includes('svc-mirror'))).toEqual([]);
    expect((await callAs(svc, admin, 'GET', `/cases/${c.id}`)).body.status).toBe('in_progress');

    // Jira resolves the ticket: the case follows, and only the other link is told.
    const transitionsBefore = jira.received.filter((r) => r.method === 'POST' && r.path.endsWith('/transitions')).length;
    jiraTicket.status = 'Done';
    await due(jiraLink.id);
    await expect.poll(async () => (await callAs(svc, admin, 'GET', `/cases/${c.id}`)).body.status, { timeout: 15_000 }).toBe('resolved');
    await expect.poll(() => snowTicket.status, { timeout: 15_000 }).toBe('6');
    expect(jira.received.filter((r) => r.method === 'POST' && r.path.endsWith('/transitions')).length).toBe(transitionsBefore);
    expect(jiraTicket.comments.filter((x) => x.author === 'svc bot')).toHaveLength(1);

    // A status the workflow cannot reach ends its row with the reason, and nothing else is sent.
    expect((await callAs(svc, admin, 'POST', `/cases/${c.id}/status`, { status: 'closed' })).status).toBe(200);
    await expect.poll(async () => (await outbox(jiraLink.id)).at(-1)?.last_error ?? null, { timeout: 15_000 }).toBe('no_transition');
    expect((await outbox(jiraLink.id)).every((row) => row.done_at !== null)).toBe(true);
    expect((await link(jiraLink.id)).mirror).toEqual({ pending: 0, failed: 1, last_error: 'no_transition' });
    expect((await link(snowLink.id)).mirror).toEqual({ pending: 0, failed: 0, last_error: null });
    expect(jiraTicket.status).toBe('Done');
  });
});
