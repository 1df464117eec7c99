/**
 * Writing responses: content-hash ETags (shared across encodings), 304, precompressed
 * variants chosen by Accept-Encoding, HEAD, CORS on every response (errors included),
 * and the one function that writes error bodies.
 *
 * Headers travel as flat [name, value, …] arrays, which node:http writes without
 * building intermediate objects — this path runs on every request.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError, errorBody } from './errors.ts';
import type { Release } from './release.ts';

export type HeaderList = string[];

const CORS: HeaderList = [
  'access-control-allow-origin', '*',
  'access-control-expose-headers', 'ETag, RateLimit, RateLimit-Policy, Retry-After, Content-Length',
];
export const PREFLIGHT_HEADERS: HeaderList = [
  ...CORS,
  'access-control-allow-methods', 'GET, HEAD, OPTIONS',
  'access-control-allow-headers', 'Authorization, X-Service-Key, X-Scripture-Key, If-None-Match, Accept-Encoding',
  'access-control-max-age', '86400',
];
const JSON_TYPE = ['content-type', 'application/json; charset=utf-8'];
// Authenticated data: browsers may cache it; shared caches must not serve it to other keys.
const CACHEABLE = ['cache-control', 'private, max-age=300'];
const NO_STORE = ['cache-control', 'no-store'];

export const etagOf = (body: Buffer | string) => `"${createHash('sha1').update(body).digest('base64url')}"`;

function notModified(req: IncomingMessage, etag: string): boolean {
  const inm = req.headers['if-none-match'];
  if (!inm) return false;
  return inm.split(',').some((t) => {
    const v = t.trim();
    return v === '*' || v === etag || v === `W/${etag}`;
  });
}

function write(req: IncomingMessage, res: ServerResponse, status: number, headers: HeaderList, body?: Buffer | string) {
  if (body !== undefined) headers.push('content-length', String(Buffer.byteLength(body)));
  res.writeHead(status, headers);
  res.end(req.method === 'HEAD' ? undefined : body);
}

export function sendJson(req: IncomingMessage, res: ServerResponse, body: Buffer | string, etag: string, extra: HeaderList = []) {
  const headers = [...CORS, ...JSON_TYPE, ...CACHEABLE, 'etag', etag, ...extra];
  if (notModified(req, etag)) return write(req, res, 304, headers);
  write(req, res, 200, headers, body);
}

/** A manifest-listed file, in the best encoding the client accepts that the build wrote. */
export function sendFile(req: IncomingMessage, res: ServerResponse, release: Release, rel: string, extra: HeaderList = []) {
  const entry = release.entry(rel)!;
  const etag = `"${entry.sha256.slice(0, 32)}"`;
  const headers = [...CORS, ...JSON_TYPE, ...CACHEABLE, 'etag', etag, 'vary', 'Accept-Encoding', ...extra];
  if (notModified(req, etag)) return write(req, res, 304, headers);
  const accept = String(req.headers['accept-encoding'] ?? '');
  const encoding = entry.br && /\bbr\b/.test(accept) ? 'br' : entry.gzip && /\bgzip\b/.test(accept) ? 'gzip' : '';
  if (encoding) headers.push('content-encoding', encoding);
  write(req, res, 200, headers, release.file(rel, encoding));
}

export function sendError(req: IncomingMessage, res: ServerResponse, err: ApiError, extra: HeaderList = []) {
  const own = Object.entries(err.headers ?? {}).flat();
  // The error's own rate-limit headers (on a 429) replace the ones computed before it.
  const keep = own.length ? extra.filter((_, i, a) => !(i % 2 === 0 ? own.includes(a[i]) : own.includes(a[i - 1]))) : extra;
  write(req, res, err.status, [...CORS, ...JSON_TYPE, ...NO_STORE, ...keep, ...own], errorBody(err));
}
