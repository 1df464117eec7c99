/**
 * The operator's endpoints of the Worker, under /_edge/, each answering only to
 * `Authorization: Bearer <ADMIN_TOKEN>` (anything else gets the same 404 as any unknown
 * path, so they are not even seen to exist). The publish and sync tools (edge/publish.ts,
 * edge/sync.ts) use them, locally and on Cloudflare alike; every one is idempotent, so a
 * client may send it again after a failure (server/cli/edge-push.ts does):
 *
 *   GET    /_edge/list?prefix=…&cursor=…   objects in the bucket (key, size), 1,000 a page
 *   PUT    /_edge/files/<path>             one file of a release or bundle, with `X-Sha256`
 *                                          (required), which R2 checks (a mismatch is refused)
 *   POST   /_edge/multipart?path=…&size=…&part_bytes=…   a file too large for one request
 *   PUT    /_edge/multipart?path=…&upload=…&part=n        body (a bundle archive): begin or
 *   POST   /_edge/multipart?path=…&upload=…&done          resume, send parts (X-Sha256 each),
 *   DELETE /_edge/multipart?path=…                        complete; abort (edge/multipart.ts)
 *   GET    /_edge/multipart                               the paths of open uploads
 *   PUT    /_edge/current                  switch the live release (body: its id) once every
 *                                          file of its manifest is in the bucket with its size
 *   POST   /_edge/keys                     the keys document: changed project slices to their
 *                                          meters (at most SLICES_PER_CALL a call; `remaining`
 *                                          says to call again), then the key index to KV
 *   POST   /_edge/reviews                  the reviews document to KV
 *   POST   /_edge/usage                    a meter's count for a month ({meter, month, used}), or
 *                                          the Node server's counts ({month, elsewhere: {meter: n}})
 *   GET    /_edge/usage?month=…&meters=a,b  the meters' counts for a month (npm run keys -- usage)
 *   GET    /_edge/stats                    this isolate's R2 reads, Cache API use and budgets
 *
 * Malformed input is answered with the error envelope (bad_request, conflict), never a
 * 500 (issue 39, item 5).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { MANIFEST } from '../pipeline/paths.ts';
import type { Manifest } from '../pipeline/writer.ts';
import { ApiError } from '../server/http/errors.ts';
import type { CoreRequest, CoreResponse } from '../server/http/request.ts';
import { releaseBase } from '../server/release/release.ts';
import type { KeyDoc } from '../server/state/accounts.ts';
import type { Core } from '../server/core/app.ts';
import type { Env } from './env.ts';
import { keyIndex, sliceHash, slices } from './keys-doc.ts';
import { abort, begin, complete, openUploads, putPart } from './multipart.ts';
import { KEY_INDEX, REVIEWS, SLICE_HASHES } from './state.ts';

/** What the operator endpoints need of the isolate serving them. */
export interface IsolateView {
  core: Core;
  /** R2 reads, Cache API hits and what the caches hold, since the isolate started. */
  stats(): Record<string, unknown>;
}

/** Durable Object calls per sync request: well under a request's subrequest limit. */
export const SLICES_PER_CALL = 200;
/** Paths a file upload may write: a release's or a bundle's files, never the pointer. */
const UPLOADABLE = /^(releases|bundles)\/[0-9a-f]{16}\/[A-Za-z0-9._/-]+$/;
const SHA256 = /^[0-9a-f]{64}$/;

const json = (status: number, body: unknown): CoreResponse => ({
  status, headers: ['content-type', 'application/json; charset=utf-8', 'cache-control', 'no-store'], body: JSON.stringify(body),
});
const bad = (message: string, details?: Record<string, unknown>) => new ApiError('bad_request', message, details);

function authorized(req: CoreRequest, env: Env): boolean {
  const token = env.ADMIN_TOKEN;
  const m = /^Bearer (\S+)$/.exec(req.header('authorization') ?? '');
  if (!token || !m) return false;
  const digest = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(m[1]), digest(token));
}

function uploadable(path: string): string {
  if (!UPLOADABLE.test(path) || path.includes('..')) throw bad(`not a release or bundle path: ${path.slice(0, 200)}`, { parameter: 'path' });
  return path;
}

function sha256Of(request: Request): string {
  const sha = request.headers.get('x-sha256')?.trim().toLowerCase();
  if (!sha) throw bad('X-Sha256 is required: the sha256 of the body, in hex, which the bucket checks before it keeps the file', { header: 'x-sha256' });
  if (!SHA256.test(sha)) throw bad('X-Sha256 must be 64 hex digits', { header: 'x-sha256' });
  return sha;
}

/** The body parsed as JSON and checked (and its text, kept as sent where that matters). */
async function jsonBody<T>(request: Request, check: (v: any) => boolean, what: string): Promise<[T, string]> {
  const text = await request.text();
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw bad(`the body must be ${what} (JSON)`);
  }
  if (!v || typeof v !== 'object' || !check(v)) throw bad(`the body is not ${what}`);
  return [v as T, text];
}

const isObject = (v: unknown) => !!v && typeof v === 'object' && !Array.isArray(v);

/** Whether every file of a release (and its compressed variants) is in the bucket with its size. */
async function missingFiles(env: Env, id: string, manifest: Manifest): Promise<string[]> {
  const have = new Map<string, number>();
  const base = releaseBase(id);
  let cursor: string | undefined;
  do {
    const page = await env.RELEASES.list({ prefix: base, cursor });
    for (const o of page.objects) have.set(o.key.slice(base.length), o.size);
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor);
  const wrong: string[] = [];
  for (const [rel, e] of Object.entries(manifest.files)) {
    for (const [p, size] of [[rel, e.size], [`${rel}.br`, e.br], [`${rel}.gz`, e.gzip]] as const) {
      if (size !== undefined && have.get(p) !== size) wrong.push(p);
    }
  }
  return wrong;
}

export async function admin(request: Request, req: CoreRequest, env: Env, iso: IsolateView): Promise<CoreResponse> {
  if (!authorized(req, env)) return iso.core.error(req, new ApiError('not_found', 'no endpoint at this path'));
  try {
    return await route(request, env, iso);
  } catch (err) {
    if (err instanceof ApiError) return iso.core.error(req, err);
    // A fault of the bucket or a meter: the envelope, 500, which the publisher retries.
    console.error(`operator endpoint ${request.method} ${new URL(request.url).pathname.slice(0, 200)}: ${(err as Error).message}`);
    return iso.core.error(req, new ApiError('internal_error', `internal error: ${(err as Error).message.slice(0, 200)}`));
  }
}

async function route(request: Request, env: Env, iso: IsolateView): Promise<CoreResponse> {
  const url = new URL(request.url);
  const q = url.searchParams;
  const files = url.pathname.startsWith('/_edge/files/');
  const route = `${request.method} ${files ? '/_edge/files/' : url.pathname}${url.pathname === '/_edge/multipart' && q.has('done') ? ' done' : ''}`;
  switch (route) {
    case 'GET /_edge/list': {
      const page = await env.RELEASES.list({ prefix: q.get('prefix') ?? '', cursor: q.get('cursor') ?? undefined });
      return json(200, { objects: page.objects.map((o) => ({ key: o.key, size: o.size })), cursor: page.truncated ? page.cursor : null });
    }
    case 'PUT /_edge/files/': {
      let path: string;
      try {
        path = uploadable(decodeURIComponent(url.pathname.slice('/_edge/files/'.length)));
      } catch (err) {
        throw err instanceof ApiError ? err : bad('the path is not valid percent-encoded UTF-8');
      }
      const sha256 = sha256Of(request);
      try {
        const put = await env.RELEASES.put(path, request.body, { sha256 });
        return json(201, { path, size: put?.size });
      } catch (err) {
        if (/sha-?256|checksum|digest/i.test((err as Error).message)) throw bad('the body does not match its X-Sha256 (damaged on the way): send it again', { reason: 'checksum_mismatch' });
        throw err;
      }
    }
    case 'POST /_edge/multipart': {
      const open = await begin(env.RELEASES, uploadable(q.get('path') ?? ''), Number(q.get('size')), Number(q.get('part_bytes')));
      return json(200, open);
    }
    case 'PUT /_edge/multipart': {
      const path = uploadable(q.get('path') ?? '');
      const sha256 = sha256Of(request);
      return json(200, await putPart(env.RELEASES, path, q.get('upload') ?? '', Number(q.get('part')), await request.arrayBuffer(), sha256));
    }
    case 'POST /_edge/multipart done':
      return json(201, await complete(env.RELEASES, uploadable(q.get('path') ?? ''), q.get('upload') ?? ''));
    case 'DELETE /_edge/multipart':
      return json(200, { path: q.get('path'), aborted: await abort(env.RELEASES, uploadable(q.get('path') ?? '')) });
    case 'GET /_edge/multipart':
      return json(200, { open: await openUploads(env.RELEASES) });
    case 'PUT /_edge/current': {
      const id = (await request.text()).trim();
      if (!/^[0-9a-f]{16}$/.test(id)) throw bad('the body must be a release id (16 hex digits)');
      const text = await (await env.RELEASES.get(releaseBase(id) + MANIFEST))?.text();
      if (!text) throw new ApiError('conflict', `release ${id} has no manifest in the bucket: publish it first`, { release: id });
      const missing = await missingFiles(env, id, JSON.parse(text) as Manifest);
      if (missing.length) throw new ApiError('conflict', `release ${id} is incomplete in the bucket: ${missing.length} file(s), e.g. ${missing.slice(0, 3).join(', ')}`, { release: id, missing: missing.length });
      const previous = (await (await env.RELEASES.get('current'))?.text())?.trim() ?? null;
      // One object written whole: every isolate reads the old id or the new one, never a mix.
      await env.RELEASES.put('current', id);
      return json(200, { previous, current: id });
    }
    case 'POST /_edge/keys': {
      const [doc] = await jsonBody<KeyDoc>(request, (d) => ['keys', 'projects', 'accounts', 'subscriptions', 'exceptions'].every((k) => isObject(d[k])), 'a keys document');
      const known: Record<string, string> = JSON.parse((await env.KEYS.get(SLICE_HASHES)) ?? '{}');
      const changed = [...slices(doc)].map(([meter, s]) => ({ meter, s, hash: sliceHash(s) })).filter((x) => known[x.meter] !== x.hash);
      const now = changed.slice(0, SLICES_PER_CALL);
      // Meters first: the index may only name keys whose meter knows them.
      await Promise.all(now.map(({ meter, s, hash }) => env.METER.get(env.METER.idFromName(meter)).setSlice(s, hash)));
      for (const { meter, hash } of now) known[meter] = hash;
      await env.KEYS.put(SLICE_HASHES, JSON.stringify(known));
      const remaining = changed.length - now.length;
      if (!remaining) await env.KEYS.put(KEY_INDEX, JSON.stringify(keyIndex(doc)));
      return json(200, { pushed: now.length, remaining, keys: Object.keys(doc.keys).length });
    }
    case 'POST /_edge/reviews': {
      const [doc, text] = await jsonBody<{ reviews: object }>(request, (d) => d.version === 1 && isObject(d.reviews), 'a reviews document');
      // As sent: its text's hash is the reviews' version (edge/state.ts).
      await env.KEYS.put(REVIEWS, text);
      return json(200, { reviews: Object.keys(doc.reviews).length });
    }
    case 'POST /_edge/usage': {
      const [u] = await jsonBody<{ month: string; meter?: string; used?: number; last_used?: number | null; elsewhere?: Record<string, number> }>(request, (d) => /^\d{4}-\d{2}$/.test(d.month) && (
        // {month, elsewhere: {meter: n}}: the Node server's counts; else {meter, month, used}: a count carried over.
        d.elsewhere !== undefined
          ? isObject(d.elsewhere) && Object.keys(d.elsewhere).length <= SLICES_PER_CALL && Object.values(d.elsewhere).every((n) => Number.isSafeInteger(n) && (n as number) >= 0)
          : typeof d.meter === 'string' && d.meter.length > 0 && Number.isSafeInteger(d.used) && d.used >= 0 && (d.last_used == null || Number.isSafeInteger(d.last_used))),
      `counts: {month: "YYYY-MM", elsewhere: {meter: n}} (at most ${SLICES_PER_CALL}) or {meter, month, used}`);
      const meter = (m: string) => env.METER.get(env.METER.idFromName(m));
      if (u.elsewhere) await Promise.all(Object.entries(u.elsewhere).map(([m, n]) => meter(m).setElsewhere(u.month, n)));
      else await meter(u.meter!).setUsage(u.month, u.used!, u.last_used ?? undefined);
      return json(200, u);
    }
    case 'GET /_edge/usage': {
      const month = q.get('month') ?? '';
      if (!/^\d{4}-\d{2}$/.test(month)) throw bad('month must be YYYY-MM', { parameter: 'month' });
      const meters = (q.get('meters') ?? '').split(',').filter(Boolean);
      if (meters.length > SLICES_PER_CALL) throw bad(`at most ${SLICES_PER_CALL} meters a call`, { parameter: 'meters' });
      const counts = await Promise.all(meters.map((m) => env.METER.get(env.METER.idFromName(m)).usage(month)));
      return json(200, { month, meters: Object.fromEntries(meters.map((m, i) => [m, counts[i]])) });
    }
    case 'GET /_edge/stats':
      return json(200, iso.stats());
    default:
      throw new ApiError('not_found', `no operator endpoint ${route.slice(0, 100)}`);
  }
}
