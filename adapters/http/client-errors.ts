/**
 * Answers for requests Node's HTTP parser refuses before any route sees them (issue 19):
 * headers or a path over Node's header limit (`--max-http-header-size`, 16 KiB by
 * default) and malformed request lines get the API's error shape `{detail, code,
 * params}` instead of Node's bare status line. 431 `request_header_too_large` for an
 * oversized head, 400 `bad_request` for anything else the parser cannot read; the
 * connection is closed after the answer.
 */
import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';

const reasons: Record<number, string> = { 400: 'Bad Request', 431: 'Request Header Fields Too Large' };

/** The raw HTTP/1.1 answer to a request the parser refused with `code` (an `HPE_*` code). */
export function clientErrorResponse(code: string | undefined): string {
  const tooLarge = code === 'HPE_HEADER_OVERFLOW';
  const status = tooLarge ? 431 : 400;
  const body = JSON.stringify(
    tooLarge
      ? { detail: 'request line and headers exceed the server limit', code: 'request_header_too_large', params: {} }
      : { detail: 'malformed HTTP request', code: 'bad_request', params: {} },
  );
  return `HTTP/1.1 ${status} ${reasons[status]}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`;
}

/** Installs the answer on `server`'s `clientError` event. */
export function answerClientErrors(server: Server): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    // A peer that went away, or a socket already answered, has no one left to tell.
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    socket.end(clientErrorResponse(error.code));
  });
}
