/**
 * The request body limit read straight from Node's message (adapters/http/request-body.ts),
 * on a real @hono/node-server listener on loopback: the bytes every reader sees, 413 with
 * and without a declared length, a body the client cuts short, and the same limit when
 * the app is called without Node (`app.request`).
 */
import { connect } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { Hono } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bodyUpTo } from '../../adapters/http/request-body.ts';

const maxBytes = 64;
let reached = 0;

function app(): Hono {
  const api = new Hono();
  api.use('*', bodyUpTo(maxBytes));
  api.onError((error, c) => c.json({ error: error.message }, error instanceof HTTPException ? error.status : 500));
  api.post('/echo', async (c) => {
    reached++;
    const bytes = new Uint8Array(await c.req.arrayBuffer());
    return c.json({
      bytes: [...bytes],
      text: await c.req.text(),
      // What a route handing the fetch Request on (an MCP transport) would read.
      raw: c.req.query('raw') === undefined ? null : [...new Uint8Array(await c.req.raw.arrayBuffer())],
    });
  });
  api.get('/ping', (c) => c.json({ ok: true }));
  return api;
}

let server: ServerType;
let origin: string;

beforeAll(async () => {
  await new Promise<void>((resolve) => {
    server = serve({ fetch: app().fetch, port: 0, hostname: '127.0.0.1' }, (info) => {
      origin = `http://127.0.0.1:${info.port}`;
      resolve();
    });
  });
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const post = (body: NonNullable<RequestInit['body']>, init: RequestInit = {}, path = '/echo') => fetch(`${origin}${path}`, { method: 'POST', body, ...init });

/** A body of `count` chunks of `chunk`, sent without a length (chunked transfer encoding). */
function postChunked(count: number, chunk: string): Promise<Response> {
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (let i = 0; i < count; i++) controller.enqueue(new TextEncoder().encode(chunk));
      controller.close();
    },
  });
  return post(body, { duplex: 'half' } as RequestInit);
}

describe('bodyUpTo on a Node listener', () => {
  it('hands every reader the bytes sent: arrayBuffer exactly, text decoded without the BOM, and the fetch Request too', async () => {
    const sent = [0xef, 0xbb, 0xbf, 0x68, 0x69, 0xff, 0x00];
    const res = await post(new Uint8Array(sent), {}, '/echo?raw');
    expect(res.status).toBe(200);
    const body = (await res.json()) as { bytes: number[]; text: string; raw: number[] };
    expect(body.bytes).toEqual(sent);
    expect(body.raw).toEqual(sent);
    expect(body.text).toBe('hi\uFFFD\u0000');
  });

  it('takes a body of exactly the limit and a chunked one under it', async () => {
    expect((await post('a'.repeat(maxBytes))).status).toBe(200);
    const res = await postChunked(4, 'b'.repeat(10));
    expect(res.status).toBe(200);
    expect(((await res.json()) as { text: string }).text).toBe('b'.repeat(40));
  });

  it('answers 413 past the limit, declared or chunked, before the route runs', async () => {
    const before = reached;
    expect((await post('a'.repeat(maxBytes + 1))).status).toBe(413);
    const res = await postChunked(40, 'c'.repeat(16));
    expect(res.status).toBe(413);
    expect(((await res.json()) as { error: string }).error).toBe(`request body exceeds ${maxBytes} bytes`);
    expect(reached).toBe(before);
  });

  it('leaves the route unreached when the client cuts the body short, and keeps serving', async () => {
    const before = reached;
    const port = Number(new URL(origin).port);
    await new Promise<void>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.write('POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 50\r\n\r\nonly part');
        setTimeout(() => socket.destroy(), 50);
      });
      socket.on('close', () => resolve());
      socket.on('error', reject);
    });
    const ping = await fetch(`${origin}/ping`);
    expect(ping.status).toBe(200);
    expect(reached).toBe(before);
  });
});

describe('bodyUpTo without Node (app.request)', () => {
  it('holds the body to the same limit and hands it over', async () => {
    const api = app();
    expect((await api.request('/echo', { method: 'POST', body: 'a'.repeat(maxBytes + 1) })).status).toBe(413);
    const res = await api.request('/echo', { method: 'POST', body: 'fine' });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { text: string }).text).toBe('fine');
  });
});
