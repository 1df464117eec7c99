/**
 * Writing responses: content-hash ETags (shared across encodings), 304, precompressed
 * variants chosen by Accept-Encoding, HEAD, CORS on every response (errors included),
 * and the one function that writes error bodies.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError, errorBody } from './errors.ts';
import type { Release } from './release.ts';

export const CORS_HEADERS: Record<string, string> = {
  'access-control-allow-origin': '*',
  'access-control-expose-headers': 'ETag, RateLimit, RateLimit-Policy, Retry-After, Content-Length',
};
export const PREFLIGHT_HEADERS: Record<string, string> = {
  ...CORS_HEADERS,
  'access-control-allow-methods': 'GET, HEAD, OPTIONS',
  'access-control-allow-headers': 'Authorization, X-Service-Key, X-Scripture-Key, If-None-Match, Accept-Encoding',
  'access-control-max-age': '86400',
};

// Authenticated data: browsers may cache it; shared caches must not serve it to other keys.
const CACHE_CONTROL = 'private, max-age=300';

const etagOf = (body: Buffer | string) => `"${createHash('sha1').update(body).digest('base64url')}"`;

function notModified(req: IncomingMessage, etag: string): boolean {
  const inm = req.headers['if-none-match'];
  if (!inm) return false;
  return inm.split(',').some((t) => {
    const v = t.trim();
    return v === '*' || v === etag || v === `W/${etag}`;
  });
}

function finish(req: IncomingMessage, res: ServerResponse, status: number, headers: Record<string, string | number>, body: Buffer | string) {
  res.writeHead(status, { ...CORS_HEADERS, ...headers, 'content-length': Buffer.byteLength(body) });
  res.end(req.method === 'HEAD' ? undefined : body);
}

export function sendJson(req: IncomingMessage, res: ServerResponse, body: Buffer | string, extra: Record<string, string> = {}) {
  const etag = etagOf(body);
  const headers = { ...extra, etag, 'cache-control': CACHE_CONTROL, 'content-type': 'application/json; charset=utf-8' };
  if (notModified(req, etag)) {
    res.writeHead(304, { ...CORS_HEADERS, ...headers });
    res.end();
    return;
  }
  finish(req, res, 200, headers, body);
}

/** A manifest-listed file, in the best encoding the client accepts that the build wrote. */
export function sendFile(req: IncomingMessage, res: ServerResponse, release: Release, rel: string, extra: Record<string, string> = {}) {
  const entry = release.entry(rel)!;
  const etag = `"${entry.sha256.slice(0, 32)}"`;
  const headers: Record<string, string> = {
    ...extra, etag, vary: 'Accept-Encoding', 'cache-control': CACHE_CONTROL, 'content-type': 'application/json; charset=utf-8',
  };
  if (notModified(req, etag)) {
    res.writeHead(304, { ...CORS_HEADERS, ...headers });
    res.end();
    return;
  }
  const accept = String(req.headers['accept-encoding'] ?? '');
  const encoding = entry.br && /\bbr\b/.test(accept) ? 'br' : entry.gzip && /\bgzip\b/.test(accept) ? 'gzip' : '';
  if (encoding) headers['content-encoding'] = encoding;
  finish(req, res, 200, headers, release.file(rel, encoding));
}

export function sendError(req: IncomingMessage, res: ServerResponse, err: ApiError, extra: Record<string, string> = {}) {
  finish(req, res, err.status, { ...extra, ...err.headers, 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' }, errorBody(err));
}
