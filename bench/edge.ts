/**
 * `npm run bench:edge` (and the last part of `npm run bench`): the Worker in workerd, in
 * two parts, both through workerd's own socket (not the local front door).
 *
 * 1. Interleaved traffic over every dataset (issue 39, item 3; bench/edge-traffic.ts):
 *    every route kind of every dataset, shuffled, one request at a time, two passes with
 *    different requests. Per request: the isolate's own CPU (workerd's V8 inspector
 *    profiles each request: samples in JavaScript and garbage collection, so not the
 *    local R2, KV, Durable Object and cache simulators, which run in the same process),
 *    the whole workerd process's CPU (an upper bound), the subrequests (R2, KV, Durable
 *    Object and Cache API calls the Worker counts itself, EXPOSE_COUNTS), the bytes read
 *    from R2, and the isolate's memory right after it, a full collection having run just
 *    before it (V8 heap used + array buffers, as Runtime.getHeapUsage gives them): what the
 *    isolate keeps plus all the request allocated, its garbage included. Printed per route
 *    kind beside Cloudflare's limits per plan.
 * 2. CPU per request under wrk (64 connections, BENCH_SECONDS), the Worker against the
 *    Node server on the same release and URLs (a lookup, a search, a study verse), in the
 *    same run, each server pinned to core 0 and wrk to core 1: the ratio is the figure.
 *
 * The release is ALMANAC_DIST (default dist/): the full mirror build for "every dataset"
 * (a smaller one is benched as it is, and says so). It is published to a local bucket
 * without its downloads. BENCH_EDGE_STATE keeps the bucket between runs (the publish then
 * takes a second). Prints the load average at the start and the end: the machine is shared.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { get as httpGet } from 'node:http';
import { availableParallelism, loadavg } from 'node:os';
import path from 'node:path';
import WebSocket from 'ws';
import { PROJECT_ROOT, distDir } from '../pipeline/paths.ts';
import { startLocalEdge } from '../edge/local.ts';
import { publishRelease } from '../edge/publish.ts';
import { syncKeys } from '../edge/sync.ts';
import { fsRelease } from '../server/release/fs-reader.ts';
import { KeyStore } from '../server/state/keys.ts';
import { cleanup, tempDir } from '../test/helpers.ts';
import { benchTraffic, KINDS, type BenchRequest, type Kind } from './edge-traffic.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const has = (bin: string) => { try { execFileSync('which', [bin], { stdio: 'ignore' }); return true; } catch { return false; } };
const PIN = availableParallelism() >= 2 && has('taskset');
const load = () => loadavg().map((x) => x.toFixed(2)).join(' ');
const work = tempDir('almanac-bench-edge-');
const dist = process.env.ALMANAC_DIST ?? distDir();
const release = (() => {
  try {
    return fsRelease(dist);
  } catch (err) {
    console.error(`bench:edge needs a built release in ${dist} (npm run build; every dataset: ALMANAC_MIRROR=<mirror> npm run fetch && npm run build): ${(err as Error).message}`);
    process.exit(1);
  }
})();
const INSPECTOR = 9339;

/** CPU seconds of a process, every thread summed, at nanosecond resolution (/proc/…/schedstat). */
const cpuOf = (pid: number) => {
  let ns = 0;
  for (const t of readdirSync(`/proc/${pid}/task`)) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/task/${t}/schedstat`, 'utf8').split(' ')[0]);
    } catch { /* a thread that ended */ }
  }
  return ns / 1e9;
};
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

/** The Worker isolate's inspector: CPU profiles and heap use. */
async function inspector() {
  const targets = (await (await fetch(`http://127.0.0.1:${INSPECTOR}/json`)).json()) as { title: string; webSocketDebuggerUrl: string }[];
  const t = targets.find((x) => x.title.endsWith('core:user:almanac'));
  if (!t) throw new Error(`no inspector target for the Worker among ${targets.map((x) => x.title).join(', ')}`);
  const ws = new WebSocket(t.webSocketDebuggerUrl);
  await new Promise((r) => ws.on('open', r));
  let id = 0;
  const call = (method: string, params: object = {}) => new Promise<any>((resolve) => {
    const my = ++id;
    const on = (m: Buffer) => {
      const r = JSON.parse(String(m));
      if (r.id === my) (ws.off('message', on), resolve(r.result));
    };
    ws.on('message', on);
    ws.send(JSON.stringify({ id: my, method, params }));
  });
  await call('Profiler.enable');
  await call('Profiler.setSamplingInterval', { interval: 50 });
  return {
    start: () => call('Profiler.start'),
    /** ms of samples in JavaScript or garbage collection since start (not idle, not other isolates). */
    async stop(): Promise<number> {
      const { profile: p } = await call('Profiler.stop');
      const own = new Set<number>();
      for (const n of p.nodes) if (!['(idle)', '(program)', '(root)'].includes(n.callFrame.functionName)) own.add(n.id);
      let us = 0;
      p.samples.forEach((s: number, i: number) => { if (own.has(s)) us += p.timeDeltas[i]; });
      return us / 1000;
    },
    /**
     * A full collection: workerd's inspector runs HeapProfiler.collectGarbage once the
     * isolate next runs, so /healthz (not measured) is asked until it has answered.
     */
    async collect(base: string) {
      let done = false;
      void call('HeapProfiler.collectGarbage').then(() => (done = true));
      while (!done) {
        await fetch(`${base}/healthz`).then((r) => r.arrayBuffer());
        await new Promise((r) => setTimeout(r, 10));
      }
    },
    /** V8 heap used + array buffers (backing stores), MiB. */
    async memory(): Promise<{ heap: number; buffers: number }> {
      const h = await call('Runtime.getHeapUsage');
      return { heap: h.usedSize / 2 ** 20, buffers: (h.backingStorageSize ?? 0) / 2 ** 20 };
    },
    close: () => ws.close(),
  };
}

/** One request on a connection of its own; the counts the Worker put in its headers. */
const get = (url: string, key: string) => new Promise<{ status: number; subrequests: number; r2: number; bytes: number }>((resolve, reject) => {
  httpGet(url, { agent: false, headers: { authorization: `Bearer ${key}`, 'x-service-key': key, 'accept-encoding': 'br' } }, (res) => {
    let bytes = 0;
    res.on('data', (c) => (bytes += c.length));
    res.on('end', () => resolve({ status: res.statusCode!, subrequests: Number(res.headers['x-edge-subrequests'] ?? -1), r2: Number(res.headers['x-edge-r2-bytes'] ?? 0), bytes }));
    res.on('error', reject);
  }).on('error', reject);
});

const q = (xs: number[], p: number) => (xs.length ? [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))] : NaN);
const f1 = (x: number) => (Number.isFinite(x) ? x.toFixed(1) : '–');

interface Row { req: BenchRequest; status: number; cpu: number; workerd: number; subrequests: number; r2: number; mem: number; heap: number }

const children: ChildProcess[] = [];
try {
  console.log(`bench:edge on release ${release.id} (${release.datasets.size} datasets) from ${dist}; load average ${load()}`);
  execFileSync(process.execPath, ['bin/compile.mjs', '--if-stale'], { cwd: PROJECT_ROOT, stdio: 'inherit' });
  const state = process.env.BENCH_EDGE_STATE ?? path.join(work, 'state');
  // A kept bucket, but never a kept Cache API: a second run would answer from the first's bodies.
  rmSync(path.join(state, 'edge', 'cache'), { recursive: true, force: true });
  const key = new KeyStore(state).create('development', 'bench').secret;
  const edge = await startLocalEdge({ stateDir: state, dist, port: 0, log: (m) => console.error(m), inspectorPort: INSPECTOR, publish: false, vars: { EXPOSE_COUNTS: '1' } });
  await publishRelease({ ...edge, url: edge.direct(), dist, bundles: false, log: (m) => console.error(m) });
  await syncKeys(edge, state);
  const wd = workerdPid();
  pin(wd);
  const insp = await inspector();

  // 1. Interleaved traffic, one request at a time.
  const rows: Row[] = [];
  for (const [pass, seed] of [[1, 39_001], [2, 39_002]] as const) {
    const traffic = await benchTraffic(release, seed);
    for (const req of traffic) {
      // Collected before, measured after: what the request itself adds to what the isolate keeps.
      await insp.collect(edge.direct());
      const c0 = cpuOf(wd);
      await insp.start();
      const r = await get(edge.direct() + req.path, key);
      const cpu = await insp.stop();
      const workerd = (cpuOf(wd) - c0) * 1000;
      const m = await insp.memory();
      rows.push({ req, status: r.status, cpu, workerd, subrequests: r.subrequests, r2: r.r2 / 2 ** 20, mem: m.heap + m.buffers, heap: m.heap });
      if (r.status >= 500) console.error(`${r.status} ${req.path}`);
      if (process.env.BENCH_VERBOSE) console.error(pass, req.kind, r.status, cpu.toFixed(1), 'ms', r.subrequests, 'sub', (r.r2 / 2 ** 20).toFixed(2), 'MiB R2', (m.heap + m.buffers).toFixed(0), 'MiB', req.path);
    }
  }
  const pass = rows.length / 2;
  console.log(`\n${rows.length} requests (2 passes of ${pass}: every route kind of every dataset, shuffled), one at a time; load average now ${load()}`);
  console.log('| route kind | requests | isolate CPU ms p50 / p99 / max | workerd CPU ms p50 / max | subrequests p50 / max | R2 MiB p50 / max | isolate MiB after it, collected before (heap + buffers) max | within the free plan (10 ms, 50) | non-2xx |');
  console.log('|---|---|---|---|---|---|---|---|---|');
  const kinds: (Kind | 'all')[] = [...KINDS, 'all'];
  for (const k of kinds) {
    const rs = rows.filter((r) => k === 'all' || r.req.kind === k);
    if (!rs.length) continue;
    const col = (f: (r: Row) => number, ps: number[]) => ps.map((p) => f1(p === 1 ? Math.max(...rs.map(f)) : q(rs.map(f), p))).join(' / ');
    console.log(`| ${k} | ${rs.length} | ${col((r) => r.cpu, [0.5, 0.99, 1])} | ${col((r) => r.workerd, [0.5, 1])} | ${col((r) => r.subrequests, [0.5, 1])} | ${col((r) => r.r2, [0.5, 1])} | ${f1(Math.max(...rs.map((r) => r.mem)))} | ${((100 * rs.filter((r) => r.cpu <= 10 && r.subrequests <= 50).length) / rs.length).toFixed(0)} % | ${rs.filter((r) => r.status >= 300).length} |`);
  }
  const worst = (f: (r: Row) => number) => rows.reduce((a, b) => (f(b) > f(a) ? b : a));
  for (const [what, f] of [['isolate CPU', (r: Row) => r.cpu], ['subrequests', (r: Row) => r.subrequests], ['R2 bytes', (r: Row) => r.r2]] as const) {
    const w = worst(f);
    console.log(`most ${what}: ${f1(f(w))} — ${w.req.kind} ${w.req.path.slice(0, 120)}`);
  }
  const over = (cpu: number, sub: number) => rows.filter((r) => r.cpu > cpu || r.subrequests > sub).length;
  console.log(`over the free plan's 10 ms CPU or 50 subrequests: ${over(10, 50)} of ${rows.length} (${rows.filter((r) => r.cpu > 10).length} CPU, ${rows.filter((r) => r.subrequests > 50).length} subrequests); over 1,000 subrequests (paid): ${rows.filter((r) => r.subrequests > 1000).length}; isolate memory max ${f1(Math.max(...rows.map((r) => r.mem)))} MiB of 128 MB`);
  const st = (await (await fetch(`${edge.direct()}/_edge/stats`, { headers: { authorization: `Bearer ${edge.token}` } })).json()) as { shard_cache_bytes: number };
  console.log(`shard cache at the end: ${f1(st.shard_cache_bytes / 2 ** 20)} MiB`);

  // 2. The Worker against the Node server under wrk, same URLs, same run.
  if (!has('wrk')) console.log('\n(part 2 needs wrk: apt-get install -y wrk)');
  else {
    const node = spawn(process.execPath, ['lib/server/cli/serve.js'], { cwd: PROJECT_ROOT, env: { ...process.env, ALMANAC_DIST: dist, ALMANAC_STATE_DIR: state, PORT: '0' }, stdio: ['ignore', 'pipe', 'inherit'] });
    children.push(node);
    const nodePort = await new Promise<number>((resolve) => node.stdout!.on('data', (c) => { const m = /:(\d+) /.exec(String(c)); if (m) resolve(Number(m[1])); }));
    pin(node.pid!);
    const lua = path.join(work, 'r.lua');
    writeFileSync(lua, `done = function(s, l) io.write(string.format("RESULT %d %d %d %d %d\\n", s.requests, s.duration, l:percentile(50), l:percentile(99), s.errors.status + s.errors.connect + s.errors.read + s.errors.timeout)) end`);
    const run = (url: string, s: number) => execFileSync(PIN ? 'taskset' : 'wrk', [...(PIN ? ['-c', '1', 'wrk'] : []), '-t1', '-c64', `-d${s}s`, '--timeout', '10s', '-s', lua, '-H', `Authorization: Bearer ${key}`, '-H', 'Accept-Encoding: br', url], { encoding: 'utf8' });
    const loadOf = async (url: string, pid: number, profile = false) => {
      run(url, 3); // warm: 64 cold compositions at once take seconds on a busy machine
      const c0 = cpuOf(pid);
      if (profile) await insp.start();
      const [n, us, , p99, errors] = /RESULT (.*)/.exec(run(url, SECONDS))![1].split(' ').map(Number);
      const isolateUs = profile ? ((await insp.stop()) * 1000) / n : NaN;
      return { rps: n / (us / 1e6), cpuUs: ((cpuOf(pid) - c0) / n) * 1e6, isolateUs, p99: p99 / 1000, errors };
    };
    console.log(`\nunder wrk, ${SECONDS} s per run, 64 connections, Accept-Encoding: br${PIN ? ', servers on core 0, wrk on core 1' : ''}; load average ${load()}`);
    console.log('| request | Node CPU µs/req | Worker isolate CPU µs/req | Worker (all of workerd) CPU µs/req | isolate / Node | workerd / Node | req/s Node / Worker | p99 ms Node / Worker |');
    console.log('|---|---|---|---|---|---|---|---|');
    for (const u of [['lookup', '/apis/elements/Fe'], ['search', '/api/v1/search?translation=kjv&q=shepherd&limit=10'], ['study verse', '/api/v1/study/kjv/john/3/16']]) {
      const n = await loadOf(`http://127.0.0.1:${nodePort}${u[1]}`, node.pid!);
      const w = await loadOf(edge.direct() + u[1], wd, true);
      if (!Number.isFinite(w.cpuUs) || !Number.isFinite(n.cpuUs)) {
        console.log(`| ${u[0]} \`${u[1]}\` | no request completed in the run: ${JSON.stringify({ node: n, worker: w })} |`);
        continue;
      }
      console.log(`| ${u[0]} \`${u[1]}\` | ${n.cpuUs.toFixed(0)} | ${w.isolateUs.toFixed(0)} | ${w.cpuUs.toFixed(0)} | ${(w.isolateUs / n.cpuUs).toFixed(1)}× | ${(w.cpuUs / n.cpuUs).toFixed(1)}× | ${n.rps.toFixed(0)} / ${w.rps.toFixed(0)} | ${n.p99.toFixed(1)} / ${w.p99.toFixed(1)} |${n.errors + w.errors ? ` ${n.errors}/${w.errors} errors` : ''}`);
    }
  }
  console.log(`load average at the end ${load()}`);
  insp.close();
  await edge.close(0);
} finally {
  for (const c of children) c.kill('SIGTERM');
  cleanup(work);
}
