/**
 * A local stand-in for the chat_a product (Slack) on 127.0.0.1:
 * - the Web API method `POST /api/chat.postMessage`, checked as Slack documents it: a
 *   `Bearer` bot token, a JSON body (`application/json; charset=utf-8`) with `channel` and
 *   `text`, and Block Kit limits on `blocks` (at most 50; section text at most 3000;
 *   button `action_id` and `value` at most 255 and 2000 characters). It answers HTTP 200
 *   `{ok: true, channel, ts, message}`, or `{ok: false, error}` with Slack's error codes
 *   (`invalid_auth`, `channel_not_found` for `unknownChannel`, `invalid_blocks`), and 429
 *   `ratelimited` with `Retry-After` for the channel `rateLimitedChannel`;
 * - `POST /api/auth.test`, which checks the `Bearer` bot token and answers HTTP 200
 *   `{ok: true, url, team, user, team_id, user_id, bot_id}`, or `{ok: false, error:
 *   "invalid_auth"}` (Slack's read-only "who am I" method, which the connection probe calls);
 * - `response_url`s below `/actions/`, which record what the service replied to an
 *   interaction (the chat product answers them `ok`).
 */
import { startReceiver, type Received } from './receiver.ts';

const json = (res: import('node:http').ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) =>
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers }).end(JSON.stringify(body));

type Block = { type: string; text?: { text?: string }; elements?: { type: string; action_id?: string; value?: string }[] };

function blockProblems(blocks: unknown): boolean {
  if (blocks === undefined) return false;
  if (!Array.isArray(blocks) || blocks.length > 50) return true;
  return (blocks as Block[]).some(
    (b) =>
      (b.type === 'section' && (b.text?.text ?? '').length > 3000) ||
      (b.elements ?? []).some((e) => e.type === 'button' && ((e.action_id ?? '').length > 255 || (e.value ?? '').length > 2000)),
  );
}

export async function startChatAServer(botToken: string, options: { unknownChannel: string; rateLimitedChannel: string }) {
  let ts = 1_700_000_000;
  const server = await startReceiver((r: Received, res) => {
    if (r.method === 'POST' && r.path.startsWith('/actions/')) return res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    if (r.method === 'POST' && r.path === '/api/auth.test') {
      if (r.headers.authorization !== `Bearer ${botToken}`) return json(res, 200, { ok: false, error: 'invalid_auth' });
      return json(res, 200, {
        ok: true,
        url: 'https://svc-test.slack.com/',
        team: 'svc test',
        user: 'svc-bot',
        team_id: 'T0SVCTEST',
        user_id: 'U0SVCBOT',
        bot_id: 'B111',
      });
    }
    if (r.method !== 'POST' || r.path !== '/api/chat.postMessage') return json(res, 404, { ok: false, error: 'unknown_method' });
    if (r.headers.authorization !== `Bearer ${botToken}`) return json(res, 200, { ok: false, error: 'invalid_auth' });
    if (!/^application\/json/.test(String(r.headers['content-type']))) return json(res, 200, { ok: false, error: 'invalid_form_data' });
    const body = JSON.parse(r.body) as { channel?: unknown; text?: unknown; blocks?: unknown };
    if (typeof body.channel !== 'string') return json(res, 200, { ok: false, error: 'channel_not_found' });
    if (typeof body.text !== 'string' && body.blocks === undefined) return json(res, 200, { ok: false, error: 'no_text' });
    if (body.channel === options.rateLimitedChannel) return json(res, 429, { ok: false, error: 'ratelimited' }, { 'retry-after': '1' });
    if (body.channel === options.unknownChannel) return json(res, 200, { ok: false, error: 'channel_not_found' });
    if (blockProblems(body.blocks)) return json(res, 200, { ok: false, error: 'invalid_blocks' });
    ts += 1;
    return json(res, 200, {
      ok: true,
      channel: body.channel,
      ts: `${ts}.000100`,
      message: { type: 'message', text: body.text, bot_id: 'B111', ts: `${ts}.000100` },
    });
  });
  return {
    ...server,
    /** The messages posted through the Web API, parsed. */
    posted: () => server.received.filter((r) => r.path === '/api/chat.postMessage').map((r) => JSON.parse(r.body) as Record<string, any>),
    /** The replies sent to `response_url`s, parsed. */
    replies: () => server.received.filter((r) => r.path.startsWith('/actions/')).map((r) => JSON.parse(r.body) as Record<string, any>),
  };
}
