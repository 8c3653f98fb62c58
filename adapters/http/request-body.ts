/**
 * The request body limit (SVC_MAX_BODY_BYTES, CONTRACTS.md; 413 `payload_too_large` in the
 * spec's error shape beyond it), reading the body once into memory.
 *
 * Served by @hono/node-server, the body is read straight from Node's `IncomingMessage`
 * and handed to Hono's body cache (`c.req.text()`, `json()`, `arrayBuffer()` read it from
 * there). Hono's own `bodyLimit` reads through `c.req.raw.body`, which makes the adapter
 * build a full fetch `Request` (an `AbortController`, a web stream over the socket, an
 * undici `Request`) for every request, GETs included: about a tenth of the service's
 * thread under intake load (bench/alert-intake.ts). The bytes are also left on the
 * message as `rawBody`, where the adapter takes a body from if a route still asks for
 * `c.req.raw` (an MCP transport, say). Called any other way (`app.request` in a test),
 * Hono's `bodyLimit` does the job.
 */
import { IncomingMessage } from 'node:http';
import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { HTTPException } from 'hono/http-exception';

/** Holds a request's body to `maxBytes` (413 beyond, whether or not a length is declared); a body cut short by the client is 400. */
export function bodyUpTo(maxBytes: number): MiddlewareHandler {
  const tooLarge: () => never = () => {
    throw new HTTPException(413, { message: `request body exceeds ${maxBytes} bytes` });
  };
  const fallback = bodyLimit({ maxSize: maxBytes, onError: tooLarge });
  return async (c, next) => {
    const incoming = nodeMessage(c);
    if (incoming === null) return fallback(c, next);
    if (c.req.method === 'GET' || c.req.method === 'HEAD') return next();
    const declared = incoming.headers['content-length'];
    if (declared !== undefined && incoming.headers['transfer-encoding'] === undefined && Number(declared) > maxBytes) tooLarge();
    const body = await readAtMost(incoming, maxBytes);
    if (body === 'too_large') tooLarge();
    if (body === 'aborted') throw new HTTPException(400, { message: 'request body ended before it was complete' });
    (incoming as IncomingMessage & { rawBody?: Buffer }).rawBody = body;
    const cache = c.req.bodyCache as { arrayBuffer?: Promise<ArrayBuffer>; text?: Promise<string> };
    cache.arrayBuffer = Promise.resolve(body.buffer.slice(body.byteOffset, body.byteOffset + body.byteLength) as ArrayBuffer);
    // TextDecoder drops a leading BOM as the fetch `Request.text()` does.
    cache.text = Promise.resolve(decoder.decode(body));
    return next();
  };
}

const decoder = new TextDecoder();

function nodeMessage(c: Context): IncomingMessage | null {
  const incoming = (c.env as { incoming?: unknown } | undefined)?.incoming;
  return incoming instanceof IncomingMessage ? incoming : null;
}

/**
 * The whole body, or `too_large` as soon as more than `maxBytes` arrived (the rest is left
 * for the adapter to drain after the answer), or `aborted` when the client went away.
 */
function readAtMost(incoming: IncomingMessage, maxBytes: number): Promise<Buffer | 'too_large' | 'aborted'> {
  if (incoming.readableEnded) return Promise.resolve(Buffer.alloc(0));
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const settle = (outcome: Buffer | 'too_large' | 'aborted') => {
      incoming.off('data', onData);
      incoming.off('end', onEnd);
      incoming.off('error', onAbort);
      incoming.off('close', onAbort);
      resolve(outcome);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        incoming.pause();
        settle('too_large');
      } else chunks.push(chunk);
    };
    const onEnd = () => settle(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size));
    const onAbort = () => settle('aborted');
    incoming.on('data', onData);
    incoming.on('end', onEnd);
    incoming.on('error', onAbort);
    incoming.on('close', onAbort);
  });
}
