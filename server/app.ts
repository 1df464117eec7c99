/**
 * The read server: parse → authenticate → limit → resolve → send, each a small step.
 * Built on node:http alone; sirv is used only as the baseline in bench/serve.ts.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { mkdirSync, unwatchFile, watchFile } from 'node:fs';
import path from 'node:path';
import { tryLock } from './state/lock.ts';
import { currentPointer } from '../pipeline/paths.ts';
import { authenticate, Limits, SCRIPTURE_CREDENTIALS, TurnBatcher, type Chargeable, type Charger } from './auth.ts';
import { PUBLIC, SCRIPTURE, SURFACES, platformSurface } from './surfaces.ts';
import { ROUTES, datasetRoutes } from './routes.ts';
import type { DatasetSource } from '../sources/contract.ts';
import { meterOf, type Caller } from './state/accounts.ts';
import { ApiError } from './errors.ts';
import { PREFLIGHT_HEADERS, hashOf, releaseFile, select, sendError, sendRepresentation, type HeaderList, type Representable } from './http.ts';
import { Encoded } from './encoding.ts';
import { policyHeaders, type ResponseKind } from './cache-policy.ts';
import { dataAge, isStale } from './handlers.ts';
import type { Route } from './routes.ts';
import type { DatasetInfo } from '../pipeline/shards.ts';
import { parseQuery } from './query.ts';
import { sendDownload } from './downloads.ts';
import { docsPath, sendDocs } from './docs.ts';
import { Lru } from './lru.ts';
import { Release } from './release.ts';
import { KeyStore } from './state/keys.ts';
import { QuotaStore } from './state/quota.ts';
import type { QuotaView } from './handlers.ts';

export interface AppOptions {
  dist: string;
  stateDir: string;
  /** Where unexpected faults are reported (never with credentials). */
  log?: (msg: string) => void;
  quota?: ConstructorParameters<typeof QuotaStore>[1];
  /** Test-only datasets served beside the real ones (their routes are added to /apis). */
  extraSources?: DatasetSource<any>[];
  /** Milliseconds a client has to send its request headers before a 408 (default 10 s). */
  headersTimeoutMs?: number;
  /** Serve this release instead of dist's live one (an offline bundle: `serve --bundle`); it is never reloaded. */
  release?: Release;
  /** No keys and no counting (`serve --open`, for local use of a bundle): every request acts as OPEN_KEY. */
  open?: boolean;
  /** The clock of access checks and limits (tests move it past a subscription's or exception's end). */
  now?: () => number;
}

/** The caller of every request in open mode (/api/v1/key describes it; nothing is counted). */
export const OPEN_KEY: Caller = { id: 'open', hash: '', plan: 'development', status: 'active', label: 'open mode (serve --open)', created: '1970-01-01T00:00:00.000Z' };

/** Which row of the cache policy (server/cache-policy.ts) a route's answers follow. */
export function kindOf(route: Route, info: DatasetInfo | undefined): ResponseKind {
  return route.policy ?? (route.auth === false ? 'document' : info?.live ? 'live' : 'reference');
}

/** Which live datasets of the release are stale right now, as a short string (recomputed once a second). */
const staleMemo = new WeakMap<Release, { second: number; sig: string }>();
function staleSignature(rel: Release, now: number): string {
  const second = Math.floor(now / 1000);
  const m = staleMemo.get(rel);
  if (m && m.second === second) return m.sig;
  let sig = '';
  for (const i of rel.datasets.values()) if (i.live) sig += isStale(i, now) ? '1' : '0';
  staleMemo.set(rel, { second, sig });
  return sig;
}

export interface App {
  server: Server;
  keys: KeyStore;
  quota: QuotaStore;
  release: () => Release;
  close: () => Promise<void>;
}

/** A worker of `serve --workers N` (server/cluster.ts): the primary holds the lock and counts. */
export interface WorkerApp extends Omit<App, 'quota'> {
  quota: QuotaView;
}

/** Limits and counts owned elsewhere (the cluster primary), for createWorkerApp. */
export interface SharedLimits {
  charger: Charger;
  quota: QuotaView;
  /** Called when the app closes (a Redis connection). */
  close?: () => void;
  /** The keys document held elsewhere (ALMANAC_REDIS_URL: state/redis-state.ts); else keys.json. */
  keys?: KeyStore;
}

const MAX_HEADER_BYTES = 16 * 1024;
/** README "HTTP edges": headers within 10 s (408 after), a whole request within 30 s. */
export const HEADERS_TIMEOUT_MS = 10_000;
export const REQUEST_TIMEOUT_MS = 30_000;

/**
 * Builds the server. Throws, naming the file and the fix, when the state folder is held
 * by another server or holds state it cannot trust, or when the release is incomplete.
 */
export function createApp(opts: AppOptions): App {
  const log = opts.log ?? ((m: string) => console.error(m));
  // One server per state folder: two would append to and compact one journal.
  mkdirSync(opts.stateDir, { recursive: true }); // a fresh ALMANAC_STATE_DIR is made, not refused
  const unlock = tryLock(path.join(opts.stateDir, 'server.lock'), log);
  let quota: QuotaStore;
  try {
    quota = new QuotaStore(opts.stateDir, { log, ...opts.quota });
    quota.open();
    const limits = new Limits(quota);
    // ALMANAC_TURN_BATCH=0 charges each request on its own (bench/serve.ts compares).
    const charger = process.env.ALMANAC_TURN_BATCH === '0' ? limits : new TurnBatcher((keys, now) => limits.chargeMany(keys, now));
    const app = assemble(opts, log, quota, charger, () => {
      quota.close();
      unlock();
    });
    return { ...app, quota };
  } catch (err) {
    unlock();
    throw err;
  }
}

/** The HTTP side of a worker: keys and release of its own, limits and counts through `shared`. */
export function createWorkerApp(opts: AppOptions, shared: SharedLimits): WorkerApp {
  const log = opts.log ?? ((m: string) => console.error(m));
  return { ...assemble(opts, log, shared.quota, shared.charger, () => shared.close?.(), shared.keys), quota: shared.quota };
}

function assemble(opts: AppOptions, log: (m: string) => void, quota: QuotaView, limits: Charger, onClose: () => void, sharedKeys?: KeyStore): Omit<App, 'quota'> {
  const keys = sharedKeys ?? new KeyStore(opts.stateDir, log, { now: opts.now });
  let release = watched(opts.release ?? new Release(opts.dist));
  function watched(r: Release) {
    r.onCorrupt = (file) => log(`release ${r.id}: ${file} does not match its manifest checksum; it answers 503 release_corrupt and /healthz reports degraded`);
    return r;
  }
  const surfaces = opts.extraSources?.length
    ? [platformSurface([...ROUTES.filter((r) => r.path.startsWith('/apis')), ...opts.extraSources.flatMap(datasetRoutes)]), SCRIPTURE]
    : SURFACES;
  // Handlers are pure functions of (release, URL), so a finished body and its ETag can be
  // reused for the next request of the same URL. bench/serve.ts measures what this buys.
  // Each entry holds the body and, once asked for, its br and gzip forms (server/encoding.ts).
  const responses = new Lru<Encoded>(Number(process.env.ALMANAC_RESPONSE_CACHE_MB ?? 64) * 2 ** 20);
  const cacheResponse = (k: string, e: Encoded) => responses.set(k, e, e.bytes + k.length + 64);

  // Nightly rebuilds switch dist/current; pick the new release up without a restart.
  const pointer = currentPointer(opts.dist);
  if (!opts.release) watchFile(pointer, { interval: 1000 }, () => {
    try {
      const next = watched(new Release(opts.dist));
      release = next;
      void next.warmSearch().catch((err) => log(`warming the search indexes of ${next.id} failed: ${(err as Error).message}`));
    } catch (err) {
      log(`release reload failed, still serving ${release.id}: ${(err as Error).message}`);
    }
  });
  let stateWarned = 0;

  async function handle(req: IncomingMessage, res: ServerResponse) {
    let limitHeaders: HeaderList = [];
    /** The key to bill once the answer is known (never for /api/v1/key, a 304, or a 429). */
    let billKey: Chargeable | undefined;
    try {
      if (req.method === 'OPTIONS') {
        res.writeHead(204, PREFLIGHT_HEADERS);
        res.end();
        return;
      }
      // Node's own check answers a bare 400; ours answers with the envelope.
      if (!req.headers.host && req.httpVersionMinor >= 1) throw new ApiError('bad_request', 'the Host header is required (HTTP/1.1)');
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        throw new ApiError('method_not_allowed', `method ${req.method} is not allowed`, undefined, { allow: 'GET, HEAD, OPTIONS' });
      }
      const url = req.url ?? '/';
      const qi = url.indexOf('?');
      const rawPath = qi === -1 ? url : url.slice(0, qi);
      const search = new URLSearchParams(qi === -1 ? undefined : url.slice(qi + 1));
      // The docs page: static files of the release, public and never counted (server/docs.ts).
      const docs = docsPath(rawPath);
      if (docs) return sendDocs(req, res, release, docs);
      const surface = surfaces.find((s) => s.owns(rawPath)) ?? PUBLIC;
      const match = surface.router.match(rawPath);
      // Authenticate before revealing whether a path exists.
      let key: Caller | undefined;
      // The OpenAPI documents are public (auth: false) although they sit under the surfaces.
      const keyed = !!surface.credentials && match?.route.auth !== false;
      // /api/v1/key is never billed; a conditional request may end as a free 304 (README "Plans and limits").
      const free = match?.route.billed === false;
      if (keyed && opts.open) key = OPEN_KEY;
      else if (keyed) {
        // One stat of keys.json per event-loop turn: a revoke applies from the next turn.
        keys.reloadPerTurn();
        const now = keys.now();
        key = authenticate(req, search, keys, surface.credentials!, now);
        // Usage is counted per project (under its first key's id), so a rotation keeps the month's count.
        const metered = { id: meterOf(key), plan: key.plan };
        // A request that may end unbilled (/api/v1/key, a conditional one) is admitted now and billed once its answer is known.
        const deferred = free || !!req.headers['if-none-match'];
        const charged = limits.charge(deferred ? { ...metered, mode: 'admit' } : metered, now);
        limitHeaders = (charged instanceof Promise ? await charged : charged).headers;
        if (deferred && !free) billKey = metered;
      }
      // The key= credential is not a query parameter of any endpoint.
      if (surface.credentials === SCRIPTURE_CREDENTIALS) search.delete('key');
      if (!match) throw surface.notFound(rawPath);
      const { route, params } = match;
      const rel = release;
      if (route.dataset && !rel.datasets.has(route.dataset)) {
        throw new ApiError('dataset_unavailable', `dataset '${route.dataset}' is not in the live release`, {
          dataset: route.dataset, reason: rel.absent[route.dataset] ?? 'not built',
        });
      }
      const info = route.dataset ? rel.datasets.get(route.dataset) : undefined;
      const now = Date.now();
      const headers = policyHeaders(kindOf(route, info), info);
      if (info?.live) {
        const age = dataAge(info, now);
        if (age !== null) headers.push('data-age', String(age));
      }
      /** Bills the request (unless free) just before a billed answer is sent. */
      const bill = async () => {
        const k = billKey;
        billKey = undefined;
        if (!k) return limitHeaders;
        const charged = limits.charge({ ...k, mode: 'bill' }, now);
        return (charged instanceof Promise ? await charged : charged).headers;
      };
      const cacheable = route.auth && route.cache !== false;
      // Staleness flips at most once per release and dataset: part of the key, so a cached body never says stale wrongly.
      const cacheKey = cacheable ? `${rel.id} ${staleSignature(rel, now)} ${rawPath}?${search}` : '';
      let body: Representable | undefined = cacheable ? responses.get(cacheKey) : undefined;
      if (!body) {
        const query = parseQuery(search, route.query);
        const replied = route.handler({ release: rel, params, query, path: rawPath, key, quota });
        const reply = replied instanceof Promise ? await replied : replied;
        // Awaited inside the try: its Range errors (416) answer with the envelope.
        if (reply.kind === 'download') return await sendDownload(req, res, reply, headers, limitHeaders, bill);
        if (reply.kind === 'file') {
          if (!rel.entry(reply.path)) throw new ApiError('not_found', 'this file is not part of the served release'); // a partial offline bundle
          body = releaseFile(rel, reply.path);
        } else {
          // A handler may know its body's identity more cheaply than hashing it (a 3 MB study range).
          const encoded = new Encoded(reply.body, reply.etag ?? hashOf(reply.body));
          if (cacheable) cacheResponse(cacheKey, encoded);
          body = encoded;
        }
      }
      const sel = select(req, body);
      if (!sel.notModified && billKey) limitHeaders = await bill();
      const size = body instanceof Encoded ? body.bytes : 0;
      for (let i = 0; i < limitHeaders.length; i++) headers.push(limitHeaders[i]);
      const sent = sendRepresentation(req, res, body, sel, headers);
      if (sent) await sent;
      // A compressed form was just made: account for its bytes in the cache budget.
      if (body instanceof Encoded && cacheable && body.bytes !== size) cacheResponse(cacheKey, body);
    } catch (thrown) {
      let err = thrown;
      // An error answered to a key is billed like any other answer (README "Plans and limits"),
      // except the limits' own refusals; a month used up turns it into the 429.
      if (billKey && err instanceof ApiError && err.status !== 429 && err.code !== 'state_unavailable') {
        try {
          const charged = limits.charge({ ...billKey, mode: 'bill' });
          limitHeaders = (charged instanceof Promise ? await charged : charged).headers;
        } catch (billing) {
          err = billing;
        }
      }
      if (err instanceof ApiError) {
        if (err.code === 'state_unavailable' && Date.now() - stateWarned > 10_000) {
          stateWarned = Date.now();
          log(`quota journal write failed; requests answer 503 state_unavailable and are not billed`);
        }
        return sendError(req, res, err, limitHeaders);
      }
      log(`internal error on ${req.method} ${(req.url ?? '').split('?')[0].slice(0, 200)}: ${(err as Error).stack}`);
      sendError(req, res, new ApiError('internal_error', 'internal error'), limitHeaders);
    }
  }

  const headersTimeout = opts.headersTimeoutMs ?? HEADERS_TIMEOUT_MS;
  const server = createServer({
    maxHeaderSize: MAX_HEADER_BYTES,
    requireHostHeader: false,
    headersTimeout,
    requestTimeout: Math.max(REQUEST_TIMEOUT_MS, headersTimeout + 1000),
    // Node checks the timeouts on this interval (default 30 s, which made a 10 s limit 40 s).
    connectionsCheckingInterval: Math.min(1000, headersTimeout),
  }, handle);
  // Oversized, malformed or too-slow requests never reach `handle`; answer them with the envelope too.
  server.on('clientError', (err: NodeJS.ErrnoException, socket) => {
    if (!socket.writable) return socket.destroy();
    const tooLarge = err.code === 'HPE_HEADER_OVERFLOW';
    const timeout = err.code === 'ERR_HTTP_REQUEST_TIMEOUT';
    const e = tooLarge
      ? new ApiError('headers_too_large', `request headers exceed ${MAX_HEADER_BYTES} bytes`)
      : timeout
        ? new ApiError('request_timeout', `the request headers did not arrive within ${headersTimeout / 1000} s`)
        : new ApiError('bad_request', 'malformed HTTP request');
    const body = JSON.stringify({ error: { code: e.code, message: e.message, status: e.status } });
    const reason = tooLarge ? 'Request Header Fields Too Large' : timeout ? 'Request Timeout' : 'Bad Request';
    socket.end(
      `HTTP/1.1 ${e.status} ${reason}\r\n` +
      `content-type: application/json; charset=utf-8\r\naccess-control-allow-origin: *\r\n` +
      `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
    );
  });

  return {
    server,
    keys,
    release: () => release,
    close: () => new Promise<void>((resolve) => {
      unwatchFile(pointer);
      server.close(() => {
        onClose();
        resolve();
      });
      server.closeAllConnections();
    }),
  };
}
