/**
 * A local stand-in for the three AI provider kinds on 127.0.0.1 (SPEC.md "AI settings"),
 * speaking each one's documented request and response bodies, plain and streamed:
 * - OpenAI-style chat completions, `POST .../chat/completions`: checks `Authorization:
 *   Bearer <key>` (when the server has a key), `model` and `messages`. It answers a
 *   `chat.completion` object (`choices[0].message.content`, `finish_reason`, `usage`
 *   with `prompt_tokens`, `completion_tokens`, `total_tokens`), or with `stream: true`
 *   server-sent events `data: <chat.completion.chunk>` (a role delta, content deltas, a
 *   chunk with `finish_reason`, a usage chunk with empty `choices` when
 *   `stream_options.include_usage`) ending `data: [DONE]`. Errors:
 *   `{error: {message, type, param, code}}`.
 * - Anthropic-style messages, `POST .../messages`: checks `x-api-key` (when the server
 *   has a key), `anthropic-version`, `model`, `max_tokens` and `messages`. It answers a
 *   `message` object (`content` blocks, `stop_reason`, `usage` with `input_tokens` and
 *   `output_tokens`), or with `stream: true` the event stream `message_start`,
 *   `content_block_start`, `ping`, `content_block_delta` (`text_delta` or
 *   `input_json_delta`), `content_block_stop`, `message_delta` (stop reason and output
 *   usage), `message_stop`. A JSON answer to a request that forces the tool named `json`
 *   (no `output_config.format`) comes back as that tool's `tool_use` block, as the API
 *   does. Errors: `{type: 'error', error: {type, message}}`.
 * - Ollama-style `POST /api/chat`: checks `model` and `messages`. It answers one object
 *   (`message.content`, `done: true`, `done_reason`, `prompt_eval_count`, `eval_count`,
 *   durations in ns) when `stream` is false, else newline-delimited JSON objects, the
 *   last with `done: true` and the counts. Errors: `{error: "<text>"}`.
 *
 * A test scripts the next answers with `respondWith` (first in, first out; with the queue
 * empty the stand-in answers 500) and reads every request in `requests`.
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Token counts the stand-in reports; null: the answer carries no usage at all. */
export type ScriptedUsage = { input: number; output: number } | null;

/**
 * One scripted answer. Every kind but `destroy` may wait `delay_ms` before the status
 * line is sent (a slow provider).
 * - `json`: the model answers with `value` serialized (as text, or as the `json` tool's input).
 * - `text`: the model answers with this text as is (e.g. not JSON).
 * - `error`: HTTP `status` with the provider's error body carrying `message`.
 * - `raw`: HTTP `status` with this body as is (a body that is not the provider's shape).
 * - `destroy`: the connection is destroyed once the request is read, with no answer.
 */
export type ScriptedAnswer = (
  | { kind: 'json'; value: unknown; usage?: ScriptedUsage }
  | { kind: 'text'; text: string; usage?: ScriptedUsage }
  | { kind: 'error'; status: number; message: string }
  | { kind: 'raw'; status: number; body: string; content_type?: string }
  | { kind: 'destroy' }
) & { delay_ms?: number };

/** A request as received: the body parsed as JSON, or the raw text when it is not JSON. */
export type RecordedRequest = { method: string; path: string; headers: IncomingHttpHeaders; body: any };

export type AiProviderServer = {
  /** `http://127.0.0.1:<port>`, no trailing slash. */
  url: string;
  /** `127.0.0.1:<port>`, e.g. for a guarded fetch's allowed hosts. */
  host: string;
  requests: RecordedRequest[];
  /** Queues the next answers, first in, first out. */
  respondWith: (...answers: ScriptedAnswer[]) => void;
  /** Forgets the recorded requests and the answers still queued. */
  reset: () => void;
  close: () => Promise<void>;
};

type Wire = 'openai' | 'anthropic' | 'ollama';

const DEFAULT_USAGE = { input: 12, output: 8 };

/**
 * Starts the stand-in on 127.0.0.1 with a free port. With `apiKey`, the OpenAI-style and
 * Anthropic-style endpoints refuse any other key with 401 and their error body.
 * @example const ai = await startAiProviderServer({ apiKey: 'sk-test' }); ai.respondWith({ kind: 'json', value: { ok: true } });
 */
export async function startAiProviderServer(options: { apiKey?: string } = {}): Promise<AiProviderServer> {
  const requests: RecordedRequest[] = [];
  const queue: ScriptedAnswer[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: any = text;
      try {
        body = JSON.parse(text);
      } catch {}
      const recorded = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body };
      requests.push(recorded);
      const wire = wireOf(recorded.path);
      if (wire === null || recorded.method !== 'POST') return send(res, 404, 'application/json', JSON.stringify({ error: 'not found' }));
      const refusal = checkRequest(wire, recorded, options.apiKey);
      if (refusal) return send(res, refusal.status, 'application/json', errorBody(wire, refusal.status, refusal.message));
      const answer = queue.shift() ?? { kind: 'error', status: 500, message: 'the stand-in has no scripted answer' };
      if (answer.kind === 'destroy') return req.socket.destroy();
      const go = () => answerWith(wire, recorded.body, answer, res);
      if (!answer.delay_ms) return go();
      const timer = setTimeout(() => {
        timers.delete(timer);
        go();
      }, answer.delay_ms);
      timers.add(timer);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    host: `127.0.0.1:${port}`,
    requests,
    respondWith: (...answers) => {
      queue.push(...answers);
    },
    reset: () => {
      requests.length = 0;
      queue.length = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of timers) clearTimeout(timer);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function wireOf(path: string): Wire | null {
  const pathname = path.split('?')[0] ?? '';
  if (pathname.endsWith('/chat/completions')) return 'openai';
  if (pathname.endsWith('/messages')) return 'anthropic';
  if (pathname === '/api/chat') return 'ollama';
  return null;
}

/** What each API refuses before answering: a wrong key, a missing required field. */
function checkRequest(wire: Wire, r: RecordedRequest, apiKey: string | undefined): { status: number; message: string } | null {
  const body = r.body;
  if (wire === 'openai' && apiKey !== undefined && r.headers.authorization !== `Bearer ${apiKey}`) {
    return { status: 401, message: 'Incorrect API key provided.' };
  }
  if (wire === 'anthropic') {
    if (apiKey !== undefined && r.headers['x-api-key'] !== apiKey) return { status: 401, message: 'invalid x-api-key' };
    if (!r.headers['anthropic-version']) return { status: 400, message: 'anthropic-version: header is required' };
    if (typeof body?.max_tokens !== 'number') return { status: 400, message: 'max_tokens: Field required' };
  }
  if (typeof body?.model !== 'string') return { status: 400, message: 'model: Field required' };
  if (!Array.isArray(body?.messages)) return { status: 400, message: 'messages: Field required' };
  return null;
}

function errorBody(wire: Wire, status: number, message: string): string {
  if (wire === 'ollama') return JSON.stringify({ error: message });
  if (wire === 'anthropic') {
    const type =
      status === 401
        ? 'authentication_error'
        : status === 403
          ? 'permission_error'
          : status === 404
            ? 'not_found_error'
            : status === 429
              ? 'rate_limit_error'
              : status === 529
                ? 'overloaded_error'
                : status >= 500
                  ? 'api_error'
                  : 'invalid_request_error';
    return JSON.stringify({ type: 'error', error: { type, message } });
  }
  const [type, code] =
    status === 401
      ? ['invalid_request_error', 'invalid_api_key']
      : status === 429
        ? ['requests', 'rate_limit_exceeded']
        : status >= 500
          ? ['server_error', null]
          : ['invalid_request_error', null];
  return JSON.stringify({ error: { message, type, param: null, code } });
}

function send(res: ServerResponse, status: number, contentType: string, body: string): void {
  if (res.destroyed) return;
  res.writeHead(status, { 'content-type': contentType }).end(body);
}

function answerWith(wire: Wire, request: any, answer: Exclude<ScriptedAnswer, { kind: 'destroy' }>, res: ServerResponse): void {
  if (answer.kind === 'error') {
    send(res, answer.status, 'application/json', errorBody(wire, answer.status, answer.message));
    return;
  }
  if (answer.kind === 'raw') {
    send(res, answer.status, answer.content_type ?? 'application/json', answer.body);
    return;
  }
  const text = answer.kind === 'json' ? JSON.stringify(answer.value) : answer.text;
  const usage = answer.usage === undefined ? DEFAULT_USAGE : answer.usage;
  const stream = request?.stream === true;
  if (wire === 'openai') (stream ? openaiStream : openaiAnswer)(res, request, text, usage);
  else if (wire === 'ollama') (stream ? ollamaStream : ollamaAnswer)(res, request, text, usage);
  else {
    // A JSON answer to a request forcing the `json` tool is that tool's input, as the API does.
    const forced = request?.tool_choice?.type === 'any' || (request?.tool_choice?.type === 'tool' && request.tool_choice.name === 'json');
    const asTool = answer.kind === 'json' && forced && Array.isArray(request.tools) && request.tools.some((t: { name?: unknown }) => t.name === 'json');
    const block: AnthropicBlock = asTool ? { type: 'tool_use', input: answer.value } : { type: 'text', text };
    (stream ? anthropicStream : anthropicAnswer)(res, request, block, usage);
  }
}

/** Splits `text` into a few pieces, as a model streams tokens. */
function pieces(text: string): string[] {
  const size = Math.max(1, Math.ceil(text.length / 4));
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

const CREATED = 1_767_225_600;

function openaiAnswer(res: ServerResponse, request: any, text: string, usage: ScriptedUsage): void {
  send(
    res,
    200,
    'application/json',
    JSON.stringify({
      id: 'chatcmpl-standin1',
      object: 'chat.completion',
      created: CREATED,
      model: request.model,
      choices: [{ index: 0, message: { role: 'assistant', content: text, refusal: null }, logprobs: null, finish_reason: 'stop' }],
      ...(usage === null ? {} : { usage: { prompt_tokens: usage.input, completion_tokens: usage.output, total_tokens: usage.input + usage.output } }),
    }),
  );
}

function openaiStream(res: ServerResponse, request: any, text: string, usage: ScriptedUsage): void {
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
    `data: ${JSON.stringify({ id: 'chatcmpl-standin1', object: 'chat.completion.chunk', created: CREATED, model: request.model, choices, ...extra })}\n\n`;
  const events = [
    chunk([{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }]),
    ...pieces(text).map((piece) => chunk([{ index: 0, delta: { content: piece }, finish_reason: null }])),
    chunk([{ index: 0, delta: {}, finish_reason: 'stop' }]),
    ...(usage !== null && request.stream_options?.include_usage
      ? [chunk([], { usage: { prompt_tokens: usage.input, completion_tokens: usage.output, total_tokens: usage.input + usage.output } })]
      : []),
    'data: [DONE]\n\n',
  ];
  writeStream(res, 'text/event-stream', events);
}

type AnthropicBlock = { type: 'text'; text: string } | { type: 'tool_use'; input: unknown };

function anthropicAnswer(res: ServerResponse, request: any, block: AnthropicBlock, usage: ScriptedUsage): void {
  const content = block.type === 'text' ? [block] : [{ type: 'tool_use', id: 'toolu_standin1', name: 'json', input: block.input }];
  send(
    res,
    200,
    'application/json',
    JSON.stringify({
      id: 'msg_standin1',
      type: 'message',
      role: 'assistant',
      model: request.model,
      content,
      stop_reason: block.type === 'text' ? 'end_turn' : 'tool_use',
      stop_sequence: null,
      usage: { input_tokens: usage?.input ?? 0, output_tokens: usage?.output ?? 0 },
    }),
  );
}

function anthropicStream(res: ServerResponse, request: any, block: AnthropicBlock, usage: ScriptedUsage): void {
  const event = (type: string, data: Record<string, unknown>) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
  const start = block.type === 'text' ? { type: 'text', text: '' } : { type: 'tool_use', id: 'toolu_standin1', name: 'json', input: {} };
  const deltas =
    block.type === 'text'
      ? pieces(block.text).map((text) => ({ type: 'text_delta', text }))
      : pieces(JSON.stringify(block.input)).map((partial_json) => ({ type: 'input_json_delta', partial_json }));
  const events = [
    event('message_start', {
      message: {
        id: 'msg_standin1',
        type: 'message',
        role: 'assistant',
        model: request.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: usage?.input ?? 0, output_tokens: 1 },
      },
    }),
    event('content_block_start', { index: 0, content_block: start }),
    event('ping', {}),
    ...deltas.map((delta) => event('content_block_delta', { index: 0, delta })),
    event('content_block_stop', { index: 0 }),
    event('message_delta', {
      delta: { stop_reason: block.type === 'text' ? 'end_turn' : 'tool_use', stop_sequence: null },
      usage: { output_tokens: usage?.output ?? 0 },
    }),
    event('message_stop', {}),
  ];
  writeStream(res, 'text/event-stream', events);
}

const OLLAMA_CREATED_AT = '2026-01-01T00:00:00.000000Z';

function ollamaCounts(usage: ScriptedUsage) {
  return {
    total_duration: 5_000_000,
    load_duration: 1_000_000,
    ...(usage === null ? {} : { prompt_eval_count: usage.input, prompt_eval_duration: 1_000_000, eval_count: usage.output, eval_duration: 3_000_000 }),
  };
}

function ollamaAnswer(res: ServerResponse, request: any, text: string, usage: ScriptedUsage): void {
  send(
    res,
    200,
    'application/json',
    JSON.stringify({
      model: request.model,
      created_at: OLLAMA_CREATED_AT,
      message: { role: 'assistant', content: text },
      done_reason: 'stop',
      done: true,
      ...ollamaCounts(usage),
    }),
  );
}

function ollamaStream(res: ServerResponse, request: any, text: string, usage: ScriptedUsage): void {
  const line = (data: Record<string, unknown>) => `${JSON.stringify({ model: request.model, created_at: OLLAMA_CREATED_AT, ...data })}\n`;
  const events = [
    ...pieces(text).map((content) => line({ message: { role: 'assistant', content }, done: false })),
    line({ message: { role: 'assistant', content: '' }, done_reason: 'stop', done: true, ...ollamaCounts(usage) }),
  ];
  writeStream(res, 'application/x-ndjson', events);
}

/** Writes the events one by one, each in its own write, as a streaming server flushes them. */
function writeStream(res: ServerResponse, contentType: string, events: string[]): void {
  if (res.destroyed) return;
  res.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-cache' });
  for (const e of events) res.write(e);
  res.end();
}
