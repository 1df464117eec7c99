/**
 * The operator's endpoints of the Worker, under /_edge/, each answering only to
 * `Authorization: Bearer <ADMIN_TOKEN>` (anything else gets the same 404 as any unknown
 * path, so they are not even seen to exist). The publish and sync tools (edge/publish.ts,
 * edge/sync.ts) use them, locally and on Cloudflare alike:
 *
 *   GET  /_edge/list?prefix=…&cursor=…   objects in the bucket (key, size), 1,000 a page
 *   PUT  /_edge/files/<path>             one file of a release or bundle; `X-Sha256` is
 *                                        checked by R2 itself (a mismatch is refused)
 *   POST /_edge/multipart?path=…         a file too large for one request body (a bundle
 *   PUT  /_edge/multipart?path=…&upload=…&part=n   archive): begin, send parts, then
 *   POST /_edge/multipart?path=…&upload=…&done     complete with the parts' etags
 *   PUT  /_edge/current                  switch the live release (body: its id) once every
 *                                        file of its manifest is in the bucket with its size
 *   POST /_edge/keys                     the keys document: changed project slices to their
 *                                        meters (at most SLICES_PER_CALL a call; `remaining`
 *                                        says to call again), then the key index to KV
 *   POST /_edge/reviews                  the reviews document to KV
 *   POST /_edge/usage                    a meter's count for a month ({meter, month, used})
 *   GET  /_edge/stats                    this isolate's R2 reads and Cache API hits
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { MANIFEST } from '../pipeline/paths.ts';
import type { Manifest } from '../pipeline/writer.ts';
import { ApiError } from '../server/http/errors.ts';
import type { CoreRequest, CoreResponse } from '../server/http/request.ts';
import { releaseBase } from '../server/release/release.ts';
import type { KeyDoc } from '../server/state/accounts.ts';
import type { Env } from './env.ts';
import { keyIndex, sliceHash, slices } from './keys-doc.ts';
import { KEY_INDEX, REVIEWS, SLICE_HASHES } from './state.ts';
import type { Core } from '../server/core/app.ts';

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

const json = (status: number, body: unknown): CoreResponse => ({
  status, headers: ['content-type', 'application/json; charset=utf-8', 'cache-control', 'no-store'], body: JSON.stringify(body),
});

function authorized(req: CoreRequest, env: Env): boolean {
  const token = env.ADMIN_TOKEN;
  const m = /^Bearer (\S+)$/.exec(req.header('authorization') ?? '');
  if (!token || !m) return false;
  const digest = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(m[1]), digest(token));
}

/** Whether every file of a release (and its compressed variants) is in the bucket with its size. */
async function complete(env: Env, id: string, manifest: Manifest): Promise<string[]> {
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
  const url = new URL(request.url);
  const route = `${request.method} ${url.pathname.startsWith('/_edge/files/') ? '/_edge/files/' : url.pathname}${url.pathname === '/_edge/multipart' && url.searchParams.has('done') ? ' done' : ''}`;
  const target = url.searchParams.get('path') ?? '';
  if (url.pathname === '/_edge/multipart' && (!UPLOADABLE.test(target) || target.includes('..'))) return json(400, { error: `not a release or bundle path: ${target.slice(0, 200)}` });
  switch (route) {
    case 'GET /_edge/list': {
      const page = await env.RELEASES.list({ prefix: url.searchParams.get('prefix') ?? '', cursor: url.searchParams.get('cursor') ?? undefined });
      return json(200, { objects: page.objects.map((o) => ({ key: o.key, size: o.size })), cursor: page.truncated ? page.cursor : null });
    }
    case 'PUT /_edge/files/': {
      const path = decodeURIComponent(url.pathname.slice('/_edge/files/'.length));
      if (!UPLOADABLE.test(path) || path.includes('..')) return json(400, { error: `not a release or bundle path: ${path.slice(0, 200)}` });
      const sha256 = request.headers.get('x-sha256') ?? undefined;
      const put = await env.RELEASES.put(path, request.body, sha256 ? { sha256 } : undefined);
      return json(201, { path, size: put?.size });
    }
    case 'POST /_edge/multipart':
      return json(200, { upload: (await env.RELEASES.createMultipartUpload(target)).uploadId });
    case 'PUT /_edge/multipart': {
      const part = Number(url.searchParams.get('part'));
      if (!Number.isInteger(part) || part < 1 || !request.body) return json(400, { error: 'give part=<1…> and a body' });
      const up = env.RELEASES.resumeMultipartUpload(target, url.searchParams.get('upload') ?? '');
      return json(200, await up.uploadPart(part, request.body));
    }
    case 'POST /_edge/multipart done': {
      const up = env.RELEASES.resumeMultipartUpload(target, url.searchParams.get('upload') ?? '');
      const done = await up.complete((await request.json()) as { partNumber: number; etag: string }[]);
      return json(201, { path: target, size: done.size });
    }
    case 'PUT /_edge/current': {
      const id = (await request.text()).trim();
      if (!/^[0-9a-f]{16}$/.test(id)) return json(400, { error: 'the body must be a release id' });
      const text = await (await env.RELEASES.get(releaseBase(id) + MANIFEST))?.text();
      if (!text) return json(409, { error: `release ${id} has no manifest in the bucket: publish it first` });
      const missing = await complete(env, id, JSON.parse(text) as Manifest);
      if (missing.length) return json(409, { error: `release ${id} is incomplete in the bucket: ${missing.length} file(s), e.g. ${missing.slice(0, 3).join(', ')}` });
      const previous = (await (await env.RELEASES.get('current'))?.text())?.trim() ?? null;
      // One object written whole: every isolate reads the old id or the new one, never a mix.
      await env.RELEASES.put('current', id);
      return json(200, { previous, current: id });
    }
    case 'POST /_edge/keys': {
      const doc = (await request.json()) as KeyDoc;
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
      const text = await request.text();
      const doc = JSON.parse(text);
      if (doc?.version !== 1 || typeof doc.reviews !== 'object') return json(400, { error: 'not a reviews document' });
      await env.KEYS.put(REVIEWS, text);
      return json(200, { reviews: Object.keys(doc.reviews).length });
    }
    case 'POST /_edge/usage': {
      const u = (await request.json()) as { meter: string; month: string; used: number; last_used?: number };
      if (!u.meter || !/^\d{4}-\d{2}$/.test(u.month) || !Number.isSafeInteger(u.used) || u.used < 0) return json(400, { error: 'give {meter, month: "YYYY-MM", used}' });
      await env.METER.get(env.METER.idFromName(u.meter)).setUsage(u.month, u.used, u.last_used);
      return json(200, u);
    }
    case 'GET /_edge/stats':
      return json(200, iso.stats());
    default:
      return json(404, { error: `no operator endpoint ${route.slice(0, 100)}` });
  }
}
