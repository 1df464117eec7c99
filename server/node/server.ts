/**
 * The Node adapter: node:http in front of the app core (core/app.ts). It turns each
 * IncomingMessage into a CoreRequest and writes the CoreResponse back, answers what
 * never reaches the core (oversized, malformed or too-slow requests) with the same
 * envelope, reads releases from dist/ (release/fs-reader.ts) and switches to a new one
 * when `dist/current` changes, and supplies the state: the state folder (keys.json and
 * the quota journal, one server per folder), a cluster primary, or Redis. Around the core
 * (issue 38): the lanes (admission.ts), the access log and request ids (access-log.ts),
 * readiness, and the drain on close. sirv is used only as the baseline in bench/serve.ts.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { mkdirSync, unwatchFile, watchFile } from 'node:fs';
import path from 'node:path';
import { currentPointer } from '../../pipeline/paths.ts';
import type { DatasetSource } from '../../sources/contract.ts';
import { createCore, type Core } from '../core/app.ts';
import { warmStudyPanels } from '../api/v1/study-panels.ts';
import { warmStudy } from '../api/v1/study-warm.ts';
import { localState } from '../core/state.ts';
import { ApiError } from '../http/errors.ts';
import { fsRelease } from '../release/fs-reader.ts';
import { Admission, laneSizes } from './admission.ts';
import { AccessLog, requestId } from './access-log.ts';
import { NodeRequest, answerLogged } from './http-io.ts';
import { HEADERS_TIMEOUT_MS, answerTransportErrors, serverLimits } from './transport.ts';
import type { Release } from '../release/release.ts';
import type { CoreResponse } from '../http/request.ts';
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
  /**
   * Check the release's files against their sha256 in the background once its search
   * indexes are warm (release/background-check.ts); default: unless ALMANAC_VERIFY=off.
   */
  verify?: boolean;
  /** Milliseconds between checks of keys.json (default 1000: a revoke applies within a second; 0: each event-loop turn, for tests of CLI flows). */
  keysCheckMs?: number;
  /** One line per request (node/access-log.ts; `npm run serve` makes it from ALMANAC_ACCESS_LOG); none: no access log. */
  accessLog?: AccessLog;
}

export interface App {
  server: Server;
  core: Core;
  /** The lanes requests wait in (tests look at their queues). */
  admission: Admission;
  keys: KeyStore;
  quota: QuotaStore;
  release: () => Release;
  /** Loads the live release's search indexes and checks its study panels (after listening); /readyz says `warming` until done. */
  warm: () => void;
  /** Why the server is not ready for traffic (/readyz): empty when it is. */
  ready: () => string[];
  /**
   * Stops accepting, lets the responses in flight finish for up to `drainMs` (default 0:
   * closes every connection at once), then closes the state (issue 38, item 4).
   */
  close: (drainMs?: number) => Promise<void>;
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
  /** Why a count could not be taken now (Redis unreachable, the primary's disk full), for /readyz; undefined when it can. */
  ready?: () => string | undefined;
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
    // Whether a count could be written now, probed at most once a second (a /readyz flood costs nothing more).
    let probed = 0, why: string | undefined;
    const stateReady = () => {
      if (Date.now() - probed >= 1000) {
        probed = Date.now();
        why = quota.probe();
      }
      return why;
    };
    const app = assemble(opts, log, charger, () => {
      quota.close();
      unlock();
    }, undefined, stateReady);
    return { ...app, quota };
  } catch (err) {
    unlock();
    throw err;
  }
}

/** The HTTP side of a worker: keys and release of its own, limits and counts through `shared`. */
export function createWorkerApp(opts: AppOptions, shared: SharedLimits): WorkerApp {
  const log = opts.log ?? ((m: string) => console.error(m));
  return assemble(opts, log, shared.charger, () => shared.close?.(), shared.keys, shared.ready);
}

function assemble(opts: AppOptions, log: (m: string) => void, charger: Charger, onClose: () => void, sharedKeys?: KeyStore, stateReady?: () => string | undefined): WorkerApp {
  const keys = sharedKeys ?? new KeyStore(opts.stateDir, log, { now: opts.now, checkMs: opts.keysCheckMs });
  const watched = (r: Release) => {
    r.onCorrupt = (file) => log(`release ${r.id}: ${file} does not match its manifest checksum; it answers 503 release_corrupt and /healthz reports degraded`);
    return r;
  };
  const cacheBytes = Number(process.env.ALMANAC_CACHE_MB ?? 256) * 2 ** 20;
  let release = watched(opts.release ?? fsRelease(opts.dist, cacheBytes));
  let draining = false;
  let warming = false;
  const verify = opts.verify ?? process.env.ALMANAC_VERIFY !== 'off';
  const reviewsNow = () => {
    const r = reviewsIn(opts.stateDir);
    r.reload();
    return r;
  };
  const warm = () => {
    const r = release;
    warming = true;
    const search = r.warmSearch().catch((err) => log(`warming the search indexes of ${r.id} failed: ${(err as Error).message}`));
    // Then a study composed once (api/v1/study-warm.ts): a first study no longer pays for the path's first run.
    void search.then(() => warmStudyPanels(r)).then(() => (release === r ? warmStudy(r, (url, uncached) => core.rehearse(url, uncached)) : undefined)).catch(() => {}).finally(() => {
      if (release === r) warming = false;
      if (verify) check(r);
    });
  };
  /** The release's files checked in the background (after its warm: index loads go first), until it is replaced or the server closes. */
  const check = (r: Release) => {
    const stopped = () => release !== r || draining;
    if (stopped()) return;
    void r.checkInBackground(stopped)?.then((c) => {
      if (!c.stopped) log(`release ${r.id}: ${c.checked} files (${(c.bytes / 2 ** 20).toFixed(0)} MiB) checked against their sha256 in the background in ${(c.ms / 1000).toFixed(1)} s${c.corrupt ? `, ${c.corrupt} corrupt` : ''}`);
    });
  };
  /** Readiness (issue 38, item 7): not while draining, warming the search indexes, or unable to count. */
  const ready = () => {
    const why: string[] = [];
    if (draining) why.push('draining: the server is shutting down');
    if (warming) why.push(`warming: the search indexes of release ${release.id} are loading`);
    const state = stateReady?.();
    if (state) why.push(state);
    return why;
  };
  // A few requests at a time per cost class, /healthz never queued (admission.ts says why).
  const admission = new Admission(laneSizes());
  const core = createCore({
    gate: admission,
    ready,
    release: () => release,
    state: localState(keys, charger, reviewsNow),
    log,
    open: opts.open,
    extraSources: opts.extraSources,
    responseCacheBytes: Number(process.env.ALMANAC_RESPONSE_CACHE_MB ?? 64) * 2 ** 20,
  });

  // Nightly rebuilds switch dist/current; pick the new release up without a restart.
  const pointer = currentPointer(opts.dist);
  if (!opts.release) watchFile(pointer, { interval: 1000 }, () => {
    try {
      release = watched(fsRelease(opts.dist, cacheBytes));
      warm();
    } catch (err) {
      log(`release reload failed, still serving ${release.id}: ${(err as Error).message}`);
    }
  });

  const access = opts.accessLog?.on ? opts.accessLog : undefined;
  const answer = (res: ServerResponse, r: NodeRequest, out: CoreResponse) => answerLogged(res, r, out, draining, access);
  function handle(req: IncomingMessage, res: ServerResponse) {
    const r = new NodeRequest(req, requestId(req.headers['x-request-id']));
    if (access) r.start = performance.now();
    // Node's own check answers a bare 400; ours answers with the envelope.
    if (!req.headers.host && req.httpVersionMinor >= 1) return answer(res, r, core.error(r, new ApiError('bad_request', 'the Host header is required (HTTP/1.1)')));
    const out = core.respond(r);
    if (!(out instanceof Promise)) return answer(res, r, out);
    out.then((o) => answer(res, r, o), (err) => {
      log(`request ${r.id}: internal error writing ${req.method} ${(req.url ?? '').split('?')[0].slice(0, 200)}: ${(err as Error).stack}`);
      res.destroy();
      // Logged as the server's failure (the client did not leave first: not `aborted`).
      if (!access) return;
      r.status ||= 500;
      access.log(r);
    });
  }

  const headersTimeout = opts.headersTimeoutMs ?? HEADERS_TIMEOUT_MS;
  const server = createServer(serverLimits(headersTimeout), handle);
  /** A request node:http answered itself: logged with what is known of it. */
  const rawLogged = (status: number, bytes: number, id: string, socket: Duplex) => access?.log({
    id, method: '-', url: '-', status, bytes, start: performance.now(), ip: (socket as { remoteAddress?: string }).remoteAddress,
  });
  // Oversized, malformed or too-slow requests, and CONNECT, never reach `handle`: the envelope too.
  answerTransportErrors(server, headersTimeout, rawLogged);

  // The server's connections, for the drain (node:http's own list is private).
  const sockets = new Set<Socket>();
  server.on('connection', (sock: Socket) => {
    sockets.add(sock);
    sock.once('close', () => sockets.delete(sock));
  });
  /**
   * node:http's closeIdleConnections, which its close() calls, destroys a connection whose
   * response was ended but not yet flushed, so a body still in the server's buffers is cut
   * (issue 38, item 4: a 3.7 MB body stopped at 3.5 MB). Idle here means no response on the
   * connection (node detaches it once its last byte is handed to the kernel) and nothing
   * buffered; those are closed, the others are left to finish.
   */
  const closeIdle = () => {
    for (const sock of sockets) if (!(sock as { _httpMessage?: unknown })._httpMessage && sock.writableLength === 0) sock.destroy();
  };
  server.closeIdleConnections = closeIdle;

  let closed: Promise<void> | undefined;
  /**
   * Graceful stop (issue 38, item 4): no new connections, idle ones closed, each response
   * in flight finished (its connection closed after it: responses written while draining
   * say Connection: close), and at `drainMs` whatever is left is cut. The state closes last,
   * so every request answered is counted.
   */
  const close = (drainMs = 0) => (closed ??= new Promise<void>((resolve) => {
    draining = true;
    unwatchFile(pointer);
    let cut: NodeJS.Timeout | undefined, sweep: NodeJS.Timeout | undefined;
    server.close(() => {
      clearTimeout(cut);
      clearInterval(sweep);
      opts.accessLog?.flushSync();
      onClose();
      resolve();
    });
    if (drainMs <= 0) return server.closeAllConnections();
    // Kept-alive connections whose last response was written before the drain close once it is flushed.
    sweep = setInterval(closeIdle, 50);
    cut = setTimeout(() => {
      log(`drain: responses still in flight after ${drainMs} ms are cut`);
      server.closeAllConnections();
    }, drainMs);
  }));

  return { server, core, admission, keys, release: () => release, warm, ready, close };
}

