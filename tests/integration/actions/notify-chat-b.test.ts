/**
 * `notify.chat_b` against a local server that answers as Teams webhooks do (SPEC.md
 * "Action registry entry"; shared/fixtures/vendors/msteams): an Adaptive Card message
 * in the documented envelope, delivered on `1` (incoming webhook) or an empty 202
 * (Workflows), a 2xx with any other body read as Teams' failed delivery, and the webhook
 * URL (the secret) used only on the connection's own origin and never shown.
 */
import { readFileSync } from 'node:fs';
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ActionContext, ActionDefinition, ActionFailure, ResolvedConnection } from '../../../adapters/actions/action.ts';
import { adaptiveCardMessage, createNotifyChatB } from '../../../adapters/actions/notify-chat-b.ts';
import { fixturePath, readFixtureJson } from '../../support/fixtures.ts';
import { startReceiver } from '../../support/receiver.ts';

describe('notify.chat_b', () => {
  let teams: Awaited<ReturnType<typeof startReceiver>>;
  let answer = { status: 200, body: readFileSync(fixturePath('vendors', 'msteams', 'incoming_webhook.success_response.body.txt'), 'utf8') };
  const action = createNotifyChatB((url, init) => fetch(url, init)) as ActionDefinition;
  beforeAll(async () => {
    teams = await startReceiver((_r, res) => res.writeHead(answer.status, { 'content-type': 'text/plain' }).end(answer.body));
  });
  afterAll(async () => teams?.close());
  const secretPath = '/webhookb2/11111111-2222/IncomingWebhook/abc123/def456';
  const context = (secret = `${teams.url}${secretPath}`, base = teams.url): ActionContext => ({
    runId: 'r',
    stepId: 's',
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
      kind: 'chat_b',
      name: 'soc-channel',
      base_url: base,
      config: {},
      secret,
      previous_secret: null,
      bot_token: null,
    } satisfies ResolvedConnection,
  });
  const run = (step: unknown, ctx = context()) => action.execute(v.parse(action.input, step), ctx);
  const failure = (p: Promise<unknown>) =>
    p.then(
      () => null,
      (e: unknown) => e as ActionFailure,
    );

  it('posts an Adaptive Card in the documented envelope to the webhook URL', async () => {
    expect(
      await run({
        text: 'Case SVC-7 was opened',
        title: 'New critical case',
        facts: { Severity: 'critical' },
        link: { title: 'Open case', url: 'https://svc.example/cases/7' },
      }),
    ).toEqual({ status: 200, delivered: true });
    const [sent] = teams.received;
    expect(sent!.path).toBe(secretPath);
    const body = JSON.parse(sent!.body);
    const documented = readFixtureJson<{ type: string; attachments: { contentType: string; contentUrl: null; content: Record<string, unknown> }[] }>(
      'vendors',
      'msteams',
      'incoming_webhook.adaptive_card_message.json',
    );
    expect(body.type).toBe(documented.type);
    expect(body.attachments[0]).toMatchObject({
      contentType: documented.attachments[0]!.contentType,
      contentUrl: null,
      content: { $schema: documented.attachments[0]!.content.$schema, type: 'AdaptiveCard' },
    });
    expect(body).toEqual(
      adaptiveCardMessage({
        text: 'Case SVC-7 was opened',
        title: 'New critical case',
        facts: { Severity: 'critical' },
        link: { title: 'Open case', url: 'https://svc.example/cases/7' },
      }),
    );
    expect(body.attachments[0].content.body.map((b: { type: string }) => b.type)).toEqual(['TextBlock', 'TextBlock', 'FactSet']);
  });

  it('takes an empty 202 as delivered and reads any other 2xx body as a failed delivery', async () => {
    answer = { status: 202, body: '' };
    expect(await run({ text: 'hello' })).toEqual({ status: 202, delivered: true });
    answer = { status: 200, body: 'Microsoft Teams endpoint returned HTTP error 429 with ContextId tcid=0' };
    expect(await failure(run({ text: 'hello' }))).toMatchObject({ type: 'delivery_failed', retryable: true });
    answer = { status: 400, body: 'Bad payload received by generic incoming webhook.' };
    expect(await failure(run({ text: 'hello' }))).toMatchObject({ type: 'http_status', retryable: false });
    answer = { status: 200, body: '1' };
  });

  it('refuses a webhook URL off the connection origin, and never shows it', async () => {
    expect(await failure(run({ text: 'x' }, context('https://attacker.example/hook')))).toMatchObject({ type: 'connection_invalid' });
    expect(await failure(run({ text: 'x' }, context('not a url')))).toMatchObject({ type: 'connection_invalid' });
    const shown = await action.preview(v.parse(action.input, { text: 'x' }), context());
    expect(JSON.stringify(shown)).not.toContain('IncomingWebhook');
  });
});
