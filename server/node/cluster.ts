/**
 * `npm run serve -- --workers N`: one primary and N worker processes (node:cluster).
 *
 * The primary owns the state folder: it holds server.lock, the quota journal and every
 * counter (monthly and burst). Workers parse, authenticate (each reads keys.json itself,
 * so a revoke still applies from the next request) and serve; to charge a request they ask
 * the primary over the cluster IPC channel. A worker gathers the charges of one event-loop
 * turn into one message (TurnBatcher); the primary applies the limits to the batch in
 * order, appends all accepted counts with one write(2), and only then replies, so:
 *
 * - the monthly quota is exact across workers (one counter, one writer);
 * - the burst limit is one token bucket per key, as with one process (no per-worker slack;
 *   a batch is timed when the primary receives it, at most a turn later than its requests);
 * - a kill -9 of a worker loses no count (the primary wrote it before the reply), and a
 *   request the dead worker had not answered yet may be counted without a response;
 * - a kill -9 of the primary loses no count either (written before any reply); its workers
 *   see the IPC channel close, answer what they wait for with 503 state_unavailable, and
 *   exit; the stale server.lock is taken over by the next start.
 *
 * Why not per-worker journals or leases: they are faster (no round trip) but a lease of N
 * requests per worker either overshoots the month by up to N per worker or needs the same
 * round trip near the limit. The round trip costs one message per turn per worker, not per
 * request (README "Scale-out" has the measured cost).
 */
import cluster, { type Worker } from 'node:cluster';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { Limits, TurnBatcher, type Chargeable, type Charged } from '../state/limits.ts';
import { ApiError, type ErrorCode } from '../http/errors.ts';
import { tryLock } from '../state/lock.ts';
import { QuotaStore } from '../state/quota.ts';
import { withElsewhere } from '../state/elsewhere.ts';
import type { WorkerApp, SharedLimits } from './server.ts';

/** A charge request: batch number and key id/plan/mode triples, flattened. */
interface ChargeMsg { t: 'charge'; n: number; k: string[] }
/** The primary's answer: per request [used, policy, ratelimit, last used] or an error. */
type Result = [number, string, string, number | null] | { e: ErrorCode; m: string; d?: Record<string, unknown>; h?: Record<string, string> };
interface ChargedMsg { t: 'charged'; n: number; r: Result[] }
interface ListeningMsg { t: 'listening'; port: number; release: string }
/** The primary's state folder: why a count could not be written now (null: it can), for the workers' /readyz. */
interface StateMsg { t: 'state'; why: string | null }

/** `--workers N`, or `auto` for one per core. 1 (the default) is the single-process server. */
export function workerCount(arg: string | undefined): number {
  if (arg === undefined) return 1;
  if (arg === 'auto') return availableParallelism();
  const n = Number(arg);
  if (!Number.isInteger(n) || n < 1 || n > 64) throw new Error(`--workers must be a whole number from 1 to 64, or auto (got '${arg.slice(0, 20)}')`);
  return n;
}

const STATE_DOWN: Result = { e: 'state_unavailable', m: 'the request could not be counted, so it was not served or billed; retry later', h: { 'retry-after': '5' } };

/**
 * The primary: takes the state folder, forks `n` workers running this same entry file, and
 * counts for them. Resolves with the address once every worker listens; a worker that dies
 * later is replaced.
 */
export async function runPrimary(o: { stateDir: string; n: number; log?: (m: string) => void; redis?: boolean; drainMs?: number }): Promise<{ port: number; release: string; workers: () => number[]; stop: () => Promise<void> }> {
  const log = o.log ?? ((m: string) => console.error(m));
  // With Redis the workers count there and the state folder holds nothing this process writes.
  const unlock = o.redis ? () => {} : tryLock(path.join(o.stateDir, 'server.lock'), log);
  let quota: QuotaStore | undefined;
  try {
    if (!o.redis) {
      quota = new QuotaStore(o.stateDir, { log });
      quota.open();
    }
  } catch (err) {
    unlock();
    throw err;
  }
  // The edge's counts of the same keys, when it serves them too: one quota, the sum (state/elsewhere.ts).
  const limits = quota ? new Limits(withElsewhere(quota, o.stateDir)) : undefined;
  let stopping = false;
  let started = false;
  // Whether a count can be written, probed once a second and told to the workers when it changes (their /readyz).
  let stateWhy: string | null = null;
  const probe = quota ? setInterval(() => {
    const why = quota!.probe() ?? null;
    if (why === stateWhy) return;
    stateWhy = why;
    for (const w of Object.values(cluster.workers ?? {})) if (w?.isConnected()) w.send({ t: 'state', why } satisfies StateMsg, undefined, () => {});
  }, 1000) : undefined;
  probe?.unref();

  function answer(w: Worker, msg: ChargeMsg) {
    const keys: Chargeable[] = [];
    for (let i = 0; i < msg.k.length; i += 3) keys.push({ id: msg.k[i], plan: msg.k[i + 1] as Chargeable['plan'], mode: msg.k[i + 2] as Chargeable['mode'] });
    let r: Result[];
    try {
      r = limits!.chargeMany(keys).map((c) => c instanceof ApiError
        ? { e: c.code, m: c.message, d: c.details, h: c.headers }
        : [c.used, c.headers[1], c.headers[3], c.lastUsed ?? null]);
    } catch (err) {
      log(`counting failed: ${(err as Error).message}`);
      r = keys.map(() => STATE_DOWN);
    }
    // A worker killed since it asked: its counts stand (they are in the journal).
    if (w.isConnected()) w.send({ t: 'charged', n: msg.n, r } satisfies ChargedMsg, undefined, () => {});
  }

  let listening: ((m: ListeningMsg) => void) | undefined;
  function fork() {
    const w = cluster.fork({ ALMANAC_CLUSTER_WORKER: '1' });
    const born = Date.now();
    w.on('message', (msg: ChargeMsg | ListeningMsg) => {
      if (msg.t === 'charge') answer(w, msg);
      else if (msg.t === 'listening') listening?.(msg);
    });
    w.once('online', () => { if (stateWhy) w.send({ t: 'state', why: stateWhy } satisfies StateMsg, undefined, () => {}); });
    w.on('exit', (code, signal) => {
      if (stopping) return;
      if (!started) {
        log(`worker pid ${w.process.pid} exited during startup (${signal ?? `code ${code}`})`);
        return;
      }
      // Restart at once, but not in a tight loop if it dies right after starting.
      const wait = Date.now() - born < 5000 ? 1000 : 0;
      log(`worker pid ${w.process.pid} exited (${signal ?? `code ${code}`}); starting another`);
      setTimeout(() => { if (!stopping) fork(); }, wait);
    });
    return w;
  }

  const first: Promise<ListeningMsg> = new Promise((resolve, reject) => {
    let up = 0;
    let info: ListeningMsg;
    listening = (m) => {
      info = m;
      if (++up === o.n) resolve(info);
    };
    cluster.on('exit', () => { if (!started) reject(new Error('a worker could not start (see its message above)')); });
  });
  for (let i = 0; i < o.n; i++) fork();

  /**
   * Each worker drains (node/stop.ts) while the primary still counts for it; one that has not
   * exited a few seconds past the drain deadline is killed. The state closes last.
   */
  const stop = async () => {
    stopping = true;
    clearInterval(probe);
    const all = Object.values(cluster.workers ?? {}).filter((w): w is Worker => !!w);
    await Promise.all(all.map((w) => new Promise<void>((resolve) => {
      if (w.isDead()) return resolve();
      const late = setTimeout(() => {
        log(`worker pid ${w.process.pid} did not stop within its drain deadline; killing it`);
        w.process.kill('SIGKILL');
      }, (o.drainMs ?? 0) + 5000);
      w.once('exit', () => {
        clearTimeout(late);
        resolve();
      });
      w.process.kill('SIGTERM');
    })));
    quota?.close();
    unlock();
  };
  let info: ListeningMsg;
  try {
    info = await first;
  } catch (err) {
    await stop();
    throw err;
  }
  started = true;
  listening = undefined;
  return {
    port: info.port,
    release: info.release,
    workers: () => Object.values(cluster.workers ?? {}).flatMap((w) => (w && !w.isDead() && w.process.pid ? [w.process.pid] : [])),
    stop,
  };
}

/** A worker's limits: batches go to the primary; the channel closing fails what waits. */
export function remoteLimits(): SharedLimits & { failAll: () => void } {
  const waiting = new Map<number, { keys: Chargeable[]; resolve: (r: (Charged | ApiError)[]) => void }>();
  let seq = 0;
  let stateWhy: string | null = null;
  process.on('message', (msg: ChargedMsg | StateMsg) => {
    if (msg?.t === 'state') return void (stateWhy = msg.why);
    if (msg?.t !== 'charged') return;
    const w = waiting.get(msg.n);
    if (!w) return;
    waiting.delete(msg.n);
    w.resolve(msg.r.map((r) => {
      if (!Array.isArray(r)) return r.e === STATE_DOWN_CODE ? new ApiError(r.e, r.m, r.d, r.h).note('the primary\'s usage journal refused the write') : new ApiError(r.e, r.m, r.d, r.h);
      return { used: r[0], headers: ['ratelimit-policy', r[1], 'ratelimit', r[2]], lastUsed: r[3] ?? undefined };
    }));
  });
  const down = () => new ApiError(STATE_DOWN_CODE, 'the request could not be counted, so it was not served or billed; retry later', undefined, { 'retry-after': '5' })
    .note('the cluster primary is gone');
  const charger = new TurnBatcher((keys) => new Promise((resolve) => {
    if (!process.connected) return resolve(keys.map(down));
    const n = ++seq;
    const k: string[] = [];
    for (const key of keys) k.push(key.id, key.plan, key.mode ?? 'count');
    waiting.set(n, { keys, resolve });
    process.send!({ t: 'charge', n, k } satisfies ChargeMsg, undefined, {}, (err: Error | null) => {
      if (err && waiting.delete(n)) resolve(keys.map(down));
    });
  }));
  return {
    charger,
    ready: () => (process.connected ? stateWhy ?? undefined : 'the cluster primary is gone: nothing can be counted'),
    failAll: () => {
      for (const [n, w] of waiting) {
        waiting.delete(n);
        w.resolve(w.keys.map(down));
      }
    },
  };
}
const STATE_DOWN_CODE: ErrorCode = 'state_unavailable';

/** Worker side: serve with the primary's limits; tell it the port; drain on SIGTERM/SIGINT; leave when the primary is gone. */
export async function runWorker(make: (shared: SharedLimits) => WorkerApp, stateDir: string, host: string, port: number, own?: SharedLimits, drainMs = 0) {
  // With ALMANAC_REDIS_URL each worker counts in Redis itself (`own`); else the primary counts.
  const shared: SharedLimits & { failAll?: () => void } = own ?? remoteLimits();
  const app = make(shared);
  await new Promise<void>((resolve) => app.server.listen(port, host, resolve));
  // The small whole indexes load after listening, sharing the loop with requests (issue 27).
  app.warm();
  const addr = app.server.address();
  process.send!({ t: 'listening', port: typeof addr === 'object' && addr ? addr.port : port, release: app.release().id } satisfies ListeningMsg);
  // The primary is gone (killed or stopped): nothing can be counted any more.
  process.on('disconnect', () => {
    shared.failAll?.();
    setTimeout(() => process.exit(0), 200).unref();
    app.server.close();
  });
  // The primary's SIGTERM, and the same signal sent to the whole group (systemd, Ctrl-C):
  // one drain, however many arrive; the primary kills a worker that overstays.
  const drain = () => void app.close(drainMs).then(() => process.exit(0));
  process.on('SIGTERM', drain);
  process.on('SIGINT', drain);
  return app;
}
