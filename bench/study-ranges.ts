/**
 * `npm run bench:study-ranges`: cold 100-verse study ranges (issue 41, item 2), on the full
 * release of ALMANAC_DIST (default dist/), its kjv verses listed from the release itself. A
 * fresh compiled server (pinned to core 0 with
 * taskset where it can be), then on one kept-alive connection, `Accept-Encoding: br` as a
 * browser sends it, timed to the last byte:
 *   1. cold (once /readyz answers 200, as a load balancer waits, and the server has checked
 *      its release in the background): BENCH_RANGES (15)
 *      distinct 100-verse ranges of kjv spread over the canon, the
 *      first request of each (what the issue's target, p99 ≤ 60 ms, is about);
 *   2. again: the same ranges cycled twice more (whatever caches they filled);
 *   3. repeated: one range asked 8 times in a row.
 * BENCH_WARM=1 asks one single-verse study first (the process's first study compiles its code);
 * BENCH_PIN=off leaves the server unpinned (V8's GC threads and the thread pool may use the
 * core the client mostly waits on, as on a machine the server has to itself);
 * BENCH_LIB=<compiled tree>/lib runs another compiled server; several, separated by commas,
 * run in turn (a before/after comparison in one sitting); BENCH_RUNS=N runs each N times, a
 * fresh server each, and sums the runs up (each run's maximum, pooled percentiles);
 * BENCH_NODE_ARGS adds node flags to the server's command line (a CPU profile); BENCH_TRACE=1
 * passes the server's stdout on and marks each cold range (with `--trace-gc`: which range a
 * full collection lands in).
 * The load average is printed with every figure: the machine is shared.
 */
import { execFileSync, spawn } from 'node:child_process';
import http from 'node:http';
import { loadavg } from 'node:os';
import path from 'node:path';
import { PROJECT_ROOT, distDir } from '../pipeline/paths.ts';
import { fsRelease } from '../server/release/fs-reader.ts';
import { KeyStore } from '../server/state/keys.ts';
import { cleanup, tempDir } from '../test/helpers.ts';

const N = Number(process.env.BENCH_RANGES ?? 15);
const TRACE = !!process.env.BENCH_TRACE;
/** BENCH_LIB: one compiled tree, or several separated by commas, run in turn (before/after in the same sitting). */
const libs = (process.env.BENCH_LIB ?? path.join(PROJECT_ROOT, 'lib')).split(',').map((l) => l.trim()).filter(Boolean);
const RUNS = Math.max(1, Number(process.env.BENCH_RUNS ?? 1));
if (!process.env.BENCH_LIB) execFileSync(process.execPath, ['bin/compile.mjs', '--if-stale'], { cwd: PROJECT_ROOT, stdio: 'inherit' });
// BENCH_PIN=off: the server not pinned (its thread pool and V8's GC threads may use the other core).
const pin = process.env.BENCH_PIN !== 'off' && (() => { try { execFileSync('which', ['taskset'], { stdio: 'ignore' }); return true; } catch { return false; } })();

const q = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))];
const line = (what: string, xs: number[]) => console.log(`${what}: n=${xs.length} p50 ${q(xs, 0.5).toFixed(1)} ms, p99 ${q(xs, 0.99).toFixed(1)} ms, max ${Math.max(...xs).toFixed(1)} ms (load ${loadavg().map((l) => l.toFixed(2)).join(' ')})`);

// Every verse of kjv in order, from the release's own list of its books and chapters (read
// here, not asked of the server: 66 whole-book requests left ~20 MB of the server's heap
// for the cold ranges to collect).
const books = (fsRelease(distDir()).datasets.get('bible/kjv')!.summary as { books: { slug: string; chapters: [number, number, number][] }[] }).books;
const refs: string[] = [];
for (const b of books) for (const [chapter, , count] of b.chapters) for (let v = 1; v <= count; v++) refs.push(`${b.slug}.${chapter}.${v}`);
const urls = Array.from({ length: N }, (_, i) => {
  const at = Math.floor((i * (refs.length - 100)) / N);
  return `/api/v1/study/kjv/range?from=${refs[at]}&to=${refs[at + 99]}`;
});

/** One fresh server of the compiled tree `lib`, measured as the header says. */
async function run(lib: string): Promise<{ cold: number[]; again: number[]; rep: number[] }> {
  const state = tempDir('almanac-bench-ranges-');
  const key = new KeyStore(state).create('development', 'bench').secret;
  // BENCH_NODE_ARGS: node flags for the server (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` to see where a cold range goes).
  const args = [...(process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? []), path.join(lib, 'server/cli/serve.js')];
  const child = spawn(pin ? 'taskset' : process.execPath, pin ? ['-c', '0', process.execPath, ...args] : args, {
    env: { ...process.env, ALMANAC_DIST: distDir(), ALMANAC_STATE_DIR: state, ALMANAC_ACCESS_LOG: 'off', PORT: '0' }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const base = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (c) => {
        out += c;
        if (TRACE) process.stderr.write(c);
        const m = /on (http:\/\/[\d.]+:\d+)/.exec(out);
        if (m) resolve(m[1]);
      });
      child.on('exit', (code) => reject(new Error(`server exited ${code}`)));
      // The server's log (stderr) is passed on, and watched for the end of its background check.
      child.stderr.on('data', (c) => {
        process.stderr.write(c);
        out += c;
      });
    });
    const get = (p: string, encoding = 'br') => new Promise<{ t: number; status: number; body: Buffer }>((resolve, reject) => {
      const t0 = performance.now();
      http.get(base + p, { agent, headers: { authorization: `Bearer ${key}`, 'accept-encoding': encoding } }, (res) => {
        const parts: Buffer[] = [];
        res.on('data', (c: Buffer) => parts.push(c)).on('end', () => resolve({ t: performance.now() - t0, status: res.statusCode ?? 0, body: Buffer.concat(parts) })).on('error', reject);
      }).on('error', reject);
    });
    // Traffic only once /readyz says ready, as a load balancer or an orchestrator sends it
    // (the server is not ready while it warms: search indexes, the study warm-up); polling
    // it is also what first runs the server's HTTP path, as their probes do.
    const readyBy = performance.now() + 120_000;
    while ((await get('/readyz', '').catch(() => ({ status: 0 }))).status !== 200 && performance.now() < readyBy) await new Promise((r) => setTimeout(r, 100));
    // A server that has just started checks its release's files in the background
    // (release/background-check.ts); the cold ranges are measured once it is done, as on a
    // server that has run for a while (ALMANAC_VERIFY=off: no wait).
    const waited = performance.now();
    while (process.env.ALMANAC_VERIFY !== 'off' && !/checked against their sha256 in the background/.test(out) && performance.now() - waited < 120_000) await new Promise((r) => setTimeout(r, 100));
    console.log(`background check of the release: ${/checked against their sha256 in the background/.test(out) ? `done (waited ${((performance.now() - waited) / 1000).toFixed(1)} s)` : 'not seen'}`);
    // BENCH_WARM=1: one study of a verse outside every range first, so the first cold range
    // does not also pay for the process's first study (code compiled on first use).
    if (process.env.BENCH_WARM) console.log(`a first study (rev.22.21): ${(await get('/api/v1/study/kjv/rev/22/21')).t.toFixed(1)} ms`);
    const cold: number[] = [];
    for (const u of urls) {
      if (TRACE) console.error(`>>> cold range ${u}`);
      const r = await get(u);
      if (r.status !== 200) throw new Error(`${u}: ${r.status} ${r.body.toString().slice(0, 200)}`);
      cold.push(r.t);
    }
    console.log(`${N} distinct 100-verse kjv study ranges, br, one kept-alive connection, server ${path.relative(PROJECT_ROOT, lib) || lib}`);
    line('cold (first request of each)', cold);
    if (process.env.BENCH_EACH) console.log(`cold, in order: ${cold.map((t) => t.toFixed(0)).join(' ')} ms`);
    const again: number[] = [];
    for (let k = 0; k < 2; k++) for (const u of urls) again.push((await get(u)).t);
    line('again (cycled twice more)', again);
    const rep: number[] = [];
    for (let k = 0; k < 8; k++) rep.push((await get(urls[0])).t);
    line('one range repeated 8 times', rep);
    return { cold, again, rep };
  } finally {
    agent.destroy();
    child.kill('SIGTERM');
    await new Promise((r) => (child.exitCode !== null || child.signalCode !== null ? r(null) : child.once('exit', r)));
    cleanup(state);
  }
}

const results = new Map<string, { cold: number[]; again: number[]; loads: number[] }[]>(libs.map((l) => [l, []]));
for (let r = 0; r < RUNS; r++) {
  for (const lib of libs) {
    const got = await run(lib);
    results.get(lib)!.push({ cold: got.cold, again: got.again, loads: [loadavg()[0]] });
  }
}
// BENCH_RUNS=N (and/or several trees): each run's p99 of 15 is one noisy number, so the
// runs are summed up too: every run's maximum, and percentiles over all their cold ranges.
if (RUNS > 1 || libs.length > 1) {
  console.log(`\n${RUNS} run(s) of each server, in turn, ${pin ? 'pinned to core 0' : 'unpinned'}:`);
  const median = (xs: number[]) => q(xs, 0.5);
  for (const [lib, runs] of results) {
    const all = runs.flatMap((x) => x.cold);
    const maxes = runs.map((x) => Math.max(...x.cold));
    const loads = runs.flatMap((x) => x.loads);
    console.log(`${path.relative(PROJECT_ROOT, lib) || lib}: per-run cold p99 (max of ${N}) ${maxes.map((m) => m.toFixed(1)).join(', ')} ms, median ${median(maxes).toFixed(1)} ms; ` +
      `${maxes.filter((m) => m <= 60).length} of ${maxes.length} runs ≤ 60 ms (issue 41's target); pooled cold p50 ${q(all, 0.5).toFixed(0)}, p90 ${q(all, 0.9).toFixed(0)}, p95 ${q(all, 0.95).toFixed(0)} ms; ` +
      `cycled p50 ${median(runs.map((x) => q(x.again, 0.5))).toFixed(1)} ms; load ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)}`);
  }
}
