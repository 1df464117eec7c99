/**
 * The read server: parse → authenticate → limit → resolve → send, each a small step.
 * Built on node:http alone; sirv is used only as the baseline in bench/serve.ts.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { unwatchFile, watchFile } from 'node:fs';
import path from 'node:path';
import { tryLock } from './state/lock.ts';
import { currentPointer } from '../pipeline/paths.ts';
import { authenticate, Limits, SCRIPTURE_CREDENTIALS } from './auth.ts';
import { PUBLIC, SCRIPTURE, SURFACES, platformSurface } from './surfaces.ts';
import { ROUTES, datasetRoutes } from './routes.ts';
import type { DatasetSource } from '../sources/contract.ts';
import type { KeyRecord } from './state/keys.ts';
import { ApiError } from './errors.ts';
import { PREFLIGHT_HEADERS, etagOf, sendError, sendFile, sendJson, type HeaderList } from './http.ts';
import { parseQuery } from './query.ts';
import { sendDownload } from './downloads.ts';
import { docsPath, sendDocs } from './docs.ts';
import { Lru, Release } from './release.ts';
import { KeyStore } from './state/keys.ts';
import { QuotaStore } from './state/quota.ts';

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
}

/** The caller of every request in open mode (/api/v1/key describes it; nothing is counted). */
export const OPEN_KEY: KeyRecord = { id: 'open', hash: '', plan: 'development', status: 'active', label: 'open mode (serve --open)', created: '1970-01-01T00:00:00.000Z' };

export interface App {
  server: Server;
  keys: KeyStore;
  quota: QuotaStore;
  release: () => Release;
  close: () => Promise<void>;
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
  const unlock = tryLock(path.join(opts.stateDir, 'server.lock'), log);
  let keys: KeyStore;
  let quota: QuotaStore;
  let release: Release;
  try {
    keys = new KeyStore(opts.stateDir, log);
    quota = new QuotaStore(opts.stateDir, { log, ...opts.quota });
    quota.open();
    release = watched(opts.release ?? new Release(opts.dist));
  } catch (err) {
    unlock();
    throw err;
  }
  const limits = new Limits(quota);
  function watched(r: Release) {
    r.onCorrupt = (file) => log(`release ${r.id}: ${file} does not match its manifest checksum; it answers 503 release_corrupt and /healthz reports degraded`);
    return r;
  }
  const surfaces = opts.extraSources?.length
    ? [platformSurface([...ROUTES.filter((r) => r.path.startsWith('/apis')), ...opts.extraSources.flatMap(datasetRoutes)]), SCRIPTURE]
    : SURFACES;
  // Handlers are pure functions of (release, URL), so a finished body and its ETag can be
  // reused for the next request of the same URL. bench/serve.ts measures what this buys.
  const responses = new Lru<{ body: Buffer | string; etag: string }>(Number(process.env.ALMANAC_RESPONSE_CACHE_MB ?? 64) * 2 ** 20);

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
      let key: KeyRecord | undefined;
      // The OpenAPI documents are public (auth: false) although they sit under the surfaces.
      const keyed = !!surface.credentials && match?.route.auth !== false;
      if (keyed && opts.open) key = OPEN_KEY;
      else if (keyed) {
        // One stat of keys.json (about 2 µs): a revoke applies to the very next request.
        keys.reload();
        key = authenticate(req, search, keys, surface.credentials!);
        limitHeaders = limits.charge(key);
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
      const cacheable = route.auth && route.cache !== false;
      const cacheKey = `${rel.id} ${rawPath}?${search}`;
      const hit = cacheable ? responses.get(cacheKey) : undefined;
      if (hit) return sendJson(req, res, hit.body, hit.etag, limitHeaders);
      const query = parseQuery(search, route.query);
      const replied = route.handler({ release: rel, params, query, path: rawPath, key, quota });
      const reply = replied instanceof Promise ? await replied : replied;
      if (reply.kind === 'file') {
        if (!rel.entry(reply.path)) throw new ApiError('not_found', 'this file is not part of the served release'); // a partial offline bundle
        return sendFile(req, res, rel, reply.path, limitHeaders);
      }
      if (reply.kind === 'download') return sendDownload(req, res, reply, limitHeaders);
      const fresh = { body: reply.body, etag: etagOf(reply.body) };
      if (cacheable) responses.set(cacheKey, fresh, Buffer.byteLength(fresh.body) + cacheKey.length + 64);
      sendJson(req, res, fresh.body, fresh.etag, limitHeaders);
    } catch (err) {
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
    quota,
    release: () => release,
    close: () => new Promise<void>((resolve) => {
      unwatchFile(pointer);
      server.close(() => {
        quota.close();
        unlock();
        resolve();
      });
      server.closeAllConnections();
    }),
  };
}
