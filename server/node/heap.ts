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
import v8 from 'node:v8';

export const DEFAULT_HEAP_GROWING_PERCENT = 60;
/**
 * The build's (server/cli/build.ts): its garbage is the packs it writes, and at 60 % the
 * full build peaked at 2.23 GiB, at 40 % at 1.93 GiB, in the same 75 s (issue 27; 25 %
 * cost 17 s more). docs/benchmarks.md "Build time".
 */
export const BUILD_HEAP_GROWING_PERCENT = 40;
const FLAG = 'heap-growing-percent';

/**
 * Applies ALMANAC_HEAP_GROWING_PERCENT (default 60; 0 leaves V8's own choice). A value the
 * operator gave node itself (`--heap-growing-percent` in its arguments or NODE_OPTIONS)
 * wins. Returns the percent in force, or null when V8 chooses. Throws on a bad value, so the
 * server refuses to start rather than run with a setting nobody asked for.
 */
export function applyHeapGrowth(env: NodeJS.ProcessEnv = process.env, execArgv: string[] = process.execArgv, fallback = DEFAULT_HEAP_GROWING_PERCENT): number | null {
  const given = [...execArgv, ...(env.NODE_OPTIONS ?? '').split(/\s+/)].find((a) => a.replace(/_/g, '-').startsWith(`--${FLAG}`));
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
