/**
 * The Node adapter: node:http in front of the app core (core/app.ts). It turns each
 * IncomingMessage into a CoreRequest and writes the CoreResponse back, answers what
 * never reaches the core (oversized, malformed or too-slow requests) with the same
 * envelope, reads releases from dist/ (release/fs-reader.ts) and switches to a new one
 * when `dist/current` changes, and supplies the state: the state folder (keys.json and
 * the quota journal, one server per folder), a cluster primary, or Redis.
 * sirv is used only as the baseline in bench/serve.ts.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { mkdirSync, unwatchFile, watchFile } from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { currentPointer } from '../../pipeline/paths.ts';
import type { DatasetSource } from '../../sources/contract.ts';
import { createCore, type Core } from '../core/app.ts';
import { localState } from '../core/state.ts';
import { ApiError } from '../http/errors.ts';
import type { CoreRequest, CoreResponse } from '../http/request.ts';
import { fsRelease } from '../release/fs-reader.ts';
import { Admission, maxActive } from './admission.ts';
import { HEADERS_TIMEOUT_MS, answerTransportErrors, serverLimits } from './transport.ts';
import type { Release } from '../release/release.ts';
import { KeyStore } from '../state/keys.ts';
import { Limits, TurnBatcher, type Charger } from '../state/limits.ts';
import { tryLock } from '../state/lock.ts';
import { QuotaStore } from '../state/quota.ts';
import { withElsewhere } from '../state/elsewhere.ts';
import { reviewsIn } from '../state/reviews.ts';

export { OPEN_KEY, kindOf } from '../core/app.ts';

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

export interface App {
  server: Server;
  core: Core;
  keys: KeyStore;
  quota: QuotaStore;
  release: () => Release;
  close: () => Promise<void>;
}

/** A worker of `serve --workers N` (node/cluster.ts), or a server counting in Redis: the counts are elsewhere. */
export type WorkerApp = Omit<App, 'quota'>;

/** Limits and counts owned elsewhere (the cluster primary, Redis), for createWorkerApp. */
export interface SharedLimits {
  charger: Charger;
  /** Called when the app closes (a Redis connection). */
  close?: () => void;
  /** The keys document held elsewhere (ALMANAC_REDIS_URL: state/redis-state.ts); else keys.json. */
  keys?: KeyStore;
}

export { HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS } from './transport.ts';

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
    // The edge's counts of the same keys, when it serves them too: one quota, the sum (state/elsewhere.ts).
    const limits = new Limits(withElsewhere(quota, opts.stateDir));
    // ALMANAC_TURN_BATCH=0 charges each request on its own (bench/serve.ts compares).
    const charger = process.env.ALMANAC_TURN_BATCH === '0' ? limits : new TurnBatcher((keys, now) => limits.chargeMany(keys, now));
    const app = assemble(opts, log, charger, () => {
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
  return assemble(opts, log, shared.charger, () => shared.close?.(), shared.keys);
}

/** A node:http request as the core reads it. */
class NodeRequest implements CoreRequest {
  constructor(private readonly req: IncomingMessage) {}
  get method() {
    return this.req.method ?? 'GET';
  }
  get url() {
    return this.req.url ?? '/';
  }
  header(name: string): string | undefined {
    // Node keeps only the first of repeated Authorization (and some other) fields; the
    // core must see every one (two different keys are a conflict, not "the first"), so
    // credential headers are joined from the raw lines as fetch's Headers joins them.
    if (name === 'authorization' || name === 'x-service-key' || name === 'x-scripture-key') return joinedRaw(this.req.rawHeaders, name);
    const v = this.req.headers[name];
    return Array.isArray(v) ? v.join(', ') : v;
  }
}

/** Every field line named `name` (lower case), joined with ", " (a scan of rawHeaders: no per-request object of every header). */
function joinedRaw(raw: string[], name: string): string | undefined {
  let out: string | undefined;
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i].length !== name.length || raw[i].toLowerCase() !== name) continue;
    out = out === undefined ? raw[i + 1] : `${out}, ${raw[i + 1]}`;
  }
  return out;
}

/** Writes a CoreResponse: headers as the flat list node:http takes, then the body or the stream. */
function write(res: ServerResponse, r: CoreResponse) {
  res.writeHead(r.status, r.headers);
  if (r.stream) {
    const s = r.stream as Readable;
    s.on('error', () => res.destroy());
    s.pipe(res);
  } else res.end(r.body);
}

function assemble(opts: AppOptions, log: (m: string) => void, charger: Charger, onClose: () => void, sharedKeys?: KeyStore): WorkerApp {
  const keys = sharedKeys ?? new KeyStore(opts.stateDir, log, { now: opts.now });
  const watched = (r: Release) => {
    r.onCorrupt = (file) => log(`release ${r.id}: ${file} does not match its manifest checksum; it answers 503 release_corrupt and /healthz reports degraded`);
    return r;
  };
  const cacheBytes = Number(process.env.ALMANAC_CACHE_MB ?? 256) * 2 ** 20;
  let release = watched(opts.release ?? fsRelease(opts.dist, cacheBytes));
  const core = createCore({
    release: () => release,
    state: localState(keys, charger, () => {
      const r = reviewsIn(opts.stateDir);
      r.reload();
      return r;
    }),
    log,
    open: opts.open,
    extraSources: opts.extraSources,
    responseCacheBytes: Number(process.env.ALMANAC_RESPONSE_CACHE_MB ?? 64) * 2 ** 20,
  });

  // Nightly rebuilds switch dist/current; pick the new release up without a restart.
  const pointer = currentPointer(opts.dist);
  if (!opts.release) watchFile(pointer, { interval: 1000 }, () => {
    try {
      const next = watched(fsRelease(opts.dist, cacheBytes));
      release = next;
      void next.warmSearch().catch((err) => log(`warming the search indexes of ${next.id} failed: ${(err as Error).message}`));
    } catch (err) {
      log(`release reload failed, still serving ${release.id}: ${(err as Error).message}`);
    }
  });

  // A few requests at a time, /healthz never queued (admission.ts says why).
  const admission = new Admission(maxActive());
  function handle(req: IncomingMessage, res: ServerResponse) {
    const r = new NodeRequest(req);
    // Node's own check answers a bare 400; ours answers with the envelope.
    if (!req.headers.host && req.httpVersionMinor >= 1) return write(res, core.error(r, new ApiError('bad_request', 'the Host header is required (HTTP/1.1)')));
    const url = req.url ?? '';
    const health = url === '/healthz' || url.startsWith('/healthz?');
    (health ? core.handle(r) : admission.run(() => core.handle(r))).then((out) => write(res, out), (err) => {
      log(`internal error writing ${req.method} ${(req.url ?? '').split('?')[0].slice(0, 200)}: ${(err as Error).stack}`);
      res.destroy();
    });
  }

  const headersTimeout = opts.headersTimeoutMs ?? HEADERS_TIMEOUT_MS;
  const server = createServer(serverLimits(headersTimeout), handle);
  // Oversized, malformed or too-slow requests, and CONNECT, never reach `handle`: the envelope too.
  answerTransportErrors(server, headersTimeout);

  return {
    server,
    core,
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
