/**
 * `npm run edge`: the Worker in workerd on this machine (Miniflare, from the npm registry:
 * no network), with its R2 bucket, KV namespace, Durable Objects and Cache API stored
 * under <state folder>/edge/. It bundles the Worker (edge/bundle.ts), publishes the live
 * release of dist/ to the local bucket and syncs the keys and reviews of the state folder
 * (the same operator endpoints a deployment uses), then keeps both current: a new release
 * in dist/ is published and switched to, a key created or revoked with `npm run keys` is
 * synced, within a second. The bindings come from edge/wrangler.jsonc.
 *
 * Issue 39: clients reach it through a front door (edge/front.ts) that answers like the
 * Node server at the transport level; the ready line is printed only once a release is
 * published and the keys are synced (until then the Worker answers 503 not_ready); a
 * workerd that dies is started again (its state is on disk), and given up on — exit 1 —
 * when it keeps dying; Miniflare is kept off the network (`cf: false`: it fetched
 * Cloudflare's request metadata at every start). Issue 38, item 4: SIGTERM or SIGINT stop
 * accepting, let the answers in flight finish (ALMANAC_DRAIN_SECONDS, default 10), then exit.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import path from 'node:path';
import { Miniflare, type MiniflareOptions } from 'miniflare';
import { isMain, parseCli } from '../pipeline/cli.ts';
import { currentPointer, distDir, stateDir as defaultStateDir } from '../pipeline/paths.ts';
import { currentId } from '../server/release/fs-reader.ts';
import { bundleWorker, WORKER_BUNDLE } from './bundle.ts';
import { readWranglerConfig } from './config.ts';
import type { EdgeTarget } from '../server/cli/edge-push.ts';
import { startFront, type Front } from './front.ts';
import { publishRelease } from './publish.ts';
import { pullUsage, pushElsewhere, syncKeys, syncReviews } from './sync.ts';

export interface LocalEdge extends EdgeTarget {
  /** Where clients go: the front door. */
  url: string;
  /** workerd's own socket (benches measure the Worker without the front); it moves when workerd restarts. */
  direct: () => string;
  mf: () => Miniflare;
  /** Times workerd was found dead and started again. */
  restarts: () => number;
  /** Answers being sent through the front door now. */
  inFlight: () => number;
  /** Stops accepting, lets answers in flight finish within `deadlineMs` (default 10 s), stops workerd; resolves with the answers cut. */
  close(deadlineMs?: number): Promise<number>;
}

export interface LocalEdgeOptions {
  stateDir: string;
  dist?: string;
  host?: string;
  /** 0: any free port. */
  port?: number;
  /** Vars over wrangler.jsonc's (tests shrink the isolate caches). */
  vars?: Record<string, string>;
  /** Skip bundling when the bundle exists (tests bundle once). */
  bundled?: boolean;
  /** false: do not publish dist's live release at start (the caller publishes). */
  publish?: boolean;
  /** false: do not sync the keys and reviews at start (the caller syncs). */
  sync?: boolean;
  /** A port for workerd's V8 inspector (bench/edge.ts reads the isolate's heap through it). */
  inspectorPort?: number;
  log?: (m: string) => void;
  /** workerd keeps dying (RESTART_LIMIT times within a minute): given up on. Default: logged. */
  onFatal?: (err: Error) => void;
  /**
   * The caller stops the edge itself on SIGTERM and SIGINT (the CLI: close(), answers in
   * flight finished). Miniflare's own handlers, which kill workerd and exit at once, are
   * removed (they cut a 3.7 MB answer at 3.5 MB: issue 38, item 4); its exit hook stays.
   */
  ownSignals?: boolean;
}

/** Restarts of a dead workerd allowed within a minute before giving up. */
export const RESTART_LIMIT = 3;

/** The local operator token: made once, kept in the state folder beside the edge's storage. */
function adminToken(dir: string): string {
  const file = path.join(dir, 'admin-token');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const token = randomBytes(24).toString('base64url');
  writeFileSync(file, token + '\n', { mode: 0o600 });
  return token;
}

/** Whether something accepts connections at `url` (workerd's socket): a TCP connect, no request. */
function accepting(url: string): Promise<boolean> {
  const u = new URL(url);
  return new Promise((resolve) => {
    const s = connect({ host: u.hostname, port: Number(u.port) });
    const done = (ok: boolean) => (s.destroy(), resolve(ok));
    s.setTimeout(5000, () => done(true)); // slow under load is not dead
    s.once('connect', () => done(true));
    s.once('error', () => done(false));
  });
}

export async function startLocalEdge(o: LocalEdgeOptions): Promise<LocalEdge> {
  const log = o.log ?? ((m: string) => console.log(m));
  const dir = path.join(o.stateDir, 'edge');
  mkdirSync(dir, { recursive: true });
  if (!o.bundled || !existsSync(WORKER_BUNDLE)) await bundleWorker();
  const cfg = readWranglerConfig();
  const token = adminToken(dir);
  const options: MiniflareOptions = {
    name: cfg.name,
    modules: true,
    scriptPath: WORKER_BUNDLE,
    compatibilityDate: cfg.compatibility_date,
    compatibilityFlags: cfg.compatibility_flags,
    r2Buckets: cfg.r2_buckets.map((b) => b.binding),
    kvNamespaces: cfg.kv_namespaces.map((k) => k.binding),
    durableObjects: Object.fromEntries(cfg.durable_objects.bindings.map((d) => [d.name, { className: d.class_name, useSQLite: true }])),
    bindings: { ...cfg.vars, ...o.vars, ADMIN_TOKEN: token },
    r2Persist: path.join(dir, 'r2'),
    kvPersist: path.join(dir, 'kv'),
    durableObjectsPersist: path.join(dir, 'do'),
    cachePersist: path.join(dir, 'cache'),
    // Miniflare fetched https://workers.cloudflare.com/cf.json at every start (3 s when
    // offline, then a warning); the Worker reads nothing of request.cf but the client's
    // Accept-Encoding, which a direct socket does not set.
    cf: false,
    // Miniflare's own HTTP server (a random port, unused) re-encodes bodies and adds a
    // simulated Cloudflare front end; the Worker is served from workerd's own socket,
    // behind our front door (edge/front.ts), which passes bytes through as they are.
    port: 0,
    ...(o.inspectorPort ? { inspectorPort: o.inspectorPort } : {}),
    unsafeDirectSockets: [{ host: '127.0.0.1', port: 0, proxy: false }],
  };
  const boot = async () => {
    const before = { SIGINT: process.listeners('SIGINT'), SIGTERM: process.listeners('SIGTERM') };
    const m = new Miniflare(options);
    if (o.ownSignals) {
      for (const sig of ['SIGINT', 'SIGTERM'] as const) for (const l of process.listeners(sig)) if (!before[sig].includes(l)) process.removeListener(sig, l);
    }
    await m.ready;
    return { m, direct: (await m.unsafeGetDirectURL()).toString().replace(/\/$/, '') };
  };
  let { m: mf, direct } = await boot();
  let live = true;
  let front: Front;
  try {
    front = await startFront({ host: o.host ?? '127.0.0.1', port: o.port ?? 8787, upstream: () => (live ? new URL(direct) : undefined) });
  } catch (err) {
    await mf.dispose();
    const e = err as NodeJS.ErrnoException;
    throw e.code === 'EADDRINUSE' ? new Error(`${o.host ?? '127.0.0.1'}:${o.port ?? 8787} is already in use (another server?): stop it, or set PORT`) : e;
  }

  // A dead workerd (killed, crashed) is noticed within about two seconds and started
  // again on the same storage; one that keeps dying is given up on.
  const deaths: number[] = [];
  let restarts = 0;
  let closing = false;
  let checking = false;
  const watchdog = setInterval(async () => {
    if (checking || closing) return;
    checking = true;
    try {
      if (await accepting(direct) || closing) return;
      live = false;
      deaths.push(Date.now());
      while (deaths.length && deaths[0] < Date.now() - 60_000) deaths.shift();
      if (deaths.length > RESTART_LIMIT) {
        clearInterval(watchdog);
        const err = new Error(`workerd died ${deaths.length} times within a minute; giving up (its storage is in ${dir})`);
        return o.onFatal ? o.onFatal(err) : log(err.message);
      }
      log('edge: workerd is not answering (it died); starting it again');
      await mf.dispose().catch(() => undefined);
      ({ m: mf, direct } = await boot());
      restarts++;
      live = true;
      log(`edge: workerd started again (restart ${restarts})`);
    } catch (err) {
      log(`edge: starting workerd again failed: ${(err as Error).message}`);
    } finally {
      checking = false;
    }
  }, 1000);
  watchdog.unref();

  const edge: LocalEdge = {
    url: front.url, token, direct: () => direct, mf: () => mf, restarts: () => restarts, inFlight: () => front.inFlight(),
    async close(deadlineMs = 10_000) {
      closing = true;
      clearInterval(watchdog);
      const cut = await front.drain(deadlineMs);
      await mf.dispose();
      return cut;
    },
  };
  try {
    const dist = o.dist ?? distDir();
    // Through workerd's own socket: the front only adds a hop.
    const inside = { url: direct, token };
    if (o.publish !== false && currentId(dist)) await publishRelease({ ...inside, dist, log });
    if (o.sync !== false) {
      await syncKeys(inside, o.stateDir);
      await syncReviews(inside, o.stateDir);
    }
  } catch (err) {
    await edge.close(0);
    throw err;
  }
  return edge;
}

/**
 * Keeps the local edge current (a poll a second): publishes a new live release, syncs
 * changed keys and reviews, and exchanges the counts every `usageSeconds`: the meters'
 * into the state folder (`npm run keys -- usage` shows them, a Node server on the same
 * folder adds them), the Node server's to the meters (server/state/elsewhere.ts).
 * A step that fails is tried again on the next poll.
 */
export function follow(edge: LocalEdge, dist: string, dir: string, log: (m: string) => void, usageSeconds = 5): () => void {
  const stamp = (f: string) => (existsSync(f) ? `${statSync(f).mtimeMs}:${statSync(f).size}` : '');
  const files = { keys: path.join(dir, 'keys.json'), reviews: path.join(dir, 'reviews.json'), current: currentPointer(dist) };
  const seen = Object.fromEntries(Object.entries(files).map(([k, f]) => [k, stamp(f)])) as Record<keyof typeof files, string>;
  let busy = false;
  let pulled = 0;
  const sent = new Map<string, number>();
  const timer = setInterval(async () => {
    if (busy) return;
    busy = true;
    try {
      for (const k of Object.keys(files) as (keyof typeof files)[]) {
        const now = stamp(files[k]);
        if (now === seen[k]) continue;
        if (k === 'keys') log(`keys changed: ${JSON.stringify(await syncKeys(edge, dir))}`);
        else if (k === 'reviews') log(`reviews changed: ${await syncReviews(edge, dir)} synced`);
        else if (currentId(dist)) await publishRelease({ ...edge, dist, log });
        seen[k] = now; // only once done: a failed step is tried again
      }
      if (Date.now() - pulled >= usageSeconds * 1000) {
        pulled = Date.now();
        await pullUsage(edge, dir);
        await pushElsewhere(edge, dir, sent);
      }
    } catch (err) {
      log(`edge sync failed (retried in a second): ${(err as Error).message}`);
    } finally {
      busy = false;
    }
  }, 1000);
  return () => clearInterval(timer);
}

const USAGE = `usage: npm run edge

The API as a Cloudflare Worker, run locally in workerd (no account, no network): it
publishes dist/'s live release to a local R2 bucket, syncs the keys of the state folder,
prints a development key once both are there, and follows new releases and keys.

  PORT, HOST              where it listens (default 127.0.0.1:8787)
  ALMANAC_STATE_DIR       the state folder (default .state); the edge's storage is in its edge/
  ALMANAC_DIST            the releases (default dist/)
  ALMANAC_DRAIN_SECONDS   on SIGTERM or SIGINT, how long answers in flight may take (default 10)

docs/edge.md has the rest.`;

if (isMain(import.meta.url)) {
  parseCli('edge', USAGE, {});
  const dir = defaultStateDir();
  const dist = distDir();
  const fail = (err: Error) => {
    process.stderr.write(`edge: ${err.message}\n`, () => process.exit(1));
  };
  try {
    const { devKey } = await import('../server/cli/dev-key.ts');
    const edge = await startLocalEdge({ stateDir: dir, dist, port: Number(process.env.PORT ?? 8787), host: process.env.HOST, onFatal: fail, ownSignals: true });
    const key = devKey(process.env);
    await syncKeys(edge, dir);
    const unfollow = follow(edge, dist, dir, (m) => console.log(m));
    console.log(`edge: the Worker in workerd on ${edge.url} (R2, KV, Durable Objects and cache in ${path.join(dir, 'edge')})`);
    if (!currentId(dist)) console.log(`edge: dist/ has no release yet: keyed requests answer 503 not_ready until one is built (npm run build) and published here`);
    console.log(`development key (plan development): ${key}`);
    console.log(`${currentId(dist) ? 'ready' : 'keys synced'}; try: curl -H 'X-Service-Key: ${key}' ${edge.url}/apis/elements/Fe`);
    let stopping = false;
    const stop = async (signal: string) => {
      if (stopping) return;
      stopping = true;
      unfollow();
      const seconds = Number(process.env.ALMANAC_DRAIN_SECONDS ?? 10);
      console.log(`edge: ${signal}: accepting no more connections on ${edge.url}; finishing the ${edge.inFlight()} answer(s) in flight (up to ${seconds} s)`);
      const cut = await edge.close(seconds * 1000);
      // Written, then exit: stdout may be a pipe (npm, tsx), and exit() drops what is unwritten.
      process.stdout.write(`edge: stopped${cut ? ` (${cut} answer(s) cut at the deadline)` : ''}\n`, () => process.exit(0));
    };
    process.on('SIGINT', () => void stop('SIGINT'));
    process.on('SIGTERM', () => void stop('SIGTERM'));
  } catch (err) {
    fail(err as Error);
  }
}
