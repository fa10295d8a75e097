import { STATUS_CODES, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from '@hookstream/runtime';
import { ErrorCodes, Refusal } from '@hookstream/errors';
import { refusalBody } from './error-handler';

/** What a refusal of Node's HTTP parser becomes. */
function refusalFor(code: string | undefined): Refusal {
  if (code === 'HPE_HEADER_OVERFLOW')
    return new Refusal(ErrorCodes.HEADERS_TOO_LARGE, 'the request headers are larger than the server accepts');
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return new Refusal(ErrorCodes.REQUEST_TIMEOUT, 'the request was not received in time');
  return new Refusal(ErrorCodes.MALFORMED_REQUEST, 'the request is not valid HTTP/1.1');
}

/**
 * Node's HTTP parser refuses some requests before express sees them (headers over its limit, a
 * malformed request line or header, a request that takes too long to arrive) and by default
 * answers with a bare status line. Here they get the contract's JSON error body (spec 2.4) like
 * every other refusal (the same body as the error handler's), and the connection is closed, as Node does.
 */
export function answerParserRefusalsWithJson(server: Server, logger: Logger): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    // A connection the peer already dropped, or one whose response has begun, gets no answer (Node's own rule).
    const response = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (error.code === 'ECONNRESET' || !socket.writable || response?.headersSent) {
      socket.destroy();
      return;
    }
    const refusal = refusalFor(error.code);
    const status = refusal.httpStatus;
    logger.info({ code: error.code, status }, 'request refused by the HTTP parser');
    const body = refusalBody(refusal);
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
}
