/**
 * `notify.chat_a` against a local server that answers as Slack's Web API does (SPEC.md
 * "Action registry entry"; tests/support/chat-a-server.ts): `chat.postMessage` with the
 * bot token, gate buttons in Block Kit limits, and Slack's `{ok: false, error}` answers
 * read as final or transient failures; the bot token is never shown.
 */
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ActionContext, ActionDefinition, ActionFailure, ResolvedConnection } from '../../../adapters/actions/action.ts';
import { createNotifyChatA } from '../../../adapters/actions/notify-chat-a.ts';
import { startChatAServer } from '../../support/chat-a-server.ts';

const BOT_TOKEN = 'xoxb-111-222-abcdefabcdefabcdefabcdef';

describe('notify.chat_a', () => {
  let chat: Awaited<ReturnType<typeof startChatAServer>>;
  const action = createNotifyChatA((url, init) => fetch(url, init)) as ActionDefinition;
  beforeAll(async () => {
    chat = await startChatAServer(BOT_TOKEN, { unknownChannel: 'C404', rateLimitedChannel: 'C429' });
  });
  afterAll(async () => chat?.close());
  const context = (botToken: string | null = BOT_TOKEN): ActionContext => ({
    runId: '3f0c8a52-5d0e-4b7e-9d67-0f5a3c1e2b4d',
    stepId: 'ask',
    attempt: 1,
    deliveryId: 'delivery-1',
    caseId: null,
    signal: AbortSignal.timeout(10_000),
    cases: null,
    approval: null,
    resume: null,
    now: () => new Date(),
    connection: {
      id: 'c',
      kind: 'chat_a',
      name: 'slack',
      base_url: `${chat.url}/api`,
      config: {},
      secret: 'signing-secret',
      previous_secret: null,
      bot_token: botToken,
    } satisfies ResolvedConnection,
  });
  const run = (step: unknown, ctx = context()) => action.execute(v.parse(action.input, step), ctx);
  const failure = (p: Promise<unknown>) =>
    p.then(
      () => null,
      (e: unknown) => e as ActionFailure,
    );

  it('posts a plain message, in a thread when asked', async () => {
    expect(await run({ channel: 'C111', text: 'Case SVC-7 opened', thread_ts: '1700000000.000100' })).toEqual({
      channel: 'C111',
      ts: expect.stringMatching(/^\d+\.000100$/),
    });
    expect(chat.posted().at(-1)).toEqual({ channel: 'C111', text: 'Case SVC-7 opened', thread_ts: '1700000000.000100' });
  });

  it('adds Approve and Deny buttons for a gate, keeping a long text inside the section limit', async () => {
    const long = 'x'.repeat(5000);
    await run({ channel: 'C111', text: long, approval: { step_id: 'contain' } });
    const sent = chat.posted().at(-1)!;
    expect(sent.text).toBe(long);
    expect(sent.blocks[0].text.text).toHaveLength(3000);
    expect(sent.blocks[1]).toEqual({
      type: 'actions',
      block_id: 'svc_gate_contain',
      elements: [
        {
          type: 'button',
          action_id: 'svc_gate_approve',
          text: { type: 'plain_text', text: 'Approve' },
          style: 'primary',
          value: JSON.stringify({ run_id: context().runId, step_id: 'contain' }),
        },
        {
          type: 'button',
          action_id: 'svc_gate_deny',
          text: { type: 'plain_text', text: 'Deny' },
          style: 'danger',
          value: JSON.stringify({ run_id: context().runId, step_id: 'contain' }),
        },
      ],
    });
  });

  it("reads Slack's errors as final or transient, and needs a bot token", async () => {
    expect(await failure(run({ channel: 'C404', text: 'x' }))).toMatchObject({
      type: 'chat_api_error',
      retryable: false,
      message: expect.stringContaining('channel_not_found'),
    });
    expect(await failure(run({ channel: 'C429', text: 'x' }))).toMatchObject({ type: 'http_status', retryable: true });
    expect(await failure(run({ channel: 'C111', text: 'x' }, context('xoxb-wrong')))).toMatchObject({
      type: 'chat_api_error',
      retryable: false,
      message: expect.stringContaining('invalid_auth'),
    });
    expect(await failure(run({ channel: 'C111', text: 'x' }, context(null)))).toMatchObject({ type: 'connection_missing', retryable: false });
    expect(v.safeParse(action.input, { channel: 'C1', text: 'x', approval: { step_id: 'no spaces' } }).success).toBe(false);
  });

  it('previews without the bot token', async () => {
    const shown = await action.preview(v.parse(action.input, { channel: 'C111', text: 'x', approval: { step_id: 'contain' } }), context());
    expect(JSON.stringify(shown)).not.toContain(BOT_TOKEN);
    expect(shown).toMatchObject({ method: 'POST', url: `${chat.url}/api/chat.postMessage` });
  });
});
