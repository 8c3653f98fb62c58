/**
 * Private cases and ticket mirroring, on every engine (issue 46 finding 3;
 * docs/configuration.md "Connections", "Tickets"): connections are a realm admin's, so a
 * team admin cannot point one elsewhere; a realm admin's move of `base_url` is audited with
 * both values and turns `mirror_private_cases` off; without the flag a private case's
 * comments stay in the service (the outbox row ends `private_case_not_mirrored`) while a
 * public case still mirrors; the flag, set by a realm admin, mirrors private cases again;
 * a connection created again under the same name starts with the flag off.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callAs, runOnCase, startInProcessService, testPerson, type InProcessService } from '../support/in-process-service.ts';
import { e2eEngines } from '../support/service-process.ts';
import { JIRA_TOKEN, startTicketAServer } from '../support/ticket-servers.ts';

const openTicket = `
id: open-ticket
name: Open a ticket
version: 1
trigger: { type: manual }
steps:
  - id: jira
    action: notify.ticket_a
    with: { connection: jira, title: "{{ case.title }}" }
`;

const root = testPerson('root@example.com', [{ team: null, role: 'admin' }]);
const blueAdmin = testPerson('blue-admin@example.com', [{ team: 'blue', role: 'admin' }]);
const redAdmin = testPerson('red-admin@example.com', [{ team: 'red', role: 'admin' }]);
const jiraConfig = { email: 'svc-bot@example.com', project_key: 'SEC' };

describe.each(e2eEngines)('mirroring private cases on $name', ({ server }) => {
  let svc: InProcessService;
  let jira: Awaited<ReturnType<typeof startTicketAServer>>;
  let elsewhere: Awaited<ReturnType<typeof startTicketAServer>>;
  let connectionId: string;
  let privateCase: { id: string; link: { id: string; remote_id: string } };
  let publicCase: { id: string; link: { id: string; remote_id: string } };

  /** A team-blue case opened by blueAdmin, with a Jira ticket linked to it. */
  const linkedCase = async (title: string, isPrivate: boolean) => {
    const opened = await callAs(svc, blueAdmin, 'POST', '/cases', { title, severity: 'high', team: 'blue', private: isPrivate });
    expect(opened.status, opened.text).toBe(201);
    expect((await runOnCase(svc, blueAdmin, opened.body.id, 'open-ticket')).status).toBe('succeeded');
    const [link] = (await callAs(svc, blueAdmin, 'GET', `/cases/${opened.body.id}/tickets`)).body.items;
    return { id: opened.body.id as string, link };
  };
  /** Comments on `c` as blueAdmin and waits until its outbox row is done; the row. */
  const commentOn = async (c: typeof privateCase, body: string) => {
    const added = await callAs(svc, blueAdmin, 'POST', `/cases/${c.id}/comments`, { body });
    expect(added.status, added.text).toBe(201);
    const row = async () =>
      (await svc.service.opened.db.selectFrom('ticket_outbox').selectAll().where('link_id', '=', c.link.id).execute()).find(
        (r) => r.payload.comment_id === added.body.id,
      );
    await expect.poll(async () => (await row())?.done_at ?? null, { timeout: 15_000 }).not.toBeNull();
    return row();
  };
  const mirrored = (c: typeof privateCase) => (jira.tickets.get(c.link.remote_id)?.comments ?? []).map((x) => x.text);
  const connection = async () => (await callAs(svc, root, 'GET', `/connections/${connectionId}`)).body;
  const put = (who: typeof root, body: Record<string, unknown>) => callAs(svc, who, 'PUT', `/connections/${connectionId}`, body);

  beforeAll(async () => {
    jira = await startTicketAServer('svc-bot@example.com', JIRA_TOKEN, ['SEC']);
    elsewhere = await startTicketAServer('svc-bot@example.com', JIRA_TOKEN, ['SEC']);
    svc = await startInProcessService({ server }, { runbooks: { 'ticket.yml': openTicket }, extraEnv: { SVC_TICKET_POLL_TICK_MS: '100' } });
    const created = await callAs(svc, root, 'POST', '/connections', {
      kind: 'ticket_a',
      name: 'jira',
      base_url: jira.url,
      config: jiraConfig,
      secret: JIRA_TOKEN,
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body.config.mirror_private_cases).toBe(false);
    connectionId = created.body.id;
    privateCase = await linkedCase('Executive mailbox compromise', true);
    publicCase = await linkedCase('Phishing wave', false);
  }, 60_000);
  afterAll(async () => {
    await svc?.close();
    await jira?.close();
    await elsewhere?.close();
  });

  it("refuses a team admin's change of a connection, leaving it as it was", async () => {
    const before = await connection();
    for (const who of [blueAdmin, redAdmin]) {
      const moved = await put(who, { base_url: elsewhere.url });
      expect([moved.status, moved.body.code]).toEqual([403, 'forbidden']);
      expect((await put(who, { config: { ...jiraConfig, mirror_private_cases: true } })).status).toBe(403);
      expect((await callAs(svc, who, 'GET', '/connections')).status).toBe(403);
    }
    expect(await connection()).toEqual(before);
  });

  it('mirrors a public case but holds back a private one without the flag', async () => {
    expect((await commentOn(publicCase, 'Sender domain blocked.'))?.last_error).toBeNull();
    expect(mirrored(publicCase)).toEqual([expect.stringContaining('Sender domain blocked.')]);

    expect(await commentOn(privateCase, 'The CFO clicked the link.')).toMatchObject({ last_error: 'private_case_not_mirrored', attempts: 1 });
    expect(mirrored(privateCase)).toEqual([]);
    expect((await callAs(svc, blueAdmin, 'GET', `/tickets/${privateCase.link.id}`)).body.mirror).toEqual({
      pending: 0,
      failed: 1,
      last_error: 'private_case_not_mirrored',
    });
  });

  it('mirrors private cases once a realm admin sets the flag', async () => {
    const enabled = await put(root, { config: { ...jiraConfig, mirror_private_cases: true } });
    expect(enabled.status, enabled.text).toBe(200);
    expect(enabled.body.config.mirror_private_cases).toBe(true);
    expect((await commentOn(privateCase, 'Mailbox rules removed.'))?.last_error).toBeNull();
    expect(mirrored(privateCase)).toEqual([expect.stringContaining('Mailbox rules removed.')]);
  });

  it("audits a realm admin's move of base_url with both values and turns the flag off", async () => {
    const moved = await put(root, { base_url: elsewhere.url });
    expect(moved.status, moved.text).toBe(200);
    expect(moved.body).toMatchObject({ base_url: elsewhere.url, config: { ...jiraConfig, mirror_private_cases: false } });
    const audit = await callAs(svc, root, 'GET', `/audit?action=connection.destination_changed&target_id=${connectionId}`);
    expect(audit.body.items.map((e: { detail: unknown }) => e.detail)).toEqual([{ field: 'base_url', old: jira.url, new: elsewhere.url }]);
    expect(audit.body.items[0].actor).toMatchObject({ email: 'root@example.com' });
    expect(JSON.stringify(audit.body)).not.toContain(JIRA_TOKEN);

    // Nothing of the private case reaches the new destination.
    expect(await commentOn(privateCase, 'Legal informed.')).toMatchObject({ last_error: 'private_case_not_mirrored' });
    expect(elsewhere.received.filter((r) => r.path.includes('/comment'))).toEqual([]);

    // Moving back while setting the flag in the same request keeps it on.
    const back = await put(root, { base_url: jira.url, config: { ...jiraConfig, mirror_private_cases: true } });
    expect(back.body).toMatchObject({ base_url: jira.url, config: { mirror_private_cases: true } });
    expect((await commentOn(privateCase, 'Tokens revoked.'))?.last_error).toBeNull();
  });

  it('starts a connection created again under the same name with the flag off', async () => {
    expect((await callAs(svc, root, 'DELETE', `/connections/${connectionId}`)).status).toBe(204);
    const again = await callAs(svc, root, 'POST', '/connections', {
      kind: 'ticket_a',
      name: 'jira',
      base_url: jira.url,
      config: jiraConfig,
      secret: JIRA_TOKEN,
    });
    expect(again.status, again.text).toBe(201);
    connectionId = again.body.id;
    expect(await commentOn(privateCase, 'Closing soon.')).toMatchObject({ last_error: 'private_case_not_mirrored' });
    expect(mirrored(privateCase).filter((t) => t.includes('Closing soon.'))).toEqual([]);
    expect((await commentOn(publicCase, 'Still mirrored.'))?.last_error).toBeNull();
  });
});
