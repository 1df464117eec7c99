/**
 * `npm run bench:search-indexes`: issue 14's search targets, per index of the built
 * release (ALMANAC_DIST or dist/), in process (server time, no HTTP):
 * - first use: the time of the first query on a dataset, which loads its index;
 * - warm: p50/p99 over BENCH_QUERIES queries drawn from the dataset's own records
 *   (every k-th record's searchable words: single words and word pairs);
 * - RSS after every index was touched by one query, and after all the queries, with the
 *   shard cache at ALMANAC_CACHE_MB.
 * Targets: warm p99 ≤ 10 ms, first use ≤ 200 ms, RSS < 400 MB.
 * BENCH_SERVER_ONLY=1 stops after the server part; BENCH_IN_PROCESS_ONLY=1 skips it;
 * BENCH_SERVER_NODE_ARGS passes flags to the server's node (e.g. `--trace-gc`).
 */
import { execFileSync, spawn } from 'node:child_process';
import { Agent, get as httpGet } from 'node:http';
import { readFileSync } from 'node:fs';
import { PROJECT_ROOT, distDir } from '../pipeline/paths.ts';
import { KeyStore } from '../server/state/keys.ts';
import { cleanup, tempDir } from '../test/helpers.ts';
import { fsRelease } from '../server/release/fs-reader.ts';
import type { Release } from '../server/release/release.ts';

const N = Number(process.env.BENCH_QUERIES ?? 200);
const release = fsRelease(distDir());
const only = process.argv.slice(2);
const searchable = [...release.datasets.values()]
  .filter((d) => d.search_fields?.length && (!only.length || only.includes(d.id)))
  .sort((a, b) => a.id.localeCompare(b.id));

const words = (v: unknown): string[] =>
  typeof v === 'string' ? (v.toLowerCase().match(/\p{L}{3,}/gu) ?? []) : Array.isArray(v) ? v.flatMap(words) : [];

/** Deterministic queries: walk the records with a prime stride, alternate one word and two. */
async function queries(id: string, records: number, fields: string[], n = N, from: Release = release): Promise<string[]> {
  const out: string[] = [];
  for (let i = 0, o = 0; out.length < n && i < N * 20; i++, o = (o + 7919) % records) {
    const rec = JSON.parse((await from.record(id, o)).toString()) as Record<string, unknown>;
    const w = fields.flatMap((f) => words(rec[f]));
    if (!w.length) continue;
    const at = (i * 31) % w.length;
    out.push(out.length % 2 && w.length > at + 1 ? `${w[at]} ${w[at + 1]}` : w[at]);
  }
  return out;
}

const pct = (xs: number[], p: number) => xs[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];
const mib = (b: number) => (b / 2 ** 20).toFixed(0);
const rows: string[] = [];
let worstWarm = { p99: 0, id: '' };
let worstLoad = { ms: 0, id: '' };
// First use of every index, one query each, before any warm pass: the RSS then is the
// issue's "every index touched"; the RSS after the warm passes (400 queries on each
// dataset, which load most parts of every split index through the cache) is reported too.
// Each dataset's queries are drawn just before they are used (the first one alone for the
// first-use pass): reading records fills the cache with packs, and a heap full of them
// makes GC pauses show in the timings.
if (!process.env.BENCH_IN_PROCESS_ONLY) await serverPart();
if (process.env.BENCH_SERVER_ONLY) process.exit(0);
const firstUse = new Map<string, number>();
const rss0 = process.memoryUsage().rss;
for (const d of searchable) {
  const qs = await queries(d.id, d.records, d.search_fields!, 1);
  if (!qs.length) continue;
  const t0 = performance.now();
  await release.searchAsync(d.id, qs[0]).catch(() => undefined);
  firstUse.set(d.id, performance.now() - t0);
}
const rssTouched = process.memoryUsage().rss;
const querySets = new Map<string, string[]>();
for (const d of searchable) {
  const qs = await queries(d.id, d.records, d.search_fields!);
  querySets.set(d.id, qs);
  if (!qs.length || !firstUse.has(d.id)) continue;
  const first = firstUse.get(d.id)!;
  const times: number[] = [];
  for (const pass of [0, 1]) {
    for (const q of qs) {
      const t = performance.now();
      try {
        await release.searchWithin(d.id, q);
      } catch {
        // A query over the cost bound answers 400: bounded too, and timed all the same.
      }
      if (pass) times.push(performance.now() - t); // the first pass warms the JIT
    }
  }
  times.sort((a, b) => a - b);
  const p99 = pct(times, 99);
  if (p99 > worstWarm.p99) worstWarm = { p99, id: d.id };
  if (first > worstLoad.ms) worstLoad = { ms: first, id: d.id };
  rows.push(`| ${d.id} | ${d.records} | ${first.toFixed(0)} | ${pct(times, 50).toFixed(2)} | ${p99.toFixed(2)} | ${times[times.length - 1].toFixed(1)} |`);
}
const rss = process.memoryUsage().rss;
console.log(`release ${release.id}: ${rows.length} searchable datasets, ${N} queries each, cache ${process.env.ALMANAC_CACHE_MB ?? 256} MiB`);
console.log('| dataset | records | first use ms | warm p50 ms | warm p99 ms | max ms |');
console.log('|---|---|---|---|---|---|');
for (const r of rows) console.log(r);
console.log(`worst warm p99 ${worstWarm.p99.toFixed(2)} ms (${worstWarm.id}; target ≤ 10); slowest first use ${worstLoad.ms.toFixed(0)} ms (${worstLoad.id}; target ≤ 200)`);
console.log(`RSS ${mib(rss0)} MiB at start, ${mib(rssTouched)} MiB with every index touched by one query (target < 400 MB), ${mib(rss)} MiB after 400 queries on each`);
const stats = release.cacheStats();
console.log(`shard cache: ${mib(stats.bytes)} of ${mib(stats.budget)} MiB counted, ${stats.entries.filter((e) => e.key.startsWith('s:')).length} search indexes held`);
const gc = (globalThis as { gc?: () => void }).gc;
if (gc) {
  // With NODE_OPTIONS=--expose-gc: what is live after a full collection, and what RSS keeps.
  gc();
  const m = process.memoryUsage();
  console.log(`after a full GC: heap used ${mib(m.heapUsed)} MiB, RSS ${mib(m.rss)} MiB`);
}


/**
 * The server's own RSS and times (in this process they are blurred by the benchmark's own
 * heap), run first, while this process is small: the server as `npm run serve` runs it
 * (compiled, default caches), on the same release. RSS listening; with every index
 * touched by its first query over HTTP, at once and after SETTLE_S seconds idle (V8's
 * memory reducer has had its turn); then per dataset two passes of its queries, the second
 * timed (with `offset=0` spelled out, so it misses the response cache the first filled
 * and searches); RSS after all of them, at once and settled.
 */
async function serverPart() {
  const SETTLE_S = Number(process.env.BENCH_SETTLE_S ?? 10);
  // The same deterministic queries, drawn through a Release of their own that is dropped after.
  const sets = new Map<string, string[]>();
  {
    const draw = fsRelease(distDir());
    for (const d of searchable) sets.set(d.id, await queries(d.id, d.records, d.search_fields!, N, draw));
  }
  const state = tempDir('almanac-bench-search-state-');
  const key = new KeyStore(state).create('development', 'bench').secret;
  execFileSync(process.execPath, ['bin/compile.mjs', '--if-stale'], { cwd: PROJECT_ROOT, stdio: 'inherit' });
  const child = spawn(process.execPath, [...(process.env.BENCH_SERVER_NODE_ARGS?.split(' ').filter(Boolean) ?? []), 'lib/server/cli/serve.js'], {
    cwd: PROJECT_ROOT, env: { ...process.env, NODE_OPTIONS: '', ALMANAC_DIST: distDir(), ALMANAC_STATE_DIR: state, PORT: '0' }, stdio: ['ignore', 'pipe', 'inherit'],
  });
  const settle = () => new Promise((r) => setTimeout(r, SETTLE_S * 1000));
  try {
    const base = await new Promise<string>((resolve) => child.stdout.on('data', (c) => {
      const m = /on (http:\/\/[\d.]+:\d+)/.exec(String(c));
      if (m) resolve(m[1]);
    }));
    const serverRss = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))![1]) * 1024;
    const url = (ds: string, q: string, more: Record<string, string>) => (ds.startsWith('bible/')
      ? `${base}/api/v1/search?${new URLSearchParams({ translation: ds.slice(6), q, limit: '20', ...more })}`
      : `${base}/apis/${ds}/search?${new URLSearchParams({ q, limit: '20', ...more })}`);
    // node:http with one kept-alive connection: fetch's own work and pauses added up to
    // 10 ms to this client's timings (elements p99 13 ms with fetch, 3.1 ms with curl).
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const ask = (ds: string, q: string, more: Record<string, string> = {}) => new Promise<number>((resolve, reject) => {
      httpGet(url(ds, q, more), { agent, headers: { authorization: `Bearer ${key}` } }, (res) => {
        let n = 0;
        res.on('data', (c: Buffer) => { n += c.length; }).on('end', () => resolve(n)).on('error', reject);
      }).on('error', reject);
    });
    const idle = serverRss();
    const firstHttp = new Map<string, number>();
    for (const d of searchable) {
      if (!sets.get(d.id)!.length) continue;
      const t = performance.now();
      await ask(d.id, sets.get(d.id)![0]);
      firstHttp.set(d.id, performance.now() - t);
    }
    const touched = serverRss();
    await settle();
    const touchedSettled = serverRss();
    const httpRows: string[] = [];
    let worst = { p99: 0, id: '' };
    for (const d of searchable) {
      const qs = sets.get(d.id)!;
      if (!qs.length) continue;
      for (const q of qs) await ask(d.id, q);
      const times: number[] = [];
      for (const q of qs) {
        const t = performance.now();
        await ask(d.id, q, { offset: '0' });
        times.push(performance.now() - t);
      }
      times.sort((a, b) => a - b);
      const p99 = pct(times, 99);
      if (p99 > worst.p99) worst = { p99, id: d.id };
      httpRows.push(`| ${d.id} | ${firstHttp.get(d.id)!.toFixed(0)} | ${pct(times, 50).toFixed(2)} | ${p99.toFixed(2)} | ${times[times.length - 1].toFixed(1)} |`);
    }
    const all = serverRss();
    await settle();
    console.log('Server process over HTTP (keyed requests, limit=20, records included; warm = the second of two passes, missing the response cache):');
    console.log('| dataset | first use ms | warm p50 ms | warm p99 ms | max ms |');
    console.log('|---|---|---|---|---|');
    for (const r of httpRows) console.log(r);
    console.log(`server: worst warm p99 ${worst.p99.toFixed(2)} ms (${worst.id}; target ≤ 10)`);
    console.log(`server process RSS (compiled server, default caches): ${mib(idle)} MiB listening; every index touched by one query: ${mib(touched)} MiB at once, ${mib(touchedSettled)} MiB after ${SETTLE_S} s idle (target < 400 MB = 381 MiB); after ${2 * N} queries on each: ${mib(all)} MiB at once, ${mib(serverRss())} MiB after ${SETTLE_S} s idle\n`);
  } finally {
    child.kill('SIGINT');
    cleanup(state);
  }
}
