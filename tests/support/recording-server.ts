/**
 * The plumbing of the vendor stand-ins (tests/support/*-servers.ts): an HTTP server on
 * 127.0.0.1 and a free port that reads each request's body, records the request, and hands
 * it to the stand-in's handler; plus the JSON answer they all write.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as received: `path` with its query, `body` the raw text ('' when none). */
export type RecordedRequest = { method: string; path: string; headers: IncomingHttpHeaders; body: string };

export type RecordingServer = { url: string; requests: RecordedRequest[]; close: () => Promise<void> };

const readBody = (req: IncomingMessage) =>
  new Promise<string>((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });

/** Starts a server recording every request before `handle` answers it; `close` ends open connections too. */
export async function listenRecording(handle: (req: IncomingMessage, body: string, res: ServerResponse) => void): Promise<RecordingServer> {
  const requests: RecordedRequest[] = [];
  const server = createServer(async (req, res) => {
    const body = await readBody(req);
    requests.push({ method: req.method ?? '', path: req.url ?? '/', headers: req.headers, body });
    handle(req, body, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Answers `body` as JSON with `status` (and extra `headers`). */
export const jsonAnswer = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
};
