/**
 * Writing responses: one ETag per representation (identity, br, gzip), 304, the coding
 * chosen by Accept-Encoding (http/encoding.ts), HEAD, CORS on every response (errors
 * included), Cache-Control and Vary from the one policy table (http/cache-policy.ts),
 * and the one function that writes error bodies, as the envelope or as RFC 9457 problem
 * details. Everything here builds a CoreResponse (http/request.ts); the adapters send it.
 *
 * Headers travel as flat [name, value, …] arrays, which node:http writes without
 * building intermediate objects — this path runs on every request.
 */
import { createHash } from 'node:crypto';
import { policyHeaders } from './cache-policy.ts';
import { etagFor, negotiate, partBytes, type Body, type Coding } from './encoding.ts';
import { ApiError, errorBody, problemBody } from './errors.ts';
import type { CoreRequest, CoreResponse, HeaderList } from './request.ts';

export type { HeaderList };

const EXPOSED = 'ETag, RateLimit, RateLimit-Policy, Retry-After, Content-Length, Content-Encoding, Data-Age, WWW-Authenticate, X-Request-Id';
export const CORS: HeaderList = ['access-control-allow-origin', '*', 'access-control-expose-headers', EXPOSED];
export const PREFLIGHT_HEADERS: HeaderList = [
  ...CORS,
  'access-control-allow-methods', 'GET, HEAD, OPTIONS',
  'access-control-allow-headers', 'Authorization, X-Service-Key, X-Scripture-Key, If-None-Match, Accept-Encoding, Accept, Range, If-Range, X-Request-Id',
  'access-control-max-age', '86400',
];
const JSON_TYPE = ['content-type', 'application/json; charset=utf-8'];
/** CORS, the JSON type and an ETag slot (index ETAG_AT): a response's headers begin as one copy of it. */
const JSON_BASE: HeaderList = [...CORS, ...JSON_TYPE, 'etag', ''];
const ETAG_AT = JSON_BASE.length - 1;
const NONE: HeaderList = [];
const PROBLEM_TYPE = ['content-type', 'application/problem+json'];

/** The hash part of a composed body's ETag (sha1, base64url: 27 characters); parts hash as the bytes they join into. */
export function hashOf(body: Body): string {
  const h = createHash('sha1');
  if (typeof body === 'string' || Buffer.isBuffer(body)) h.update(body);
  else for (const p of body) h.update(partBytes(p));
  return h.digest('base64url');
}
/** The identity ETag of a composed body. */
export const etagOf = (body: Buffer | string) => etagFor(hashOf(body), '');

/** If-None-Match uses the weak comparison (RFC 9110 §13.1.2): W/"x" matches "x". */
export function notModified(req: CoreRequest, etag: string): boolean {
  const inm = req.header('if-none-match');
  if (!inm) return false;
  return inm.split(',').some((t) => {
    const v = t.trim();
    return v === '*' || v === etag || v === `W/${etag}`;
  });
}

/** A response with `body` (or, for HEAD, only its length). */
export function respond(req: CoreRequest, status: number, headers: HeaderList, body?: Buffer | string): CoreResponse {
  if (body === undefined) return { status, headers };
  headers.push('content-length', String(Buffer.byteLength(body)));
  return req.method === 'HEAD' ? { status, headers } : { status, headers, body };
}

/** A body that may be sent in several codings: a composed response (encoding.ts Encoded) or a release file with prebuilt variants. */
export interface Representable {
  /** ETag hash of the identity bytes. */
  hash: string;
  /** Codings available besides identity, best first. */
  offered: readonly ('br' | 'gzip')[];
  get(coding: Coding): Promise<{ body: Buffer | string; coding: Coding }> | { body: Buffer | string; coding: Coding };
}

/** A manifest-listed file, with the `.br`/`.gz` variants the build wrote beside it. */
export function releaseFile(release: { entry(rel: string): { sha256: string; br?: number; gzip?: number } | undefined; file(rel: string, coding: Coding): Promise<Buffer> }, rel: string): Representable {
  const entry = release.entry(rel)!;
  const offered = [...(entry.br ? ['br' as const] : []), ...(entry.gzip ? ['gzip' as const] : [])];
  return { hash: entry.sha256.slice(0, 32), offered, get: async (coding) => ({ body: await release.file(rel, coding), coding }) };
}

/** The coding this request would get of a body offering br and gzip (the edge's cache is keyed by it). */
export const wantedCoding = (req: CoreRequest): Coding => negotiate(req.header('accept-encoding'), BOTH);
const BOTH = ['br', 'gzip'] as const;

/** Which representation a request gets, and whether its ETag matches If-None-Match. */
export function select(req: CoreRequest, b: Representable): { coding: Coding; etag: string; notModified: boolean } {
  const coding = b.offered.length ? negotiate(req.header('accept-encoding'), b.offered) : '';
  const etag = etagFor(b.hash, coding);
  return { coding, etag, notModified: notModified(req, etag) };
}

/** What was sent for a selected representation: its bytes and the coding they really have. */
export interface Sent { response: CoreResponse; body?: Buffer | string; coding: Coding }

/**
 * 304 or 200 for a selected representation. `headers` are the policy and other headers of
 * the response, `more` its rate-limit headers; a 304 carries them too (RFC 9110 §15.4.5),
 * without a body.
 */
export function representation(req: CoreRequest, b: Representable, sel: ReturnType<typeof select>, headers: HeaderList, more: HeaderList = NONE): Sent | Promise<Sent> {
  if (sel.notModified) return { response: respond(req, 304, withBase(sel.etag, headers, more)), coding: sel.coding };
  const got = b.get(sel.coding);
  // A body already in hand is answered in this same call: no promise, no microtask (issue 14).
  if (!(got instanceof Promise)) return ok(req, b, sel, headers, more, got);
  return got.then((g) => ok(req, b, sel, headers, more, g));
}

function ok(req: CoreRequest, b: Representable, sel: ReturnType<typeof select>, headers: HeaderList, more: HeaderList, got: { body: Buffer | string; coding: Coding }): Sent {
  // Compression that did not make the body smaller falls back to identity, under its own ETag.
  const out = withBase(got.coding === sel.coding ? sel.etag : etagFor(b.hash, got.coding), headers, more);
  if (got.coding) out.push('content-encoding', got.coding);
  return { response: respond(req, 200, out, got.body), body: got.body, coding: got.coding };
}

/**
 * CORS, content type and ETag, then `headers` and `more`: a copy of JSON_BASE pushed onto
 * (0.06 µs; concat of the three, generic in V8, 0.17 µs: issue 41).
 */
function withBase(etag: string, headers: HeaderList, more: HeaderList): HeaderList {
  const out = JSON_BASE.slice();
  out[ETAG_AT] = etag;
  for (let i = 0; i < headers.length; i++) out.push(headers[i]);
  for (let i = 0; i < more.length; i++) out.push(more[i]);
  return out;
}

/** The q an Accept header gives a media type named in it (0 when not named; `*\/*` is not counted as naming it). */
export function acceptQ(accept: string, type: string): number {
  let best = 0;
  for (const member of accept.split(',')) {
    const [name, ...params] = member.split(';');
    if (name.trim().toLowerCase() !== type) continue;
    const p = params.map((x) => /^\s*q\s*=\s*([0-9.]+)\s*$/i.exec(x)).find(Boolean);
    best = Math.max(best, p ? Number(p[1]) || 0 : 1);
  }
  return best;
}

/** Whether the client asked for RFC 9457 problem details over the JSON envelope. */
export function wantsProblem(req: CoreRequest): boolean {
  const accept = req.header('accept');
  if (!accept || !accept.includes('problem+json')) return false;
  const problem = acceptQ(accept, 'application/problem+json');
  return problem > 0 && problem >= acceptQ(accept, 'application/json');
}

/**
 * Every error, in one place: the documented envelope by default, problem details for
 * `Accept: application/problem+json`. `instance` is the request path without its query.
 */
export function errorResponse(req: CoreRequest, err: ApiError, extra: HeaderList = []): CoreResponse {
  const own = Object.entries(err.headers ?? {}).flat();
  // The error's own rate-limit headers (on a 429) replace the ones computed before it.
  const keep = own.length ? extra.filter((_, i, a) => !(i % 2 === 0 ? own.includes(a[i]) : own.includes(a[i - 1]))) : extra;
  const problem = wantsProblem(req);
  const body = problem ? problemBody(err, (req.url ?? '/').split('?')[0].slice(0, 500)) : errorBody(err);
  return respond(req, err.status, [...CORS, ...(problem ? PROBLEM_TYPE : JSON_TYPE), ...policyHeaders('error'), ...keep, ...own], body);
}
