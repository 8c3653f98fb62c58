/**
 * The chat_a product on the real service, on every engine (issue 7; SPEC.md "Webhook
 * intake" `POST /webhooks/chat-interactions`, "Peer endpoints" account section): a person
 * links their chat identity with a one-time code from the account section and the slash
 * command, `notify.chat_a` posts a gate's Approve/Deny buttons through the Web API, and a
 * press decides the gate as the linked person under the API's permission checks. Requests
 * are signed as Slack signs them (shared/fixtures/vendors/slack) and built from its
 * published slash-command and block_actions payloads.
 */
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callAs, startInProcessService, testPerson, type InProcessService, type TestPerson } from '../support/in-process-service.ts';
import { readFixtureJson } from '../support/fixtures.ts';
import { startChatAServer } from '../support/chat-a-server.ts';
import { startReceiver } from '../support/receiver.ts';
import { e2eEngines } from '../support/service-process.ts';

const SIGNING_SECRET = readFixtureJson<{ signing_secret: string }>('vendors', 'slack', 'signature_vectors.json').signing_secret;
const BOT_TOKEN = 'xoxb-111-222-abcdefabcdefabcdefabcdef';
const slashFixture = readFixtureJson<Record<string, string>>('vendors', 'slack', 'slash_command.form_decoded.json');
const blockFixture = readFixtureJson<Record<string, any>>('vendors', 'slack', 'block_actions.button.json');
const WORKSPACE = slashFixture.team_id!;

const gated = `
id: chat-gate
name: Ask in chat before containing
version: 1
trigger: { type: manual }
steps:
  - id: ask
    action: notify.chat_a
    with: { connection: slack, channel: C111, text: "Contain the host of {{ case.key }}?", approval: { step_id: contain } }
  - id: contain
    needs: [ask]
    approval: { roles: [approver], message: Contain the host? }
    action: case.update
    with: { comment: contained }
`;

const root = testPerson('root@example.com', [{ team: null, role: 'admin' }]);
const approver = testPerson('approver@example.com', [{ team: 'blue', role: 'approver' }]);
const viewer = testPerson('viewer@example.com', [{ team: 'blue', role: 'viewer' }]);
const outsider = testPerson('red-approver@example.com', [{ team: 'red', role: 'approver' }]);

describe.each(e2eEngines)('chat_a on $name', ({ server }) => {
  let svc: InProcessService;
  let chat: Awaited<ReturnType<typeof startChatAServer>>;
  let caseId = '';

  const sign = (body: string, secret = SIGNING_SECRET, timestamp = Math.floor(Date.now() / 1000)) => ({
    'x-slack-request-timestamp': String(timestamp),
    'x-slack-signature': `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:${body}`).digest('hex')}`,
  });
  const post = async (body: string, headers: Record<string, string>) => {
    const res = await svc.request('/webhooks/chat-interactions', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body,
    });
    const text = await res.text();
    return { status: res.status, text, body: text === '' ? null : (JSON.parse(text) as any) };
  };
  /** The published slash command, sent by `chatUser` with `text`. */
  const slash = (text: string, chatUser: string, secret = SIGNING_SECRET) => {
    const body = new URLSearchParams({ ...slashFixture, user_id: chatUser, user_name: `name-${chatUser}`, text }).toString();
    return post(body, sign(body, secret));
  };
  /** The published block_actions payload, pressed by `chatUser` on `button`. */
  const press = (button: { action_id: string; value: string }, chatUser: string, responseUrl = `${chat.url}/actions/T1DC2JH3J/1/r`) => {
    const payload = {
      ...blockFixture,
      user: { ...blockFixture.user, id: chatUser, team_id: WORKSPACE },
      team: { ...blockFixture.team, id: WORKSPACE },
      response_url: responseUrl,
      message: { type: 'message', text: 'Contain the host?' },
      actions: [{ ...blockFixture.actions[0], ...button, type: 'button' }],
    };
    const body = `payload=${encodeURIComponent(JSON.stringify(payload))}`;
    return post(body, sign(body));
  };
  const peerToken = (claims: Record<string, unknown>) => svc.identity.sign({ token_use: 'service', sub: 'identity', ...claims });
  const accountPost = async (token: string, body: unknown) => {
    const res = await svc.request('/peer/v1/account-section', {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as any, cache: res.headers.get('cache-control') };
  };
  const accountGet = async (user: string) => {
    const res = await svc.request(`/peer/v1/account-section?user=${encodeURIComponent(user)}`, {
      headers: { authorization: `Bearer ${await peerToken({ scope: 'svc:peer:status:read' })}` },
    });
    return { status: res.status, body: (await res.json()) as any };
  };
  /** Links `who`'s account to `chatUser` the way a person does it; returns the command shown. */
  const link = async (who: TestPerson, chatUser: string) => {
    const issued = await accountPost(await peerToken({ scope: 'svc:peer:account:write', actor_sub: who.sub }), { action: 'link' });
    expect(issued.status, JSON.stringify(issued.body)).toBe(200);
    const reply = await slash(issued.body.notice.code.replace('/svc ', ''), chatUser);
    expect(reply.body.text).toContain(`linked to ${who.email}`);
    return issued.body.notice.code as string;
  };
  const getRun = async (id: string) => (await callAs(svc, root, 'GET', `/runs/${id}`)).body;
  const until = async (id: string, status: string) => {
    await expect.poll(async () => (await getRun(id)).status, { timeout: 20_000, interval: 50 }).toBe(status);
    return getRun(id);
  };
  const waitingRun = async () => {
    const queued = await callAs(svc, root, 'POST', `/cases/${caseId}/runbooks/chat-gate/run`, {});
    expect(queued.status, queued.text).toBe(202);
    return until(queued.body.id, 'waiting_approval');
  };
  const lastPostedButtons = () => {
    const message = chat.posted().at(-1)!;
    const [approve, deny] = message.blocks[1].elements as { action_id: string; value: string }[];
    return { approve: approve!, deny: deny! };
  };
  const replyCount = () => chat.replies().length;
  const nextReply = async (before: number) => {
    await expect.poll(() => replyCount(), { timeout: 10_000, interval: 20 }).toBeGreaterThan(before);
    return chat.replies()[before]!;
  };

  beforeAll(async () => {
    chat = await startChatAServer(BOT_TOKEN, { unknownChannel: 'C404', rateLimitedChannel: 'C429' });
    svc = await startInProcessService({ server }, { runbooks: { 'chat.yml': gated } });
    const conn = await callAs(svc, root, 'POST', '/connections', {
      kind: 'chat_a',
      name: 'slack',
      base_url: `${chat.url}/api`,
      secret: SIGNING_SECRET,
      bot_token: BOT_TOKEN,
      config: { response_origin: chat.url },
    });
    expect(conn.status, conn.text).toBe(201);
    expect(conn.body).toMatchObject({ secret_configured: true, bot_token_configured: true, config: { response_origin: chat.url } });
    expect(conn.text).not.toContain(BOT_TOKEN);
    caseId = (await callAs(svc, root, 'POST', '/cases', { title: 'Host beaconing', severity: 'high', team: 'blue' })).body.id;
    // People exist as users once they have called the service.
    for (const who of [approver, viewer, outsider]) expect((await callAs(svc, who, 'GET', '/cases')).status).toBe(200);
  }, 60_000);
  afterAll(async () => {
    await svc?.close();
    await chat?.close();
  });

  it('refuses a bad signature, a stale timestamp and a body that is not form-encoded', async () => {
    const body = new URLSearchParams({ ...slashFixture, text: 'help' }).toString();
    expect((await post(body, sign(body, 'not-the-secret'))).body).toMatchObject({ code: 'unauthenticated' });
    expect((await post(`${body}------`, sign(body))).status).toBe(401);
    expect((await post(body, {})).status).toBe(401);
    const stale = await post(body, sign(body, SIGNING_SECRET, Math.floor(Date.now() / 1000) - 301));
    expect(stale.status).toBe(401);
    expect(stale.body.code).toBe('stale_signature');
    const json = JSON.stringify({ command: '/svc' });
    const res = await svc.request('/webhooks/chat-interactions', {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...sign(json) },
      body: json,
    });
    expect(res.status).toBe(415);
    const help = await slash('', slashFixture.user_id!);
    expect(help.status).toBe(200);
    expect(help.body).toMatchObject({ response_type: 'ephemeral', text: expect.stringContaining('/svc link <code>') });
  });

  it('links an identity with a one-time code from the account section, and shows the link there', async () => {
    expect((await accountGet(approver.sub)).body).toMatchObject({ product: 'svc', fields: [{ id: 'chat_a', value: 'Not linked', actions: ['link'] }] });
    expect((await accountGet('no-such-subject')).body.fields).toEqual([]);

    const token = await peerToken({ scope: 'svc:peer:account:write', actor_sub: approver.sub });
    const issued = await accountPost(token, { action: 'link' });
    expect(issued).toMatchObject({
      status: 200,
      cache: 'no-store',
      body: { product: 'svc', notice: { code: expect.stringMatching(/^\/svc link [0-9A-HJKMNP-TV-Z]{5}-[0-9A-HJKMNP-TV-Z]{5}$/) } },
    });
    // The token was minted for one write: a replay cannot fetch a second code.
    expect((await accountPost(token, { action: 'link' })).status).toBe(401);
    const code = (issued.body.notice.code as string).replace('/svc link ', '');
    expect(JSON.stringify((await accountGet(approver.sub)).body)).not.toContain(code);

    expect((await slash(`link ${code.toLowerCase()}`, 'U2CERLKJA')).body.text).toContain('linked to approver@example.com');
    expect((await slash(`link ${code}`, 'U0THER')).body.text).toContain('unknown, already used or expired');
    expect((await slash('link 123', 'U0THER')).body.text).toContain('ten letters and digits');
    expect((await accountGet(approver.sub)).body.fields).toEqual([
      { id: 'chat_a', label: 'Chat identity', value: expect.stringContaining(`Linked as name-U2CERLKJA (workspace ${WORKSPACE})`), actions: ['unlink'] },
    ]);
    const audit = (await callAs(svc, root, 'GET', '/audit?limit=500')).body.items.filter((e: { action: string }) => e.action === 'chat.identity_link');
    expect(audit.at(-1)).toMatchObject({
      actor: { email: 'approver@example.com', kind: 'user' },
      detail: { provider: 'chat_a', workspace_id: WORKSPACE, chat_user_id: 'U2CERLKJA' },
    });
  });

  it('refuses account-section writes from anyone but identity acting for an active person', async () => {
    const write = (claims: Record<string, unknown>, body: unknown = { action: 'link' }) => peerToken(claims).then((t) => accountPost(t, body));
    expect((await write({ scope: 'svc:peer:account:write svc:peer:status:read', actor_sub: viewer.sub })).status).toBe(403);
    expect((await write({ scope: 'svc:peer:account:write' })).status).toBe(403);
    expect((await write({ scope: 'svc:peer:status:read', actor_sub: viewer.sub })).status).toBe(403);
    expect((await write({ scope: 'svc:peer:account:write', actor_sub: 'no-such-subject' })).status).toBe(404);
    expect(await write({ scope: 'svc:peer:account:write', actor_sub: viewer.sub }, { action: 'unlink' })).toMatchObject({
      status: 400,
      body: { code: 'peer_bad_request' },
    });
    expect(await write({ scope: 'svc:peer:account:write', actor_sub: viewer.sub }, { action: 'delete' })).toMatchObject({
      status: 400,
      body: { code: 'peer_bad_request' },
    });
    const human = await callAs(svc, root, 'POST', '/peer/v1/account-section', { action: 'link' });
    expect(human.status).toBe(403);
    expect((await callAs(svc, root, 'GET', `/peer/v1/account-section?user=${root.sub}`)).status).toBe(403);
    const missing = await svc.request('/peer/v1/account-section', {
      headers: { authorization: `Bearer ${await peerToken({ scope: 'svc:peer:status:read' })}` },
    });
    expect(missing.status).toBe(400);
  });

  it('posts Approve and Deny buttons with the Web API, and a linked approver decides the gate from chat', async () => {
    await link(viewer, 'UVIEWER');
    await link(outsider, 'UOUTSIDE');
    const run = await waitingRun();
    const message = chat.posted().at(-1)!;
    expect(message).toMatchObject({ channel: 'C111', text: expect.stringMatching(/^Contain the host of SVC-\d+\?$/) });
    expect(chat.received.at(-1)!.headers).toMatchObject({ authorization: `Bearer ${BOT_TOKEN}`, 'content-type': 'application/json; charset=utf-8' });
    const buttons = lastPostedButtons();
    expect(JSON.parse(buttons.approve.value)).toEqual({ run_id: run.id, step_id: 'contain' });
    expect(run.steps.find((s: { id: string }) => s.id === 'ask').output).toEqual({ channel: 'C111', ts: expect.stringMatching(/^\d+\.\d+$/) });

    let before = replyCount();
    expect((await press(buttons.approve, 'UNOBODY')).status).toBe(200);
    expect((await nextReply(before)).text).toContain('not linked');
    before = replyCount();
    await press(buttons.approve, 'UVIEWER');
    expect((await nextReply(before)).text).toContain('may not decide');
    before = replyCount();
    await press(buttons.approve, 'UOUTSIDE');
    expect((await nextReply(before)).text).toContain('not visible to your account');
    expect((await getRun(run.id)).status).toBe('waiting_approval');

    before = replyCount();
    await press(buttons.approve, 'U2CERLKJA');
    expect(await nextReply(before)).toEqual({
      response_type: 'ephemeral',
      replace_original: true,
      text: 'Contain the host?\nApproved by approver@example.com.',
    });
    const done = await until(run.id, 'succeeded');
    expect(done.gates).toMatchObject([
      { step_id: 'contain', status: 'approved', decided_by: 'approver@example.com', note: `decided in chat_a as ${WORKSPACE}/U2CERLKJA` },
    ]);

    before = replyCount();
    await press(buttons.approve, 'U2CERLKJA');
    expect((await nextReply(before)).text).toContain('not waiting for a decision');
  });

  it('denies from chat, and sends no reply to a response_url off the connection origin', async () => {
    const elsewhere = await startReceiver();
    try {
      const run = await waitingRun();
      const { deny } = lastPostedButtons();
      expect((await press(deny, 'U2CERLKJA', `${elsewhere.url}/actions/T1DC2JH3J/1/r`)).status).toBe(200);
      const denied = await until(run.id, 'denied');
      expect(denied.gates).toMatchObject([{ step_id: 'contain', status: 'denied', decided_by: 'approver@example.com' }]);
      await expect
        .poll(
          () =>
            svc
              .errors()
              .map((e) => String((e.err as { message?: string } | undefined)?.message ?? e.msg))
              .join('\n'),
          { timeout: 5000 },
        )
        .toContain('outside the connection response_origin');
      expect(elsewhere.received).toEqual([]);
    } finally {
      await elsewhere.close();
    }
  });

  it('unlinks from chat and from the account section; an unlinked press decides nothing', async () => {
    expect((await slash('unlink', 'UVIEWER')).body.text).toBe('This chat account is no longer linked.');
    expect((await slash('unlink', 'UVIEWER')).body.text).toBe('This chat account was not linked.');
    const unlinked = await accountPost(await peerToken({ scope: 'svc:peer:account:write', actor_sub: approver.sub }), { action: 'unlink' });
    expect(unlinked).toMatchObject({ status: 200, body: { product: 'svc', section: { fields: [{ value: 'Not linked', actions: ['link'] }] } } });
    expect(unlinked.body.notice).toBeUndefined();
    const run = await waitingRun();
    const before = replyCount();
    await press(lastPostedButtons().approve, 'U2CERLKJA');
    expect((await nextReply(before)).text).toContain('not linked');
    expect((await getRun(run.id)).status).toBe('waiting_approval');
    const audit = (await callAs(svc, root, 'GET', '/audit?limit=500')).body.items.filter((e: { action: string }) => e.action === 'chat.identity_unlink');
    expect(audit.map((e: { detail: { from: string } }) => e.detail.from)).toEqual(['chat', 'account_section']);
    await callAs(svc, root, 'POST', `/runs/${run.id}/cancel`, {});
  });

  it('keeps verifying with the signing secret before a rotation while the overlap lasts', async () => {
    const conn = (await callAs(svc, root, 'GET', '/connections')).body.items.find((c: { name: string }) => c.name === 'slack');
    expect((await callAs(svc, root, 'POST', `/connections/${conn.id}/rotate`, { secret: 'a-new-signing-secret' })).status).toBe(200);
    expect((await slash('', 'U2CERLKJA', SIGNING_SECRET)).status).toBe(200);
    expect((await slash('', 'U2CERLKJA', 'a-new-signing-secret')).status).toBe(200);
    expect((await slash('', 'U2CERLKJA', 'yet-another')).status).toBe(401);
  });
});
