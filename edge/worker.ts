/**
 * The Workers adapter: a `fetch` handler in front of the same app core as the Node server
 * (server/core/app.ts). Per isolate it keeps the live release (read from R2, its pointer
 * re-read every REFRESH_SECONDS), the core with its small in-memory caches, and the state
 * (edge/state.ts: KV key index + one Durable Object per project). Composed bodies are
 * also kept in the Cache API of the location, keyed by release id, staleness, path and
 * query and the coding the client takes — never by key — so a popular record is read
 * from R2 once per release and location, after its key was checked and counted.
 *
 * Operator endpoints (publish, switch, sync) are under /_edge/ (edge/admin.ts).
 */
import { createCore, type Core, type SharedBodies } from '../server/core/app.ts';
import type { Coding } from '../server/http/encoding.ts';
import { ApiError } from '../server/http/errors.ts';
import type { CoreRequest, CoreResponse } from '../server/http/request.ts';
import { Release, releaseBase } from '../server/release/release.ts';
import { MANIFEST } from '../pipeline/paths.ts';
import type { Manifest } from '../pipeline/writer.ts';
import { studyCacheBytes } from '../server/api/v1/study.ts';
import { admin, type IsolateView } from './admin.ts';
import type { Env, ExecutionContext } from './env.ts';
import { R2Reader } from './r2-reader.ts';
import { EdgeState } from './state.ts';
import { cacheBudgets } from './budget.ts';
import { newContext, requestContext, subrequest } from './request-context.ts';

export { Meter } from './meter.ts';

declare const caches: { default: { match(r: Request): Promise<Response | undefined>; put(r: Request, res: Response): Promise<void> } };

/** The Cache API under a name of its own (an origin nothing resolves), one entry per body and coding. */
const CACHE_ORIGIN = 'https://almanac-bodies.invalid';
const cacheRequest = (key: string, coding: Coding) => new Request(`${CACHE_ORIGIN}/${coding || 'identity'}/${encodeURIComponent(key)}`);

type Body = { body: Buffer; coding: Coding; hash: string };
/** A body being composed after a Cache API miss (no entry yet), or written to the Cache API (its entry). */
interface Pending { entry?: Body; since: number }
/** How long an ask waits for a body another request is composing, looking every POLL_MS, before composing it itself. */
const WAIT_MS = 2000;
const POLL_MS = 4;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Everything an isolate keeps between requests. */
export class Isolate implements IsolateView {
  readonly reader: R2Reader;
  readonly state: EdgeState;
  readonly core: Core;
  private release: Release | undefined;
  private checked = 0;
  private readonly refreshMs: number;
  private readonly budgets: ReturnType<typeof cacheBudgets>;
  private readonly cache = { cache_hits: 0, cache_misses: 0, cache_puts: 0, cache_coalesced: 0 };
  /** Lets go of the Cache API misses a request took and did not fill (it answered no 200). */
  letGo: (keys: string[]) => void = () => {};
  /** Bodies being composed after a miss, or being written to the Cache API. */
  private readonly pending = new Map<string, Pending>();

  constructor(env: Env) {
    this.refreshMs = Number(env.REFRESH_SECONDS ?? 5) * 1000;
    this.reader = new R2Reader(env.RELEASES);
    this.budgets = cacheBudgets(env);
    studyCacheBytes(this.budgets.study);
    // Ready once a release is live (the key index is EdgeState's own check).
    this.state = new EdgeState(env, this.refreshMs, () => this.current(env).then(() => true, () => false));
    const stats = this.cache;
    // Issue 38, item 12: concurrent misses of one body each read R2 (196 reads for 100
    // URLs), and so did the asks that came before its Cache API write had landed. The
    // first miss composes; an ask meanwhile waits for its body; the body stays here until
    // its Cache API write has landed. The wait is by looking, on a timer of the waiting
    // request's own, never by awaiting a promise of the composing one: workerd cancels such
    // a continuation when the other request ends (request-context.ts).
    const pending = this.pending;
    this.letGo = (keys) => {
      for (const k of keys) if (pending.get(k) && !pending.get(k)!.entry) pending.delete(k); // no 200 to share
    };
    const shared: SharedBodies = {
      async get(key, coding) {
        const k = `${coding} ${key}`;
        let p = pending.get(k);
        // The first ask marks the key before it looks in the Cache API: asks that arrive
        // while it looks wait for it instead of looking, missing and reading R2 too (twenty
        // asks at one moment all passed the check before any had marked: 40 R2 reads).
        const marker: Pending | undefined = p ? undefined : { since: Date.now() };
        if (marker) pending.set(k, marker);
        // A marker older than WAIT_MS is one whose request ended without a word (cancelled).
        for (let waited = 0; !marker && p && !p.entry && waited < WAIT_MS && Date.now() - p.since < WAIT_MS; waited += POLL_MS) {
          await sleep(POLL_MS);
          p = pending.get(k);
        }
        if (!marker && p?.entry) {
          stats.cache_coalesced++;
          return p.entry;
        }
        subrequest();
        let r: Response | undefined;
        try {
          r = await caches.default.match(cacheRequest(key, coding));
        } catch (e) {
          if (marker && pending.get(k) === marker) pending.delete(k);
          throw e;
        }
        if (!r) {
          stats.cache_misses++;
          // This ask composes the body: its marker stays (put replaces it, or letGo drops it).
          if (!marker || pending.get(k) !== marker) pending.set(k, { since: Date.now() });
          requestContext.getStore()?.misses.push(k);
          return undefined;
        }
        // A hit: the waiters, once the marker is gone, find the body in the Cache API too.
        if (marker && pending.get(k) === marker) pending.delete(k);
        stats.cache_hits++;
        return { body: Buffer.from(await r.arrayBuffer()), coding: (r.headers.get('x-coding') ?? '') as Coding, hash: r.headers.get('x-hash') ?? '' };
      },
      async put(key, coding, e) {
        const k = `${coding} ${key}`;
        const p: Pending = { since: Date.now(), entry: { body: typeof e.body === 'string' ? Buffer.from(e.body) : e.body, coding: e.coding, hash: e.hash } };
        pending.set(k, p);
        stats.cache_puts++;
        subrequest();
        try {
          // The key names the release, so the entry never changes: a year, as immutable files.
          await caches.default.put(cacheRequest(key, coding), new Response(p.entry!.body as unknown as BodyInit, {
            headers: { 'cache-control': 'public, max-age=31536000, immutable', 'x-coding': e.coding, 'x-hash': e.hash },
          }));
        } finally {
          if (pending.get(k) === p) pending.delete(k);
        }
      },
    };
    this.core = createCore({
      release: () => this.current(env),
      state: this.state,
      log: (m) => console.error(m),
      responseCacheBytes: this.budgets.responses,
      shared,
    });
  }

  /** The operator's /_edge/stats: R2 reads, Cache API use and what the shard cache holds. */
  stats() {
    return {
      r2_reads: this.reader.reads, r2_bytes: this.reader.bytes, ...this.cache, cache_pending: this.pending.size,
      shard_cache_bytes: this.release?.cacheStats().bytes ?? 0, budgets: this.budgets, release: this.release?.id ?? null,
    };
  }

  /** The live release: the one `current` names, re-read every REFRESH_SECONDS; a switch takes effect from then. */
  async current(env: Env): Promise<Release> {
    if (this.release && Date.now() - this.checked < this.refreshMs) return this.release;
    const id = (await this.reader.text('current'))?.trim();
    this.checked = Date.now();
    if (!id) {
      if (this.release) return this.release;
      throw new ApiError('release_unavailable', 'no release has been published to this deployment yet (npm run release:publish)');
    }
    if (id !== this.release?.id) {
      const text = await this.reader.text(releaseBase(id) + MANIFEST);
      if (!text) throw new ApiError('release_unavailable', `release ${id} has no manifest in the bucket`, { release: id });
      const manifest = JSON.parse(text) as Manifest;
      const r = new Release(this.reader, { id, base: releaseBase(id), manifest, cacheBytes: this.budgets.shard });
      r.onCorrupt = (file) => console.error(`release ${id}: ${file} is not what its manifest says; it answers 503 release_corrupt`);
      this.release = r;
    }
    return this.release;
  }
}

let isolate: Isolate | undefined;

let dated = { second: -1, text: '' };
/** The Date header's value, formatted once a second. */
function httpDate(): string {
  const now = Date.now();
  const second = Math.floor(now / 1000);
  if (second !== dated.second) dated = { second, text: new Date(now).toUTCString() };
  return dated.text;
}

/**
 * A CoreResponse as a fetch Response (headers from the flat list; a stream passed
 * through). Its bytes go out as the core made them (`encodeBody: "manual"`): the core
 * already compressed what is worth it, in the coding the client takes, under that
 * coding's ETag; left to itself the runtime would compress a br body a second time, and
 * compress small bodies the core keeps identity.
 */
function toResponse(r: CoreResponse): Response {
  const headers = new Headers();
  for (let i = 0; i < r.headers.length; i += 2) headers.append(r.headers[i], r.headers[i + 1]);
  // RFC 9110 §6.6.1: an origin with a clock sends Date (the Node server does; workerd does not add it).
  headers.set('date', httpDate());
  const body = (r.stream as ReadableStream | undefined) ?? (r.body === undefined ? null : r.body);
  return new Response(body as BodyInit | null, { status: r.status, headers, encodeBody: 'manual' } as ResponseInit);
}

/**
 * The request as the core reads it. Cloudflare's front end rewrites Accept-Encoding
 * before a Worker sees it (always "br, gzip" for clients that take either) and keeps what
 * the client sent in `request.cf.clientAcceptEncoding`: the core negotiates on that, as
 * the Node server does on the header, so both send the same representation.
 */
function coreRequest(request: Request, url: URL): CoreRequest {
  const client = (request as Request & { cf?: { clientAcceptEncoding?: string } }).cf?.clientAcceptEncoding;
  return {
    method: request.method,
    url: url.pathname + url.search,
    header: (name) => (name === 'accept-encoding' && client !== undefined ? client || undefined : request.headers.get(name) ?? undefined),
  };
}

export default {
  async fetch(request: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
    const iso = (isolate ??= new Isolate(env));
    const url = new URL(request.url);
    const req = coreRequest(request, url);
    if (url.pathname.startsWith('/_edge/')) return toResponse(await admin(request, req, env, iso));
    const c = newContext();
    try {
      const out = toResponse(await requestContext.run(c, () => iso.core.handle(req, (p) => ctx.waitUntil(p))));
      if (env.EXPOSE_COUNTS === '1') {
        out.headers.set('x-edge-subrequests', String(c.subrequests));
        out.headers.set('x-edge-r2-bytes', String(c.r2Bytes));
      }
      return out;
    } finally {
      if (c.misses.length) iso.letGo(c.misses);
    }
  },
};
