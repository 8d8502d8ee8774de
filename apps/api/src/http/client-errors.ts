import { STATUS_CODES, type Server } from 'node:http';
import type { Duplex } from 'node:stream';

/**
 * Answers requests Node's HTTP parser refuses before express sees them (a request line and headers
 * over 16 KB, a malformed request, a request too slow to arrive) with the service's JSON error
 * body; Node's own answer to them has no body at all.
 */
export function answerClientErrorsWithJson(server: Server): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const [status, code, message] =
      error.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'REQUEST_HEADERS_TOO_LARGE', 'Request line and headers are larger than 16 KB']
        : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? [408, 'REQUEST_TIMEOUT', 'The request did not arrive in time']
          : [400, 'INVALID_REQUEST', 'Invalid request: malformed HTTP'];
    const body = JSON.stringify({ code, message });
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nX-Content-Type-Options: nosniff\r\nCache-Control: no-store\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
}
