/**
 * `npm run bench:study-ranges`: cold 100-verse study ranges (issue 41, item 2), on the full
 * release of ALMANAC_DIST (default dist/), its kjv verses listed from the release itself. A
 * fresh compiled server (pinned to core 0 with
 * taskset where it can be), then on one kept-alive connection, `Accept-Encoding: br` as a
 * browser sends it, timed to the last byte:
 *   1. cold (once the server has checked its release in the background): BENCH_RANGES (15)
 *      distinct 100-verse ranges of kjv spread over the canon, the
 *      first request of each (what the issue's target, p99 ≤ 60 ms, is about);
 *   2. again: the same ranges cycled twice more (whatever caches they filled);
 *   3. repeated: one range asked 8 times in a row.
 * BENCH_WARM=1 asks one single-verse study first (the process's first study compiles its code);
 * BENCH_PIN=off leaves the server unpinned (V8's GC threads and the thread pool may use the
 * core the client mostly waits on, as on a machine the server has to itself);
 * BENCH_LIB=<compiled tree>/lib runs another compiled server (a before/after comparison);
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
const lib = process.env.BENCH_LIB ?? path.join(PROJECT_ROOT, 'lib');
if (!process.env.BENCH_LIB) execFileSync(process.execPath, ['bin/compile.mjs', '--if-stale'], { cwd: PROJECT_ROOT, stdio: 'inherit' });
const state = tempDir('almanac-bench-ranges-');
const key = new KeyStore(state).create('development', 'bench').secret;
// BENCH_PIN=off: the server not pinned (its thread pool and V8's GC threads may use the other core).
const pin = process.env.BENCH_PIN !== 'off' && (() => { try { execFileSync('which', ['taskset'], { stdio: 'ignore' }); return true; } catch { return false; } })();
// BENCH_NODE_ARGS: node flags for the server (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` to see where a cold range goes).
const args = [...(process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? []), path.join(lib, 'server/cli/serve.js')];
const child = spawn(pin ? 'taskset' : process.execPath, pin ? ['-c', '0', process.execPath, ...args] : args, {
  env: { ...process.env, ALMANAC_DIST: distDir(), ALMANAC_STATE_DIR: state, ALMANAC_ACCESS_LOG: 'off', PORT: '0' }, stdio: ['ignore', 'pipe', 'pipe'],
});
let out = '';
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
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
const get = (p: string, encoding = 'br') => new Promise<{ t: number; status: number; body: Buffer }>((resolve, reject) => {
  const t0 = performance.now();
  http.get(base + p, { agent, headers: { authorization: `Bearer ${key}`, 'accept-encoding': encoding } }, (res) => {
    const parts: Buffer[] = [];
    res.on('data', (c: Buffer) => parts.push(c)).on('end', () => resolve({ t: performance.now() - t0, status: res.statusCode ?? 0, body: Buffer.concat(parts) })).on('error', reject);
  }).on('error', reject);
});
const q = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))];
const line = (what: string, xs: number[]) => console.log(`${what}: n=${xs.length} p50 ${q(xs, 0.5).toFixed(1)} ms, p99 ${q(xs, 0.99).toFixed(1)} ms, max ${Math.max(...xs).toFixed(1)} ms (load ${loadavg().map((l) => l.toFixed(2)).join(' ')})`);

try {
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
  if (process.env.BENCH_EACH) console.log(`cold, in order: ${cold.map((t) => t.toFixed(0)).join(" ")} ms`);
  const again: number[] = [];
  for (let k = 0; k < 2; k++) for (const u of urls) again.push((await get(u)).t);
  line('again (cycled twice more)', again);
  const rep: number[] = [];
  for (let k = 0; k < 8; k++) rep.push((await get(urls[0])).t);
  line('one range repeated 8 times', rep);
} finally {
  child.kill('SIGTERM');
  cleanup(state);
}
