/**
 * `npm run serve`: serve the live release on HOST:PORT (defaults 127.0.0.1:8080).
 * `npm run serve -- --bundle <dir>` serves an extracted offline bundle instead (see
 * reader/index.ts), and `--open` turns keys and counting off (for local use only).
 */
import type { Server } from 'node:http';
import { parseArgs } from 'node:util';
import { isMain, parseCli } from '../../pipeline/cli.ts';
import { distDir, stateDir } from '../../pipeline/paths.ts';
import type { Manifest } from '../../pipeline/writer.ts';
import { readBundle } from '../../reader/index.ts';
import { ALL_SOURCES } from '../../sources/index.ts';
import cluster from 'node:cluster';
import { createApp, createWorkerApp, type SharedLimits } from '../node/server.ts';
import { TurnBatcher } from '../state/limits.ts';
import { runPrimary, runWorker, workerCount } from '../node/cluster.ts';
import type { Release } from '../release/release.ts';
import { fsReleaseAt } from '../release/fs-reader.ts';
import { applyHeapGrowth, gcOnMainThread, givenToNode, heapHeadroom, keepHeapHeadroom } from '../node/heap.ts';
import { warmPasses } from '../api/v1/study-warm.ts';
import { AccessLog, accessLogSample } from '../node/access-log.ts';
import { drainMs, stopOnSignals } from '../node/stop.ts';

/** An extracted bundle as a Release: its merged archive metadata is the manifest; datasets it lacks answer 503. */
export function bundleRelease(dir: string): Release {
  const b = readBundle(dir);
  const absent: Record<string, string> = {};
  for (const s of ALL_SOURCES) if (!b.datasets[s.id]) absent[s.id] = b.absent[s.id] ?? `not in this bundle (archives: ${b.archives.join(', ')})`;
  const manifest: Manifest = { release: b.release, pipeline_version: b.pipeline_version, files: b.files, datasets: b.datasets, absent };
  return fsReleaseAt(b.root, manifest, undefined, { bundle: true });
}

const parse = (args: string[]) => parseArgs({ args, options: { bundle: { type: 'string' }, open: { type: 'boolean', default: false }, workers: { type: 'string' } } });

function options(env: NodeJS.ProcessEnv, args: string[]) {
  const { values } = parse(args);
  const opts = {
    dist: distDir(env), stateDir: stateDir(env), open: values.open,
    ...(values.bundle ? { release: bundleRelease(values.bundle) } : {}),
    accessLog: new AccessLog({ sample: accessLogSample(env) }),
  };
  return { values, opts, host: env.HOST ?? '127.0.0.1', port: Number(env.PORT ?? 8080) };
}

/**
 * The heap's growing factor (node/heap.ts), with its headroom kept when the factor is ours
 * (not node's own, not V8's choice); on one CPU, V8's collector on the main thread.
 */
function serverHeap(env: NodeJS.ProcessEnv) {
  gcOnMainThread(env);
  const headroom = heapHeadroom(env);
  const percent = applyHeapGrowth(env);
  if (percent !== null && !givenToNode(env)) keepHeapHeadroom(percent, headroom);
}

/** `npm run serve`: one process, or with `--workers N` a primary and N workers (server/cluster.ts). */
export async function serveMain(env: NodeJS.ProcessEnv, args: string[]) {
  serverHeap(env);
  warmPasses(env.ALMANAC_STUDY_WARM_PASSES); // checked before anything starts
  const redisUrl = env.ALMANAC_REDIS_URL;
  if (cluster.isWorker) {
    const { opts, host, port } = options(env, args);
    const own = redisUrl ? await redisShared(redisUrl, opts.stateDir) : undefined;
    return void await runWorker((shared) => createWorkerApp(opts, shared), opts.stateDir, host, port, own, drainMs(env));
  }
  const { values } = parse(args);
  const workers = workerCount(values.workers);
  const drain = drainMs(env); // checked before anything starts
  accessLogSample(env);
  if (workers === 1 && redisUrl) return void await serveRedis(env, args, redisUrl);
  if (workers === 1) return void await serve(env, args);
  // The workers read the release and the bundle; the primary only needs the state folder.
  const { opts, host } = options(env, args);
  // README "Scale-out": the primary holds the state folder and counts; workers serve.
  const p = await runPrimary({ stateDir: opts.stateDir, n: workers, redis: !!redisUrl, drainMs: drain });
  const what = values.bundle ? `bundle ${values.bundle} (release ${p.release})` : `release ${p.release}`;
  console.log(`serving ${what} on http://${host}:${p.port} with ${workers} workers (pids ${p.workers().join(' ')})${values.open ? ' with no keys (--open)' : ` (state in ${opts.stateDir})`}`);
  stopOnSignals(() => p.stop());
}

/**
 * Limits and counts in Redis (server/state/redis-limits.ts), charged once per turn; keys and
 * reviews read from Redis and kept current (server/state/redis-state.ts). The state
 * connection is made first: it refuses to start, naming the URL, when Redis is unreachable.
 */
async function redisShared(url: string, stateDir: string): Promise<SharedLimits> {
  // Loaded only when Redis is asked for: @redis/client took ~170 ms of every start (issue 27).
  const [{ redisState }, { redisLimits }] = await Promise.all([import('../state/redis-state.ts'), import('../state/redis-limits.ts')]);
  const state = await redisState(url, stateDir);
  const r = await redisLimits(url);
  return { charger: new TurnBatcher((keys) => r.charge(keys)), keys: state.keys, ready: r.ready, close: () => void Promise.all([r.close(), state.close()]) };
}

/**
 * The search indexes open once the server listens (a binary index is read on the thread
 * pool and checked, then only its header parsed; a JSON one of an older release loads in
 * slices, search/turns.ts); a request for one meanwhile opens it itself, and /readyz says
 * `warming` until they are open. Skipping the warm made no measurable difference to the
 * first 15 s (issue 27, three runs each).
 */
export function warmAfterListening(app: { warm: () => void }) {
  app.warm();
}

/** Listens, or says in one line why it cannot and what to do (a port in use is a user error, not a stack trace). */
function listen(server: Server, port: number, host: string) {
  return new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) => reject(new Error(
      err.code === 'EADDRINUSE' ? `${host}:${port} is already in use (another server?): stop it, or set PORT to another port (PORT=0 picks a free one)`
        : err.code === 'EACCES' ? `no permission to listen on ${host}:${port}: use a port above 1023 (PORT=8080)`
          : `cannot listen on ${host}:${port}: ${err.message}`,
    )));
    server.listen(port, host, resolve);
  });
}

/** One process counting in Redis: no server.lock, since it writes nothing in the state folder. */
async function serveRedis(env: NodeJS.ProcessEnv, args: string[], url: string) {
  const { values, opts, host, port } = options(env, args);
  const drain = drainMs(env);
  const app = createWorkerApp(opts, await redisShared(url, opts.stateDir));
  await listen(app.server, port, host);
  warmAfterListening(app);
  const addr = app.server.address();
  const bound = typeof addr === 'object' && addr ? addr.port : port;
  console.log(`serving release ${app.release().id} on http://${host}:${bound}${values.open ? ' with no keys (--open)' : ` (keys, reviews and counts in Redis)`}`);
  stopOnSignals(() => app.close(drain));
}

export async function serve(env: NodeJS.ProcessEnv = process.env, args: string[] = []) {
  // `npm start` comes here without serveMain; applying it twice sets the same flag.
  serverHeap(env);
  const { values, opts, host, port } = options(env, args);
  const drain = drainMs(env);
  // `npm start` with ALMANAC_REDIS_URL: keys, reviews and counts in Redis, as serveRedis.
  const app = env.ALMANAC_REDIS_URL ? createWorkerApp(opts, await redisShared(env.ALMANAC_REDIS_URL, opts.stateDir)) : createApp(opts);
  await listen(app.server, port, host);
  warmAfterListening(app);
  const addr = app.server.address();
  const bound = typeof addr === 'object' && addr ? addr.port : port;
  const what = values.bundle ? `bundle ${values.bundle} (release ${app.release().id})` : `release ${app.release().id}`;
  console.log(`serving ${what} on http://${host}:${bound}${values.open ? ' with no keys (--open)' : ` (state in ${stateDir(env)})`}`);
  stopOnSignals(() => app.close(drain));
  return app;
}

const USAGE = `usage: npm run serve [-- --workers N|auto] [--bundle <extracted bundle folder> [--open]]
  serves the live release of dist/ (ALMANAC_DIST) on HOST:PORT (default 127.0.0.1:8080), keys and counts in ALMANAC_STATE_DIR;
  one JSON access log line per request on stdout (ALMANAC_ACCESS_LOG: on, off or a sampling fraction);
  SIGTERM or SIGINT: stop accepting, finish the responses in flight (up to ALMANAC_DRAIN_MS, 10000), exit; a second signal exits at once
  --workers N|auto   a primary and N worker processes sharing one quota
  --bundle <dir>     serve an extracted offline bundle instead; --open: without keys`;

if (isMain(import.meta.url)) {
  parseCli('serve', USAGE, { bundle: { type: 'string' }, open: { type: 'boolean' }, workers: { type: 'string' } });
  serveMain(process.env, process.argv.slice(2)).catch((err) => {
    console.error(`cannot start: ${err.message}`);
    process.exit(1);
  });
}
