/**
 * What node:http answers before a request reaches a handler — oversized, malformed or
 * too-slow requests, and CONNECT — written as the error envelope. The Node server
 * (node/server.ts) and the edge's local front (edge/front.ts, in front of workerd) both
 * use it, so the two answer a malformed request with the same status and body
 * (issue 39, item 5: workerd's own parser answered them 500/501 in plain text).
 */
import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { ApiError } from '../http/errors.ts';
import { requestId } from './access-log.ts';

/** Told of each answer written here (the Node server's access log): status, body bytes, request id. */
export type RawAnswered = (status: number, bytes: number, id: string, socket: Duplex) => void;

export const MAX_HEADER_BYTES = 16 * 1024;
/** README "HTTP edges": headers within 10 s (408 after), a whole request within 30 s. */
export const HEADERS_TIMEOUT_MS = 10_000;
export const REQUEST_TIMEOUT_MS = 30_000;

/** node:http server options with these limits (`headersTimeout`: tests shorten it). */
export function serverLimits(headersTimeout = HEADERS_TIMEOUT_MS) {
  return {
    maxHeaderSize: MAX_HEADER_BYTES,
    requireHostHeader: false,
    headersTimeout,
    requestTimeout: Math.max(REQUEST_TIMEOUT_MS, headersTimeout + 1000),
    // Node checks the timeouts on this interval (default 30 s, which made a 10 s limit 40 s).
    connectionsCheckingInterval: Math.min(1000, headersTimeout),
  };
}

/** Answers what never reaches the request handler with the envelope. */
export function answerTransportErrors(server: Server, headersTimeout = HEADERS_TIMEOUT_MS, answered?: RawAnswered) {
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    if (!socket.writable) return socket.destroy();
    const tooLarge = err.code === 'HPE_HEADER_OVERFLOW';
    const timeout = err.code === 'ERR_HTTP_REQUEST_TIMEOUT';
    const e = tooLarge
      ? new ApiError('headers_too_large', `request headers exceed ${MAX_HEADER_BYTES} bytes`)
      : timeout
        ? new ApiError('request_timeout', `the request headers did not arrive within ${headersTimeout / 1000} s`)
        : new ApiError('bad_request', 'malformed HTTP request');
    const id = requestId(undefined);
    const bytes = rawAnswer(socket, e, tooLarge ? 'Request Header Fields Too Large' : timeout ? 'Request Timeout' : 'Bad Request', id);
    answered?.(e.status, bytes, id, socket);
  });
  // CONNECT never reaches the handler either: node:http hands it to this event or, with no
  // listener, drops the connection without a word. It is a method like any other we do not serve.
  server.on('connect', (_req, socket: Duplex) => {
    const id = requestId(undefined);
    const bytes = rawAnswer(socket, new ApiError('method_not_allowed', 'CONNECT is not served; use GET, HEAD or OPTIONS'), 'Method Not Allowed', id, 'allow: GET, HEAD, OPTIONS\r\n');
    answered?.(405, bytes, id, socket);
  });
}

/** The error envelope written straight to a socket (with its X-Request-Id), for requests node:http keeps from the handler; returns the body's bytes. */
export function rawAnswer(socket: Duplex, e: ApiError, reason: string, id: string, extra = '') {
  const body = JSON.stringify({ error: { code: e.code, message: e.message, status: e.status } });
  socket.end(
    `HTTP/1.1 ${e.status} ${reason}\r\n` +
    `content-type: application/json; charset=utf-8\r\naccess-control-allow-origin: *\r\nx-request-id: ${id}\r\n${extra}` +
    `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
  return Buffer.byteLength(body);
}
