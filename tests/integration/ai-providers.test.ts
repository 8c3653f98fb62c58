/**
 * The three AI provider adapters (adapters/ai/providers.ts; SPEC.md "AI settings", "Audit
 * rules for AI") against a local stand-in that speaks each provider's documented wire
 * format (tests/support/ai-provider-server.ts), through the guarded outbound edge as in
 * production: the stand-in's host allowed as a suite peer host, every other private
 * address refused. Every outcome of the port is driven for every provider, and the
 * stand-in's streamed answers are read by the SDK's own streaming call.
 */
import { Output, jsonSchema, streamText } from 'ai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ProviderOutcome, ProviderRequest, ProviderTarget } from '../../adapters/ai/provider.ts';
import { aiProviderPort, languageModel } from '../../adapters/ai/providers.ts';
import { createGuardedFetch, type GuardedFetch } from '../../adapters/outbound/guarded-fetch.ts';
import type { AiProvider } from '../../domain/ai/settings.ts';
import { startAiProviderServer, type AiProviderServer } from '../support/ai-provider-server.ts';

const KEY = 'sk-test-ai-providers-5d1c9e';

const SCHEMA = {
  type: 'object',
  properties: { summary: { type: 'string' }, severity: { type: 'string', enum: ['low', 'high'] } },
  required: ['summary', 'severity'],
  additionalProperties: false,
};

const REQUEST: ProviderRequest = {
  system: 'You triage security alerts. Answer with JSON only.',
  prompt: 'Alert: 40 failed SSH logins from one address in a minute.',
  schema: SCHEMA,
  schema_name: 'triage',
  max_tokens: 321,
  temperature: 0.25,
  timeout_ms: 5_000,
};

const ANSWER = { summary: 'SSH brute force from one source', severity: 'high' };

type Case = {
  provider: AiProvider;
  model: string;
  apiKey: string | null;
  /** The configured base_url for a stand-in at `url`. */
  base: (url: string) => string;
  path: string;
  /** The documented auth headers, as received. */
  auth: (headers: Record<string, unknown>) => void;
  /** Model, max tokens, temperature, system, prompt and schema in the documented places. */
  body: (body: any) => void;
};

const cases: Case[] = [
  {
    provider: 'compatible_api',
    model: 'gpt-4o-mini',
    apiKey: KEY,
    base: (url) => `${url}/v1`,
    path: '/v1/chat/completions',
    auth: (headers) => expect(headers.authorization).toBe(`Bearer ${KEY}`),
    body: (body) =>
      expect(body).toMatchObject({
        model: 'gpt-4o-mini',
        max_tokens: 321,
        temperature: 0.25,
        messages: [
          { role: 'system', content: REQUEST.system },
          { role: 'user', content: REQUEST.prompt },
        ],
        response_format: { type: 'json_schema', json_schema: { name: 'triage', schema: SCHEMA, strict: false } },
      }),
  },
  {
    provider: 'vendor_a',
    model: 'claude-sonnet-4-5',
    apiKey: KEY,
    base: (url) => `${url}/v1`,
    path: '/v1/messages',
    auth: (headers) => {
      expect(headers['x-api-key']).toBe(KEY);
      expect(headers['anthropic-version']).toBe('2023-06-01');
      expect(headers.authorization).toBeUndefined();
    },
    body: (body) =>
      expect(body).toMatchObject({
        model: 'claude-sonnet-4-5',
        max_tokens: 321,
        temperature: 0.25,
        system: [{ type: 'text', text: REQUEST.system }],
        messages: [{ role: 'user', content: [{ type: 'text', text: REQUEST.prompt }] }],
        output_config: { format: { type: 'json_schema', schema: SCHEMA } },
      }),
  },
  {
    provider: 'local_daemon',
    model: 'llama3.2',
    apiKey: null,
    base: (url) => url,
    path: '/api/chat',
    auth: (headers) => {
      expect(headers.authorization).toBeUndefined();
      expect(headers['x-api-key']).toBeUndefined();
    },
    body: (body) =>
      expect(body).toMatchObject({
        model: 'llama3.2',
        stream: false,
        messages: [
          { role: 'system', content: REQUEST.system },
          { role: 'user', content: REQUEST.prompt },
        ],
        format: SCHEMA,
        options: { num_predict: 321, temperature: 0.25 },
      }),
  },
];

let ai: AiProviderServer;
let outbound: GuardedFetch;
/** A guarded fetch as in production with no peer hosts: loopback is refused. */
let strict: GuardedFetch;

beforeAll(async () => {
  ai = await startAiProviderServer({ apiKey: KEY });
  outbound = createGuardedFetch({ allowPrivate: false, allowedHosts: [ai.host], exchangeOrigin: null });
  strict = createGuardedFetch({ allowPrivate: false, allowedHosts: [], exchangeOrigin: null });
});

afterAll(async () => {
  await ai.close();
  await outbound.close();
  await strict.close();
});

beforeEach(() => {
  ai.reset();
});

const noSecret = (outcome: ProviderOutcome) => expect(JSON.stringify(outcome)).not.toContain(KEY);

describe.each(cases)('$provider', (c) => {
  const target = (overrides: Partial<ProviderTarget> = {}): ProviderTarget => ({
    provider: c.provider,
    base_url: c.base(ai.url),
    model: c.model,
    api_key: c.apiKey,
    ...overrides,
  });

  it('answers JSON: parsed output, raw text and usage, from one request in the documented place and shape', async () => {
    ai.respondWith({ kind: 'json', value: ANSWER, usage: { input: 57, output: 19 } });

    const outcome = await aiProviderPort(target(), REQUEST, outbound);

    expect(outcome).toEqual({
      kind: 'answered',
      output: ANSWER,
      text: JSON.stringify(ANSWER),
      usage: { prompt_tokens: 57, completion_tokens: 19, total_tokens: 76 },
    });
    expect(ai.requests).toHaveLength(1);
    const [request] = ai.requests;
    expect(request?.method).toBe('POST');
    expect(request?.path).toBe(c.path);
    c.auth(request?.headers ?? {});
    c.body(request?.body);
  });

  it('reports text that is not JSON as output_invalid, with the text and usage', async () => {
    ai.respondWith({ kind: 'text', text: 'I think this is a brute force attempt.', usage: { input: 40, output: 9 } });

    const outcome = await aiProviderPort(target(), REQUEST, outbound);

    expect(outcome).toEqual({
      kind: 'output_invalid',
      text: 'I think this is a brute force attempt.',
      usage: { prompt_tokens: 40, completion_tokens: 9, total_tokens: 49 },
    });
  });

  it.each([
    [401, 'the key was refused'],
    [429, 'rate limit reached for requests'],
    [500, 'the server had an error while processing your request'],
  ])('reports HTTP %i with the vendor error body as provider_error with the status and message', async (status, message) => {
    ai.respondWith({ kind: 'error', status, message });

    const outcome = await aiProviderPort(target(), REQUEST, outbound);

    expect(outcome).toEqual({ kind: 'provider_error', status, message, usage: { prompt_tokens: null, completion_tokens: null, total_tokens: null } });
    expect(ai.requests).toHaveLength(1);
  });

  it('reports an error status with a body that is not JSON as provider_error with the body text, cut to 500 characters', async () => {
    ai.respondWith({ kind: 'raw', status: 502, body: `<html>bad gateway ${'x'.repeat(600)}</html>`, content_type: 'text/html' });

    const outcome = await aiProviderPort(target(), REQUEST, outbound);

    expect(outcome.kind).toBe('provider_error');
    if (outcome.kind !== 'provider_error') return;
    expect(outcome.status).toBe(502);
    expect(outcome.message.startsWith('<html>bad gateway')).toBe(true);
    expect(outcome.message).toHaveLength(500);
  });

  it('reports a success status with a body that is not the wire format as request_failed naming the host', async () => {
    ai.respondWith({ kind: 'raw', status: 200, body: '<html>captive portal</html>', content_type: 'text/html' });

    const outcome = await aiProviderPort(target(), REQUEST, outbound);

    expect(outcome.kind).toBe('request_failed');
    if (outcome.kind === 'request_failed') expect(outcome.message).toContain(ai.host);
  });

  it('reports an answer slower than timeout_ms as timeout', async () => {
    ai.respondWith({ kind: 'json', value: ANSWER, delay_ms: 2_000 });

    const outcome = await aiProviderPort(target(), { ...REQUEST, timeout_ms: 300 }, outbound);

    expect(outcome.kind).toBe('timeout');
    if (outcome.kind === 'timeout') expect(outcome.message).toContain(ai.host);
  });

  it('reports a destroyed connection as request_failed naming the host, never the key', async () => {
    ai.respondWith({ kind: 'destroy' });

    const outcome = await aiProviderPort(target(), REQUEST, outbound);

    expect(outcome.kind).toBe('request_failed');
    if (outcome.kind === 'request_failed') expect(outcome.message).toContain(ai.host);
    noSecret(outcome);
    expect(ai.requests).toHaveLength(1);
  });

  it.each([
    ['an IP literal, refused before dispatch', (url: string) => url],
    ['a name resolving to loopback, refused at connect', (url: string) => url.replace('127.0.0.1', 'localhost')],
  ])('reports a target the guarded fetch refuses (%s) as request_failed, and nothing reaches the server', async (_label, address) => {
    ai.respondWith({ kind: 'json', value: ANSWER });

    const outcome = await aiProviderPort(target({ base_url: c.base(address(ai.url)) }), REQUEST, strict);

    expect(outcome.kind).toBe('request_failed');
    if (outcome.kind === 'request_failed') expect(outcome.message).toMatch(/refused/);
    noSecret(outcome);
    expect(ai.requests).toHaveLength(0);
  });

  it("streams: the SDK's streaming call reads the stand-in's streamed structured answer and usage", async () => {
    ai.respondWith({ kind: 'json', value: ANSWER, usage: { input: 31, output: 14 } });

    const result = streamText({
      model: languageModel(target(), outbound),
      system: REQUEST.system,
      prompt: REQUEST.prompt,
      output: Output.object({ schema: jsonSchema(SCHEMA as Parameters<typeof jsonSchema>[0]) }),
      maxOutputTokens: 100,
      maxRetries: 0,
      onError: () => {},
    });

    expect(await result.output).toEqual(ANSWER);
    expect(await result.text).toBe(JSON.stringify(ANSWER));
    const usage = await result.usage;
    expect([usage.inputTokens, usage.outputTokens, usage.totalTokens]).toEqual([31, 14, 45]);
    expect(ai.requests[0]?.path).toBe(c.path);
    expect(ai.requests[0]?.body?.stream).toBe(true);
  });
});

describe.each(cases.filter((c) => c.apiKey !== null))('$provider with a key', (c) => {
  it('reports a wrong key as provider_error 401 with the vendor message, never quoting the key', async () => {
    const outcome = await aiProviderPort({ provider: c.provider, base_url: c.base(ai.url), model: c.model, api_key: 'sk-wrong-key' }, REQUEST, outbound);

    expect(outcome).toMatchObject({ kind: 'provider_error', status: 401 });
    expect(JSON.stringify(outcome)).not.toContain('sk-wrong-key');
  });
});

describe('provider specifics', () => {
  it('compatible_api: usage not reported becomes nulls', async () => {
    ai.respondWith({ kind: 'json', value: ANSWER, usage: null });

    const outcome = await aiProviderPort({ provider: 'compatible_api', base_url: `${ai.url}/v1`, model: 'm', api_key: KEY }, REQUEST, outbound);

    expect(outcome).toMatchObject({ kind: 'answered', usage: { prompt_tokens: null, completion_tokens: null, total_tokens: null } });
  });

  it('compatible_api: an error body under HTTP 200 is a provider_error', async () => {
    ai.respondWith({ kind: 'raw', status: 200, body: JSON.stringify({ error: { message: 'model overloaded', type: 'server_error' } }) });

    const outcome = await aiProviderPort({ provider: 'compatible_api', base_url: `${ai.url}/v1`, model: 'm', api_key: KEY }, REQUEST, outbound);

    expect(outcome).toMatchObject({ kind: 'provider_error', status: 200, message: 'model overloaded' });
  });

  it('vendor_a: a model without native structured output gets the schema as the forced `json` tool, and its input is the answer', async () => {
    ai.respondWith({ kind: 'json', value: ANSWER });

    const outcome = await aiProviderPort({ provider: 'vendor_a', base_url: `${ai.url}/v1`, model: 'claude-3-haiku-20240307', api_key: KEY }, REQUEST, outbound);

    expect(outcome).toMatchObject({ kind: 'answered', output: ANSWER });
    const body = ai.requests[0]?.body;
    expect(body.output_config).toBeUndefined();
    expect(body.tools).toEqual([expect.objectContaining({ name: 'json', input_schema: SCHEMA })]);
    expect(body.tool_choice).toMatchObject({ type: 'any' });
  });

  it('vendor_a: no key sends no x-api-key (and never the environment one)', async () => {
    const before = process.env.ANTHROPIC_API_KEY;
    process.env.ANTHROPIC_API_KEY = 'sk-from-environment';
    try {
      const outcome = await aiProviderPort({ provider: 'vendor_a', base_url: `${ai.url}/v1`, model: 'claude-sonnet-4-5', api_key: null }, REQUEST, outbound);
      expect(outcome).toMatchObject({ kind: 'provider_error', status: 401, message: 'invalid x-api-key' });
      expect(ai.requests[0]?.headers['x-api-key']).toBeUndefined();
    } finally {
      if (before === undefined) delete process.env.ANTHROPIC_API_KEY;
      else process.env.ANTHROPIC_API_KEY = before;
    }
  });

  it('local_daemon: a base_url already ending in /api and a configured key reach /api/chat with a Bearer header', async () => {
    ai.respondWith({ kind: 'json', value: ANSWER });

    const outcome = await aiProviderPort({ provider: 'local_daemon', base_url: `${ai.url}/api/`, model: 'llama3.2', api_key: KEY }, REQUEST, outbound);

    expect(outcome.kind).toBe('answered');
    expect(ai.requests[0]?.path).toBe('/api/chat');
    expect(ai.requests[0]?.headers.authorization).toBe(`Bearer ${KEY}`);
  });

  it('local_daemon: an Ollama error body ({error: "..."}) gives its text', async () => {
    ai.respondWith({ kind: 'error', status: 404, message: 'model "llama9" not found, try pulling it first' });

    const outcome = await aiProviderPort({ provider: 'local_daemon', base_url: ai.url, model: 'llama9', api_key: null }, REQUEST, outbound);

    expect(outcome).toMatchObject({ kind: 'provider_error', status: 404, message: 'model "llama9" not found, try pulling it first' });
  });

  it('a base_url that is not a URL is request_failed without quoting it', async () => {
    const outcome = await aiProviderPort({ provider: 'compatible_api', base_url: `not a url ${KEY}`, model: 'm', api_key: KEY }, REQUEST, outbound);

    expect(outcome.kind).toBe('request_failed');
    noSecret(outcome);
  });

  it('a refused connection is request_failed naming the host', async () => {
    const closed = await startAiProviderServer();
    const url = closed.url;
    await closed.close();
    const local = createGuardedFetch({ allowPrivate: false, allowedHosts: [new URL(url).host], exchangeOrigin: null });
    try {
      const outcome = await aiProviderPort({ provider: 'local_daemon', base_url: url, model: 'llama3.2', api_key: null }, REQUEST, local);
      expect(outcome).toEqual({ kind: 'request_failed', message: `request to ${new URL(url).host} failed (ECONNREFUSED)` });
    } finally {
      await local.close();
    }
  });
});
