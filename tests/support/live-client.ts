/**
 * A `ws` client of the service's `WS /ws` for tests: connects with a request-bound
 * assertion as the gateway mints it, keeps every frame it receives, and waits, bounded,
 * for the one a test expects.
 */
import WebSocket from 'ws';
import type { TestIdentity } from './service-process.ts';
import type { TestPerson } from './in-process-service.ts';

export type Frame = Record<string, any>;

export type LiveClient = {
  frames: Frame[];
  send: (frame: unknown) => void;
  sendRaw: (data: string | Buffer) => void;
  /** The first frame received (now or later) that matches; rejects after `timeoutMs`. */
  next: (match: (f: Frame) => boolean, timeoutMs?: number) => Promise<Frame>;
  /** Resolves with the close code. */
  closed: Promise<number>;
  close: () => Promise<void>;
};

/** The refusal of an upgrade: status and JSON body, or null when the socket opened. */
export async function refusedUpgrade(url: string, headers: Record<string, string>): Promise<{ status: number; body: any } | null> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    ws.on('open', () => {
      ws.close();
      resolve(null);
    });
    ws.on('unexpected-response', (_req, res) => {
      let text = '';
      res.on('data', (d: Buffer) => (text += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text === '' ? null : JSON.parse(text) }));
    });
    ws.on('error', (error) => reject(error));
  });
}

/** Opens `/ws` on `baseUrl` as `who`, signing with `identity`; resolves once the `hello` frame arrived. */
export async function connectLive(baseUrl: string, identity: Pick<TestIdentity, 'sign'>, who: TestPerson): Promise<LiveClient> {
  const token = await identity.sign({ token_use: 'assertion', sub: who.sub, email: who.email, name: who.email, grants: who.grants, htm: 'GET', htu: '/ws' });
  const ws = new WebSocket(`${baseUrl.replace(/^http/, 'ws')}/ws`, { headers: { authorization: `Bearer ${token}` } });
  const frames: Frame[] = [];
  const waiters = new Set<{ match: (f: Frame) => boolean; resolve: (f: Frame) => void }>();
  ws.on('message', (data) => {
    const frame = JSON.parse(data.toString()) as Frame;
    frames.push(frame);
    for (const w of waiters) {
      if (w.match(frame)) {
        waiters.delete(w);
        w.resolve(frame);
      }
    }
  });
  const closed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));
  ws.on('error', () => {});
  const next = (match: (f: Frame) => boolean, timeoutMs = 5000) => {
    const seen = frames.find(match);
    if (seen) return Promise.resolve(seen);
    return new Promise<Frame>((resolve, reject) => {
      const waiter = {
        match,
        resolve: (f: Frame) => {
          clearTimeout(timer);
          resolve(f);
        },
      };
      const timer = setTimeout(() => {
        waiters.delete(waiter);
        reject(new Error(`no matching frame within ${timeoutMs} ms; got ${JSON.stringify(frames)}`));
      }, timeoutMs);
      waiters.add(waiter);
    });
  };
  await next((f) => f.type === 'hello');
  return {
    frames,
    send: (frame) => ws.send(JSON.stringify(frame)),
    sendRaw: (data) => ws.send(data),
    next,
    closed,
    close: async () => {
      if (ws.readyState !== ws.CLOSED) ws.close();
      await closed;
    },
  };
}
