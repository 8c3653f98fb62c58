/**
 * What a JSON body must be before a route reads it (adapters/http/validation.ts, and
 * `peerJsonBody` in adapters/http/account-section.ts): a JSON array where the schema
 * describes an object is 422 `type_error` at `body`, even when every field is optional
 * (valibot reads an array as an object with keys "0", "1"...); a media type other than
 * JSON is 415 on an API route and 400 `peer_bad_request` on a peer route (SPEC.md "Peer
 * endpoints": "anything else 400"). The route's handler never runs for a refused body.
 */
import { Hono } from 'hono';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { peerJsonBody } from '../../../adapters/http/account-section.ts';
import { createErrorHandler } from '../../../adapters/http/errors.ts';
import { requireJson, validate } from '../../../adapters/http/validation.ts';

/** An app with one route validating its body against `schema`; `reached` counts the handler's runs. */
function appFor(schema: v.GenericSchema) {
  const state = { reached: 0 };
  const app = new Hono();
  app.onError(createErrorHandler(() => {}));
  app.post('/body', requireJson, validate('json', schema), (c) => {
    state.reached++;
    return c.json({ took: c.req.valid('json') as unknown });
  });
  app.post('/peer', async (c) => {
    const took = await peerJsonBody(c.req);
    state.reached++;
    return c.json({ took });
  });
  return { app, state };
}

const send = (app: Hono, path: string, body: string | Blob, contentType: string | null) =>
  app.request(path, { method: 'POST', body, headers: contentType === null ? {} : { 'content-type': contentType } });

const arrayRefusal = { detail: [{ loc: ['body'], msg: 'body must be a JSON object, not an array', type: 'type_error' }] };

const optionalOnly = { ids: v.optional(v.array(v.string())), dry_run: v.optional(v.boolean(), false) };

/** Object schemas a route may declare, each of which valibot alone would take an array for. */
const objectSchemas: [string, v.GenericSchema][] = [
  ['an object', v.object(optionalOnly)],
  ['a loose object', v.looseObject(optionalOnly)],
  ['an object with rest', v.objectWithRest(optionalOnly, v.unknown())],
  [
    'a piped object',
    v.pipe(
      v.object(optionalOnly),
      v.transform((b) => ({ ...b, piped: true })),
    ),
  ],
  ['a record', v.record(v.string(), v.unknown())],
  ['an optional object', v.optional(v.object(optionalOnly), {})],
  ['a union of objects', v.union([v.object({ all: v.literal(true) }), v.object(optionalOnly)])],
  ['a variant', v.variant('kind', [v.object({ kind: v.optional(v.literal('a')) }), v.object({ kind: v.literal('b') })])],
];

describe('a JSON array where an object is due', () => {
  it.each(objectSchemas)('is 422 at body for %s schema, and the route never runs', async (_, schema) => {
    const { app, state } = appFor(schema);
    for (const body of ['[]', '[{}]', '["x"]', '[{"ids": ["a"]}]']) {
      const res = await send(app, '/body', body, 'application/json');
      expect(res.status, body).toBe(422);
      expect(await res.json(), body).toEqual(arrayRefusal);
    }
    expect(state.reached).toBe(0);
    // The same schema still takes an object.
    expect((await send(app, '/body', '{}', 'application/json')).status).toBe(200);
  });

  it('is taken where the schema takes an array (a one-or-many body)', async () => {
    const item = v.object({ id: v.string() });
    for (const schema of [v.array(item), v.union([v.array(item), item])]) {
      const { app } = appFor(schema);
      const res = await send(app, '/body', '[{"id": "a"}]', 'application/json');
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ took: [{ id: 'a' }] });
    }
  });
});

describe('the media type of an API body', () => {
  it('is 415 unless it is JSON exactly, parameters aside, so the schema never checks a stand-in {}', async () => {
    const { app, state } = appFor(v.object(optionalOnly));
    for (const type of ['text/plain', 'application/json-seq', 'application/json.x', 'application/jsonl', 'application/x-www-form-urlencoded']) {
      const res = await send(app, '/body', '[]', type);
      expect(res.status, type).toBe(415);
      expect(((await res.json()) as { code: string }).code, type).toBe('unsupported_media_type');
    }
    expect(state.reached).toBe(0);
    for (const type of ['application/json', 'application/json; charset=utf-8', 'APPLICATION/JSON', 'application/merge-patch+json']) {
      expect((await send(app, '/body', '{"ids": ["a"]}', type)).status, type).toBe(200);
    }
  });
});

describe('a peer route body', () => {
  it('is 400 peer_bad_request when it is not sent as JSON, even if its text is JSON', async () => {
    const { app, state } = appFor(v.unknown());
    const text = '{"user": "u", "all": true}';
    for (const [type, body] of [
      ['text/plain', text],
      ['application/x-www-form-urlencoded', text],
      ['application/json-seq', text],
      [null, new Blob([text])],
    ] as const) {
      const res = await send(app, '/peer', body, type);
      expect(res.status, String(type)).toBe(400);
      expect(await res.json(), String(type)).toEqual({ detail: 'body must be application/json', code: 'peer_bad_request', params: {} });
    }
    expect(state.reached).toBe(0);
    const res = await send(app, '/peer', text, 'application/json; charset=utf-8');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ took: { user: 'u', all: true } });
  });

  it('is 400 peer_bad_request when its JSON does not parse', async () => {
    const { app } = appFor(v.unknown());
    const res = await send(app, '/peer', '{"user":', 'application/json');
    expect(res.status).toBe(400);
    expect(((await res.json()) as { code: string }).code).toBe('peer_bad_request');
  });
});
