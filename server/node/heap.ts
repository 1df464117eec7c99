/**
 * How far V8 lets the server's heap grow past what was live at its last full collection.
 *
 * V8 picks that factor itself, up to 4× on a machine with memory to spare. The server's live
 * heap is mostly the shard cache (ALMANAC_CACHE_MB, search index parts counted at their heap
 * size), so after many searches over every dataset a ~250 MiB live heap carried ~900 MiB of
 * garbage: 1,123–1,563 MiB RSS (bench/search-indexes.ts, seven runs). A fixed factor of 1.6
 * kept the same bench at 618–693 MiB (six runs) with no measurable change to warm search
 * p99 or to CPU per request (README "Scale-out").
 *
 * Unlike a heap cap (--max-old-space-size) this cannot end in an out-of-memory crash: V8
 * only collects sooner, and the heap may still grow as far as the live data needs.
 * The flag is read by V8 at every collection, so setting it at start-up takes effect.
 */
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { PerformanceObserver, constants } from 'node:perf_hooks';
import v8 from 'node:v8';

export const DEFAULT_HEAP_GROWING_PERCENT = 60;
/**
 * The build's (server/cli/build.ts): its garbage is the packs it writes, and at 60 % the
 * full build peaked at 2.23 GiB, at 40 % at 1.93 GiB, in the same 75 s (issue 27; 25 %
 * cost 17 s more). docs/benchmarks.md "Build time".
 */
export const BUILD_HEAP_GROWING_PERCENT = 40;
const FLAG = 'heap-growing-percent';

/** The flags node itself was given (its arguments and NODE_OPTIONS), `_` written as `-` as V8 reads them. */
const nodeFlags = (env: NodeJS.ProcessEnv, execArgv: string[]) => [...execArgv, ...(env.NODE_OPTIONS ?? '').split(/\s+/)].map((a) => a.replace(/_/g, '-'));

/** The growing factor given to node itself (its arguments or NODE_OPTIONS), if any. */
export const givenToNode = (env: NodeJS.ProcessEnv = process.env, execArgv: string[] = process.execArgv) =>
  nodeFlags(env, execArgv).find((a) => a.startsWith(`--${FLAG}`));

/**
 * Applies ALMANAC_HEAP_GROWING_PERCENT (default 60; 0 leaves V8's own choice). A value the
 * operator gave node itself (`--heap-growing-percent` in its arguments or NODE_OPTIONS)
 * wins. Returns the percent in force, or null when V8 chooses. Throws on a bad value, so the
 * server refuses to start rather than run with a setting nobody asked for.
 */
export function applyHeapGrowth(env: NodeJS.ProcessEnv = process.env, execArgv: string[] = process.execArgv, fallback = DEFAULT_HEAP_GROWING_PERCENT): number | null {
  const given = givenToNode(env, execArgv);
  if (given) {
    const n = Number(given.split('=')[1]);
    return Number.isFinite(n) && n > 0 ? n : null;
  }
  const raw = env.ALMANAC_HEAP_GROWING_PERCENT ?? String(fallback);
  if (!/^\d{1,4}$/.test(raw) || Number(raw) > 1000) {
    throw new Error(`ALMANAC_HEAP_GROWING_PERCENT must be a whole number from 0 to 1000 (got ${JSON.stringify(raw)})`);
  }
  const n = Number(raw);
  if (n === 0) return null;
  v8.setFlagsFromString(`--${FLAG}=${n}`);
  return n;
}

/**
 * The headroom a server's heap keeps above its live data whatever the factor: at least
 * ALMANAC_HEAP_HEADROOM_MB (default 64; 0: none). A factor of 1.6 is what a large heap
 * needs (the shard cache above), but over a fresh server's ~28 MiB it left ~18–33 MiB, and
 * each cold 100-verse study range adds ~3.5 MiB to the caches: a full collection every
 * three ranges, 20–40 ms of marking inside one (docs/benchmarks.md, "Cold study ranges,
 * fourth pass"). So after each full collection the factor is raised, while the live heap is
 * small, to leave this much room; from 107 MiB live up (64 MiB / 0.6) 1.6 applies unchanged.
 */
export const DEFAULT_HEAP_HEADROOM_MB = 64;

/** The growing percent that leaves `headroom` bytes above `live` (never below `base`, at most 1000). */
export function percentFor(live: number, base: number, headroom: number): number {
  if (!(live > 0) || headroom <= 0) return base;
  // Whole tens: the flag is not set again for every small change of the live heap.
  return Math.min(1000, Math.max(base, Math.ceil((headroom / live) * 10) * 10));
}

/** ALMANAC_HEAP_HEADROOM_MB, checked (bytes; 0: off). Throws on a bad value, as applyHeapGrowth does. */
export function heapHeadroom(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.ALMANAC_HEAP_HEADROOM_MB ?? String(DEFAULT_HEAP_HEADROOM_MB);
  if (!/^\d{1,4}$/.test(raw) || Number(raw) > 4096) {
    throw new Error(`ALMANAC_HEAP_HEADROOM_MB must be a whole number from 0 to 4096 (got ${JSON.stringify(raw)})`);
  }
  return Number(raw) * 2 ** 20;
}

let keeping: PerformanceObserver | undefined;
/**
 * Keeps the headroom above (a server, after applyHeapGrowth returned `base`): the factor is
 * set now from the heap in use, then again after each full collection from what it left.
 * Returns the percent set now. Once per process; nothing when `headroom` is 0.
 */
export function keepHeapHeadroom(base: number, headroom: number): number {
  let set = base;
  const apply = () => {
    const p = percentFor(v8.getHeapStatistics().used_heap_size, base, headroom);
    if (p !== set) v8.setFlagsFromString(`--${FLAG}=${(set = p)}`);
  };
  if (headroom <= 0 || keeping) return set;
  apply();
  keeping = new PerformanceObserver((list) => {
    if (list.getEntries().some((e) => (e as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR)) apply();
  });
  keeping.observe({ entryTypes: ['gc'] });
  return set;
}

/**
 * What --single-threaded-gc turns off, less --no-parallel-marking, which V8 refuses once
 * running (the process ends in a trap): marking, sweeping and compaction then run on the
 * main thread, in V8's own steps and pauses (issue 41, item 3).
 */
export const MAIN_THREAD_GC_FLAGS = ['--no-concurrent-marking', '--no-parallel-scavenge', '--no-concurrent-sweeping', '--no-parallel-compaction', '--no-parallel-pointer-update', '--no-concurrent-array-buffer-sweeping'];

/**
 * The CPUs this process may use: its affinity (taskset, a cpuset), and the CPU quota of its
 * cgroup or any cgroup above it (a container's `--cpus`, a systemd unit's CPUQuota), which
 * node 20's availableParallelism does not read. cgroup v2 (`cpu.max`) or v1 (`cpu` controller).
 */
export function cpusAvailable(read: (path: string) => string = (p) => readFileSync(p, 'utf8')): number {
  let n = availableParallelism();
  const quota = (q: number, period: number) => {
    if (q > 0 && period > 0) n = Math.min(n, Math.max(1, Math.ceil(q / period)));
  };
  const tryRead = (path: string) => { try { return read(path).trim(); } catch { return undefined; } };
  const lines = (tryRead('/proc/self/cgroup') ?? '0::/').split('\n');
  const v1 = lines.map((l) => l.split(':')).find(([, c]) => c?.split(',').includes('cpu'));
  // The process's own cgroup, then each one above it: a quota anywhere on the way applies.
  const up = (path: string) => {
    const dirs = [];
    for (let d = path.replace(/\/+$/, ''); d; d = d.slice(0, d.lastIndexOf('/'))) dirs.push(d);
    return [...dirs, ''];
  };
  if (v1) {
    const mount = tryRead('/sys/fs/cgroup/cpu/cpu.cfs_period_us') !== undefined ? '/sys/fs/cgroup/cpu' : `/sys/fs/cgroup/${v1[1]}`;
    for (const d of up(v1[2] ?? '/')) quota(Number(tryRead(`${mount}${d}/cpu.cfs_quota_us`)), Number(tryRead(`${mount}${d}/cpu.cfs_period_us`)));
  } else {
    const own = lines.find((l) => l.startsWith('0::'))?.slice(3) ?? '/';
    for (const d of up(own)) {
      const [q, period] = (tryRead(`/sys/fs/cgroup${d}/cpu.max`) ?? 'max').split(/\s+/); // "max 100000" or "150000 100000"
      if (q !== 'max') quota(Number(q), Number(period));
    }
  }
  return n;
}

/**
 * ALMANAC_GC_MAIN_THREAD: `auto` (the default: when the process has one CPU), `on` or `off`.
 * On one CPU V8's background collector threads take turns with the event loop: at 256
 * connections on one pinned core, the loop lost the CPU to concurrent marking for 66–88 ms
 * per full collection and requests waited 46–50 ms, against 25–32 ms with the work on the
 * main thread (docs/benchmarks.md, "Hot path, twelfth pass"). On two CPUs or more the
 * threads run beside the loop: leave them. Returns whether the flags are in force; node
 * given --single-threaded-gc itself (or any of the flags above) is left as it is.
 */
export function gcOnMainThread(env: NodeJS.ProcessEnv = process.env, cpus: () => number = cpusAvailable, execArgv: string[] = process.execArgv): boolean {
  const raw = (env.ALMANAC_GC_MAIN_THREAD ?? 'auto').trim();
  if (!['auto', 'on', 'off'].includes(raw)) throw new Error(`ALMANAC_GC_MAIN_THREAD must be auto, on or off (got ${JSON.stringify(raw.slice(0, 40))})`);
  const given = nodeFlags(env, execArgv);
  if (given.includes('--single-threaded-gc')) return true;
  if (raw === 'off' || (raw === 'auto' && cpus() > 1)) return false;
  for (const f of MAIN_THREAD_GC_FLAGS) if (!given.some((g) => g === f || g === `--${f.slice(5)}`)) v8.setFlagsFromString(f);
  return true;
}
