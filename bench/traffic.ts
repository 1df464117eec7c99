/**
 * `npm run bench:traffic`: the traffic itself (issue 27), on the full release of
 * ALMANAC_DIST (default dist/), in one run:
 *
 *  1. cold start: BENCH_STARTS (3) starts of the compiled server with no load; the time from
 *     process start to its "serving … on" line and to the first 200 of `/apis/elements/Fe`
 *     (asked every 2 ms from the moment the process is spawned), and the CPU it had used then;
 *  2. the first seconds: a fresh server, and from the moment it is spawned BENCH_CONNS (32)
 *     connections of mixed traffic (or, with BENCH_RATE=<n>, n requests a second sent
 *     whatever the answers: an open loop) plus one connection asking `/healthz` every
 *     50 ms, for BENCH_COLD_S (20) seconds. The first 15 s are reported apart: per route kind
 *     p50/p99/max, `/healthz` p99, every request over 1 s, time to the first 200;
 *  3. the search working set: one connection, BENCH_SEARCH_QUERIES (40) queries per
 *     searchable dataset, every dataset's queries in one mixed (seeded) order, two passes;
 *     the second (`offset=0`, so it misses the response cache) is reported per dataset;
 *  4. steady traffic: BENCH_STEADY_N (12,000) requests of the mixed stream (from a fixed
 *     place in it, so every server compared gets the same ones) on BENCH_CONNS connections,
 *     per route kind, server CPU per request, RSS;
 *  5. the floor: a bare node:http server (in memory, no routing but a Map) answering the
 *     same URLs with the bytes almanac sent for them in step 4, replayed the same way.
 *
 * The queries come from the release itself (records' ids and searchable words, filter
 * values, the translations' books and chapters), drawn with a seeded PRNG (BENCH_SEED, 27):
 * the same release gives the same requests. The servers are pinned to core 0 and this
 * process (the client) to core 1 with taskset, as bench/scale.ts does. The load average is
 * printed with every measurement: the machine is shared.
 *
 * BENCH_LIB=<compiled tree>/lib runs another compiled server (a before/after comparison;
 * then nothing is compiled); by default lib/, compiled first when stale, as `npm run serve`.
 * BENCH_SERVER_NODE_ARGS passes flags to the server's node (`--cpu-prof --cpu-prof-dir=…`);
 * BENCH_STARTS=0, BENCH_SEARCH_QUERIES=0 and BENCH_STEADY_N=0 skip steps 1, 3 and 4–5;
 * BENCH_SEARCH_SLOWEST=<n> lists step 3's n slowest second-pass requests.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { PROJECT_ROOT, distDir, filterPath, releaseDir } from '../pipeline/paths.ts';
import type { DatasetInfo } from '../pipeline/shards.ts';
import { fsRelease } from '../server/release/fs-reader.ts';
import { KeyStore } from '../server/state/keys.ts';
import type { TranslationSummary } from '../sources/scripture/dataset.ts';
import { random } from '../test/edge-urls.ts';
import { cleanup, tempDir } from '../test/helpers.ts';

const env = process.env;
const SEED = Number(env.BENCH_SEED ?? 27);
const CONNS = Number(env.BENCH_CONNS ?? 32);
const WINDOW_S = 15;
const COLD_S = Math.max(WINDOW_S, Number(env.BENCH_COLD_S ?? 20));
const STEADY_N = Number(env.BENCH_STEADY_N ?? 12_000);
/** Where the steady phase starts in the stream: the same requests for every server compared, whatever the first seconds got through. */
const STEADY_FROM = 100_000;
const SEARCH_Q = Number(env.BENCH_SEARCH_QUERIES ?? 40);
const STARTS = Number(env.BENCH_STARTS ?? 3);
/** Step 2 at a fixed rate (requests per second, open loop) instead of closed-loop connections. */
const RATE = Number(env.BENCH_RATE ?? 0);
const dist = distDir();
const cores = availableParallelism();
const has = (bin: string) => { try { execFileSync('which', [bin], { stdio: 'ignore' }); return true; } catch { return false; } };
const PIN = cores >= 2 && has('taskset');
const pinned = (cpu: string, cmd: string, args: string[]): [string, string[]] => (PIN ? ['taskset', ['-c', cpu, cmd, ...args]] : [cmd, args]);
const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

let lib = env.BENCH_LIB;
if (!lib) {
  execFileSync(process.execPath, ['bin/compile.mjs', '--if-stale'], { cwd: PROJECT_ROOT, stdio: 'inherit' });
  lib = path.join(PROJECT_ROOT, 'lib');
}
const serverJs = path.join(path.resolve(lib), 'server/cli/serve.js');
if (!existsSync(serverJs)) throw new Error(`no compiled server at ${serverJs}`);
// The client on core 1 (every thread of this process), the servers on core 0.
if (PIN) execFileSync('taskset', ['-a', '-p', '-c', '1', String(process.pid)], { stdio: 'ignore' });

const rnd = random(SEED);
const pick = <T>(xs: T[]): T => xs[Math.floor(rnd() * xs.length)];
const int = (n: number) => Math.floor(rnd() * n);

// ---------------------------------------------------------------- the requests, from the release
type Kind = 'healthz' | 'lookup' | 'list' | 'filter' | 'search' | 'v1 search' | 'text verse' | 'text chapter' | 'study verse' | 'study range' | 'document';
interface Req { kind: Kind; path: string; ds?: string }
const KINDS: Kind[] = ['healthz', 'lookup', 'list', 'filter', 'search', 'v1 search', 'text verse', 'text chapter', 'study verse', 'study range', 'document'];

const tDerive = performance.now();
const release = fsRelease(dist);
const relDir = releaseDir(dist, release.id);
const datasets = [...release.datasets.values()].sort((a, b) => a.id.localeCompare(b.id));
const translations = datasets.filter((d) => d.id.startsWith('bible/'));
const platform = datasets.filter((d) => !d.id.startsWith('bible') && d.records > 0);
const searchable = datasets.filter((d) => d.search_fields?.length);
const record = async (ds: string, o: number) => JSON.parse((await release.record(ds, o)).toString()) as Record<string, unknown>;
const words = (v: unknown): string[] =>
  typeof v === 'string' ? (v.toLowerCase().match(/\p{L}{3,}/gu) ?? []) : Array.isArray(v) ? v.flatMap(words) : [];
const slugOf = (d: DatasetInfo) => (d.summary as TranslationSummary).slug;

const pools = new Map<Kind, Req[]>(KINDS.map((k) => [k, []]));
const add = (r: Req) => pools.get(r.kind)!.push(r);
add({ kind: 'healthz', path: '/healthz' });
for (const p of ['/apis', '/api/v1/translations', '/apis/openapi.json', '/']) add({ kind: 'document', path: p });
for (const d of platform) {
  for (let i = 0; i < 12; i++) {
    const id = (await record(d.id, int(d.records))).id;
    if (typeof id === 'string' || typeof id === 'number') add({ kind: 'lookup', ds: d.id, path: `/apis/${d.id}/${encodeURIComponent(String(id))}` });
  }
  for (let i = 0; i < 3; i++) add({ kind: 'list', ds: d.id, path: `/apis/${d.id}?limit=20&offset=${int(Math.max(1, d.records - 20))}` });
  // Filters with a value index (not the range and comparison ones): a value that occurs.
  const params = (d.filters ?? []).map((f) => f.param).filter((p) => release.entry(filterPath(d.id, p)));
  for (let i = 0; params.length && i < 4; i++) {
    const p = pick(params);
    const values = Object.keys(JSON.parse(readFileSync(path.join(relDir, filterPath(d.id, p)), 'utf8')));
    if (values.length) add({ kind: 'filter', ds: d.id, path: `/apis/${d.id}?${new URLSearchParams({ [p]: pick(values), limit: '20' })}` });
  }
}
/** Searches per dataset, drawn from its own records: one word, or two adjacent, alternately. */
const searchesOf = new Map<string, Req[]>();
for (const d of searchable) {
  const qs: Req[] = [];
  for (let tries = 0; qs.length < Math.max(SEARCH_Q, 60) && tries < 2000; tries++) {
    const rec = await record(d.id, int(d.records));
    const w = d.search_fields!.flatMap((f) => words(rec[f]));
    if (!w.length) continue;
    const at = int(w.length);
    const q = qs.length % 2 && at + 1 < w.length ? `${w[at]} ${w[at + 1]}` : w[at];
    qs.push(d.id.startsWith('bible/')
      ? { kind: 'v1 search', ds: d.id, path: `/api/v1/search?${new URLSearchParams({ translation: slugOf(d), q, limit: '20' })}` }
      : { kind: 'search', ds: d.id, path: `/apis/${d.id}/search?${new URLSearchParams({ q, limit: '20' })}` });
  }
  searchesOf.set(d.id, qs);
  for (const r of qs) add(r);
}
/** Every verse of a translation as book/chapter/verse, in canon order (from its summary). */
const versesOf = (d: DatasetInfo) => (d.summary as TranslationSummary).books.flatMap((b) =>
  b.chapters.flatMap(([c, , n]) => Array.from({ length: n }, (_, v) => ({ book: b.slug, chapter: c, verse: v + 1 }))));
const studyOf = translations.filter((d) => ['kjv', 'asv'].includes(slugOf(d)));
for (const d of translations) {
  const vs = versesOf(d);
  for (let i = 0; i < 10; i++) {
    const v = pick(vs);
    add({ kind: 'text verse', ds: d.id, path: `/api/v1/text/${slugOf(d)}/${v.book}/${v.chapter}/${v.verse}` });
  }
  for (let i = 0; i < 3; i++) {
    const v = pick(vs);
    add({ kind: 'text chapter', ds: d.id, path: `/api/v1/text/${slugOf(d)}/${v.book}/${v.chapter}` });
  }
}
for (const d of studyOf) {
  const vs = versesOf(d);
  for (let i = 0; i < 30; i++) {
    const v = pick(vs);
    add({ kind: 'study verse', ds: d.id, path: `/api/v1/study/${slugOf(d)}/${v.book}/${v.chapter}/${v.verse}` });
  }
  for (let i = 0; i < 4; i++) {
    const at = int(vs.length - 100);
    const ref = (v: (typeof vs)[number]) => `${v.book}.${v.chapter}.${v.verse}`;
    add({ kind: 'study range', ds: d.id, path: `/api/v1/study/${slugOf(d)}/range?from=${ref(vs[at])}&to=${ref(vs[at + 99])}` });
  }
}
/** Shares of the mixed stream (the rest of a request's choice is uniform within its pool). */
const WEIGHTS: Record<Kind, number> = {
  healthz: 2, lookup: 25, list: 5, filter: 8, search: 30, 'v1 search': 8, 'text verse': 10, 'text chapter': 3, 'study verse': 5, 'study range': 0.3, document: 1,
};
const weighted = KINDS.filter((k) => pools.get(k)!.length);
const totalWeight = weighted.reduce((s, k) => s + WEIGHTS[k], 0);
/** The mixed stream: request i is the same in every run and against every target. */
const STREAM_LEN = 200_000;
const stream: Req[] = [];
for (let i = 0; i < STREAM_LEN; i++) {
  let x = rnd() * totalWeight;
  const k = weighted.find((kk) => (x -= WEIGHTS[kk]) < 0) ?? weighted[0];
  stream.push(pick(pools.get(k)!));
}
const deriveMs = performance.now() - tDerive;

// ---------------------------------------------------------------- the client
interface Sample { kind: Kind; ds?: string; at: number; ms: number; status: number; bytes: number }
const pct = (xs: number[], p: number) => (xs.length ? xs[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))] : NaN);
const f = (x: number | undefined, d = 1) => (x === undefined || Number.isNaN(x) ? '–' : x.toFixed(d));

/**
 * A request, asked again every 2 ms while the server is not listening yet (until `until`);
 * null when it failed. `sent`: when the attempt that was answered began (the refused ones
 * before it are not the server's time).
 */
async function requestWhileStarting(agent: http.Agent, base: URL, p: string, headers: Record<string, string>, until: number, keep?: (body: Buffer) => void) {
  for (;;) {
    const sent = performance.now();
    try {
      return { ...(await request(agent, base, p, headers, keep)), sent };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ECONNREFUSED' || performance.now() >= until) return null;
      await new Promise((res) => setTimeout(res, 2));
    }
  }
}

function request(agent: http.Agent, base: URL, p: string, headers: Record<string, string>, keep?: (body: Buffer) => void) {
  return new Promise<{ status: number; bytes: number }>((resolve, reject) => {
    const req = http.get({ host: base.hostname, port: base.port, path: p, agent, headers }, (res) => {
      let bytes = 0;
      const parts: Buffer[] | undefined = keep && res.statusCode === 200 ? [] : undefined;
      res.on('data', (c: Buffer) => { bytes += c.length; parts?.push(c); });
      res.on('end', () => {
        if (parts) keep!(Buffer.concat(parts));
        resolve({ status: res.statusCode ?? 0, bytes });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

/**
 * `conns` connections replay `stream` from `from` until `until` (ms on this process's
 * clock); each request's time is taken from the moment it is sent on a connection. A
 * refused connection (the server not listening yet) is retried after 2 ms and not counted.
 */
async function replay(base: URL, headers: Record<string, string>, from: number, conns: number, until: number, t0: number, keep?: (r: Req) => ((body: Buffer) => void) | undefined, count = Infinity) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: conns });
  const out: Sample[] = [];
  let next = from;
  let errors = 0;
  const worker = async () => {
    while (performance.now() < until && next < from + count) {
      const r = stream[next++ % stream.length];
      const got = await requestWhileStarting(agent, base, r.path, headers, until, keep?.(r));
      if (got) out.push({ kind: r.kind, ds: r.ds, at: got.sent - t0, ms: performance.now() - got.sent, status: got.status, bytes: got.bytes });
      else errors++;
    }
  };
  await Promise.all(Array.from({ length: conns }, worker));
  agent.destroy();
  return { samples: out, errors, next };
}

/**
 * Open loop: request i of `stream` (from `from`) is sent at t0 + i / rate seconds whatever
 * the answers before it, on at most `conns` connections (beyond that it waits for one,
 * and its time counts from when it was due). Closed-loop clients (replay) ask faster when
 * answers come faster, so a server that answers cheap requests sooner is sent more
 * searches; at a fixed rate two servers get the same requests at the same moments.
 */
async function replayAtRate(base: URL, headers: Record<string, string>, rate: number, conns: number, until: number, t0: number) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: conns });
  const out: Sample[] = [];
  let errors = 0;
  const pending: Promise<void>[] = [];
  for (let i = 0; ; i++) {
    const due = t0 + (i * 1000) / rate;
    if (due >= until) break;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((res) => setTimeout(res, wait));
    const r = stream[i % stream.length];
    pending.push((async () => {
      const got = await requestWhileStarting(agent, base, r.path, headers, until);
      // Timed from when it was due, refused attempts included: the open loop counts waiting.
      if (got) out.push({ kind: r.kind, ds: r.ds, at: due - t0, ms: performance.now() - due, status: got.status, bytes: got.bytes });
      else errors++;
    })());
  }
  await Promise.all(pending);
  agent.destroy();
  return { samples: out, errors, next: pending.length };
}

/** `/healthz` every `everyMs` on its own connection until `until`. */
async function pollHealth(base: URL, everyMs: number, until: number, t0: number): Promise<Sample[]> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const out: Sample[] = [];
  while (performance.now() < until) {
    const start = performance.now();
    try {
      const { status, bytes } = await request(agent, base, '/healthz', {});
      out.push({ kind: 'healthz', at: start - t0, ms: performance.now() - start, status, bytes });
    } catch {
      await new Promise((res) => setTimeout(res, 2));
      continue;
    }
    const wait = start + everyMs - performance.now();
    if (wait > 0) await new Promise((res) => setTimeout(res, wait));
  }
  agent.destroy();
  return out;
}

function table(samples: Sample[], title: string, floor?: Sample[]) {
  console.log(`\n${title}`);
  console.log(`| route kind | requests | non-200 | p50 ms | p99 ms | max ms |${floor ? ' node:http p50 | p99 | max |' : ''}`);
  console.log(`|---|---|---|---|---|---|${floor ? '---|---|---|' : ''}`);
  for (const k of [...KINDS, 'all' as const]) {
    const of = (xs: Sample[]) => (k === 'all' ? xs : xs.filter((s) => s.kind === k));
    const s = of(samples);
    if (!s.length) continue;
    const ms = s.map((x) => x.ms).sort((a, b) => a - b);
    const fl = floor ? of(floor).map((x) => x.ms).sort((a, b) => a - b) : undefined;
    const bad = s.filter((x) => x.status !== 200).length;
    console.log(`| ${k} | ${s.length} | ${bad} | ${f(pct(ms, 50), 2)} | ${f(pct(ms, 99), 1)} | ${f(ms[ms.length - 1], 1)} |${fl ? ` ${f(pct(fl, 50), 2)} | ${f(pct(fl, 99), 1)} | ${f(fl[fl.length - 1], 1)} |` : ''}`);
  }
}

// ---------------------------------------------------------------- the servers
const work = tempDir('almanac-bench-traffic-');
const template = path.join(work, 'state');
const key = new KeyStore(template).create('development', 'bench').secret;
const auth = { authorization: `Bearer ${key}` };
const children: ChildProcess[] = [];
const kill = (c: ChildProcess, sig: NodeJS.Signals = 'SIGTERM') => new Promise((r) => { if (c.exitCode !== null || c.signalCode !== null) return r(null); c.once('exit', r); c.kill(sig); });
let states = 0;

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createNetServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => resolve(port));
    });
  });
}
const procStat = (pid: number) => readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
const cpuMs = (pid: number) => { const s = procStat(pid); return (Number(s[11]) + Number(s[12])) * 10; };
const status = (pid: number, field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

/** The compiled server, pinned to core 0, on a port chosen here so a client can knock before it listens. */
async function startAlmanac() {
  const state = path.join(work, `state-${states++}`);
  cpSync(template, state, { recursive: true });
  const port = await freePort();
  const [cmd, args] = pinned('0', process.execPath, [...(env.BENCH_SERVER_NODE_ARGS?.split(' ').filter(Boolean) ?? []), serverJs]);
  const t0 = performance.now();
  const child = spawn(cmd, args, { cwd: PROJECT_ROOT, env: { ...env, NODE_OPTIONS: '', ALMANAC_DIST: dist, ALMANAC_STATE_DIR: state, HOST: '127.0.0.1', PORT: String(port) }, stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  // Only the start-up's output is kept: the access log's lines follow on the same pipe,
  // and a string of all of them, flattened by the test on every chunk, cost this client
  // milliseconds per response by the search passes (~8 MB after the first seconds).
  let out = '';
  let up = false;
  const listening = new Promise<number>((resolve, reject) => {
    child.stdout!.on('data', (c) => {
      if (up) return;
      out += c;
      if (/serving .* on http/.test(out)) {
        up = true;
        resolve(performance.now() - t0);
      }
    });
    child.on('exit', (code) => reject(new Error(`server exited ${code}: ${out.slice(-300)}`)));
  });
  listening.catch(() => {});
  return { child, t0, base: new URL(`http://127.0.0.1:${port}`), listening };
}

try {
  console.log(`release ${release.id} in ${dist}: ${datasets.length} datasets (${searchable.length} searchable, ${translations.length} translations); server ${path.relative(PROJECT_ROOT, serverJs) || serverJs}; node ${process.version}, ${cores} cores${PIN ? ', server on core 0 and this client on core 1 (taskset)' : ''}; seed ${SEED}`);
  console.log(`requests drawn from the release in ${(deriveMs / 1000).toFixed(1)} s: ${KINDS.map((k) => `${k} ${pools.get(k)!.length}`).join(', ')}`);

  // 1. Cold start, no load.
  if (STARTS > 0) console.log(`\n1. Cold start, no load (${STARTS} starts; load average ${load()})`);
  if (STARTS > 0) console.log('| start | listening ms | first 200 of /apis/elements/Fe ms | server CPU by then ms |\n|---|---|---|---|');
  const firsts: number[] = [];
  for (let i = 0; i < STARTS; i++) {
    const s = await startAlmanac();
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    let first = 0;
    for (;;) {
      try {
        if ((await request(agent, s.base, '/apis/elements/Fe', auth)).status === 200) {
          first = performance.now() - s.t0;
          break;
        }
      } catch { /* not listening yet */ }
      await new Promise((r) => setTimeout(r, 2));
    }
    const cpu = cpuMs(s.child.pid!);
    const listening = await s.listening;
    agent.destroy();
    firsts.push(first);
    console.log(`| ${i + 1} | ${f(listening, 0)} | ${f(first, 0)} | ${cpu} |`);
    await kill(s.child);
  }
  if (STARTS > 0) console.log(`median first 200: ${f([...firsts].sort((a, b) => a - b)[Math.floor(firsts.length / 2)], 0)} ms (target ≤ 1000); load average ${load()}`);

  // 2. The first seconds under traffic.
  const s = await startAlmanac();
  const pid = s.child.pid!;
  const coldUntil = s.t0 + COLD_S * 1000;
  const [cold, health] = await Promise.all([
    RATE ? replayAtRate(s.base, auth, RATE, CONNS, coldUntil, s.t0) : replay(s.base, auth, 0, CONNS, coldUntil, s.t0),
    pollHealth(s.base, 50, coldUntil, s.t0),
  ]);
  const loadCold = load();
  const listening = await s.listening;
  const rssCold = status(pid, 'VmRSS');
  const win = cold.samples.filter((x) => x.at < WINDOW_S * 1000);
  const hw = health.filter((x) => x.at < WINDOW_S * 1000);
  // A loop, not Math.min(...): a busy window answers more requests than a call has room for arguments.
  const firstOk = cold.samples.reduce((m, x) => (x.status === 200 ? Math.min(m, x.at + x.ms) : m), Infinity);
  const firstHealth = hw.length ? hw[0].at + hw[0].ms : NaN;
  const slow = win.filter((x) => x.ms > 1000);
  const hms = hw.map((x) => x.ms).sort((a, b) => a - b);
  console.log(`\n2. The first ${WINDOW_S} s after start, under ${RATE ? `${RATE} requests a second of mixed traffic (open loop, at most ${CONNS} connections)` : `${CONNS} connections of mixed traffic`} plus /healthz every 50 ms on its own connection (load average ${loadCold})`);
  console.log(`listening after ${f(listening, 0)} ms; first 200 after ${f(firstOk, 0)} ms; first /healthz answered after ${f(firstHealth, 0)} ms`);
  console.log(`/healthz (own connection, ${hw.length} asked in the window): p50 ${f(pct(hms, 50), 2)} ms, p99 ${f(pct(hms, 99), 1)} ms, max ${f(hms[hms.length - 1], 1)} ms (target p99 ≤ 50)`);
  // When the slow ones were asked: the first second after listening, or spread over the window.
  const slowHealth = hw.filter((x) => x.ms > 50);
  if (slowHealth.length) console.log(`/healthz over 50 ms: ${slowHealth.length}, asked at ${slowHealth.map((x) => `${f(x.at / 1000, 2)} s (${f(x.ms, 0)} ms)`).join(', ')}`);
  console.log(`requests answered in the window: ${win.length}; over 1 s: ${slow.length} (target 0)${slow.length ? `: ${[...new Set(slow.map((x) => x.kind))].map((k) => `${k} ${slow.filter((x) => x.kind === k).length}`).join(', ')}, slowest ${f(slow.reduce((m, x) => Math.max(m, x.ms), 0), 0)} ms` : ''}; errors ${cold.errors}`);
  table(win, `First ${WINDOW_S} s, per route kind:`);
  table(cold.samples.filter((x) => x.at >= WINDOW_S * 1000), `Seconds ${WINDOW_S}–${COLD_S} after start:`);
  console.log(`server RSS after ${COLD_S} s: ${f(rssCold, 0)} MiB`);

  // 3. The search working set: every searchable dataset's queries in one mixed order, sequential, two passes.
  if (SEARCH_Q > 0) await searchPasses(s.base, pid);

  if (STEADY_N > 0) await steadyAndFloor(s, pid, STEADY_FROM);
  await kill(s.child);
} finally {
  for (const c of children) await kill(c);
  cleanup(work);
}

async function searchPasses(base: URL, pid: number) {
  const order: { d: DatasetInfo; r: Req }[] = [];
  for (const d of searchable) for (const r of searchesOf.get(d.id)!.slice(0, SEARCH_Q)) order.push({ d, r });
  for (let i = order.length - 1; i > 0; i--) {
    const j = int(i + 1);
    [order[i], order[j]] = [order[j], order[i]];
  }
  const one = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const byDs = new Map<string, number[]>();
  const firstPass: number[] = [];
  const slowest: { path: string; ms: number; at: bigint }[] = [];
  const tSearch = performance.now();
  let cpuSecond = 0;
  for (const pass of [0, 1]) {
    const cpu0 = cpuMs(pid);
    for (const { d, r } of order) {
      const t = performance.now();
      // The monotonic clock in µs, as a server CPU profile (node --cpu-prof) stamps its samples.
      const at = process.hrtime.bigint() / 1000n;
      const got = await request(one, base, pass ? `${r.path}&offset=0` : r.path, auth);
      const ms = performance.now() - t;
      if (got.status !== 200 && got.status !== 400) throw new Error(`${r.path}: ${got.status}`);
      if (pass) (byDs.get(d.id) ?? byDs.set(d.id, []).get(d.id)!).push(ms), slowest.push({ path: r.path, ms, at });
      else firstPass.push(ms);
    }
    if (pass) cpuSecond = cpuMs(pid) - cpu0;
  }
  one.destroy();
  const searchS = (performance.now() - tSearch) / 1000;
  const rssSearch = status(pid, 'VmRSS');
  const all2 = [...byDs.values()].flat().sort((a, b) => a - b);
  firstPass.sort((a, b) => a - b);
  console.log(`\n3. Search working set: ${SEARCH_Q} queries on each of ${searchable.length} searchable datasets in one mixed order, one connection, two passes (${f(searchS, 0)} s; load average ${load()})`);
  console.log(`first pass: p50 ${f(pct(firstPass, 50), 2)} ms, p90 ${f(pct(firstPass, 90), 1)}, p99 ${f(pct(firstPass, 99), 1)}, max ${f(firstPass[firstPass.length - 1], 1)} ms`);
  console.log(`second pass (offset=0: misses the response cache): p50 ${f(pct(all2, 50), 2)} ms, p90 ${f(pct(all2, 90), 1)}, p99 ${f(pct(all2, 99), 1)} ms, max ${f(all2[all2.length - 1], 1)} ms (target p99 ≤ 10); server CPU ${f((cpuSecond * 1000) / order.length, 0)} µs a request (less sensitive to the machine's load than the times); server RSS ${f(rssSearch, 0)} MiB`);
  console.log('| dataset | p50 ms | p90 ms | p99 ms | max ms |');
  console.log('|---|---|---|---|---|');
  for (const [id, xs] of byDs) {
    xs.sort((a, b) => a - b);
    console.log(`| ${id} | ${f(pct(xs, 50), 2)} | ${f(pct(xs, 90), 1)} | ${f(pct(xs, 99), 1)} | ${f(xs[xs.length - 1], 1)} |`);
  }
  // The requests that make the tail, to replay alone or to find in a server profile by their
  // start on the monotonic clock (BENCH_SEARCH_SLOWEST, default 0).
  const nSlow = Number(env.BENCH_SEARCH_SLOWEST ?? 0);
  if (nSlow > 0) {
    console.log(`slowest ${nSlow} of the second pass:`);
    for (const x of slowest.sort((a, b) => b.ms - a.ms).slice(0, nSlow)) console.log(`${f(x.ms, 1)} ms ${x.path} at ${x.at} µs`);
  }
}

async function steadyAndFloor(s: { base: URL; t0: number }, pid: number, from: number) {
  // 4. Steady traffic; the bytes of each URL kept for the floor.
  const bodies = path.join(work, 'bodies');
  mkdirSync(bodies);
  const index: Record<string, string> = {};
  let kept = 0;
  const keep = (r: Req) => (index[r.path] ? undefined : (b: Buffer) => {
    if (index[r.path]) return;
    index[r.path] = `b${kept++}`;
    writeFileSync(path.join(bodies, index[r.path]), b);
  });
  const cpu0 = cpuMs(pid);
  const tSteady = performance.now();
  const steady = await replay(s.base, auth, from, CONNS, Infinity, s.t0, keep, STEADY_N);
  const steadyS = (performance.now() - tSteady) / 1000;
  const cpuSteady = cpuMs(pid) - cpu0;
  const loadSteady = load();
  const rssEnd = status(pid, 'VmRSS');
  const rssPeak = status(pid, 'VmHWM');
  writeFileSync(path.join(bodies, 'index.json'), JSON.stringify(index));

  // 5. The floor: the same bytes from memory on a bare node:http, the same stream.
  const floorJs = `
    import { createServer } from 'node:http';
    import { readFileSync } from 'node:fs';
    const dir = process.argv[1];
    const index = JSON.parse(readFileSync(dir + '/index.json', 'utf8'));
    const bodies = new Map(Object.entries(index).map(([u, file]) => [u, readFileSync(dir + '/' + file)]));
    const server = createServer((req, res) => {
      const body = bodies.get(req.url);
      if (!body) return void res.writeHead(404, ['content-length', '0']).end();
      res.writeHead(200, ['content-type', 'application/json; charset=utf-8', 'content-length', String(body.length)]);
      res.end(body);
    });
    server.listen(0, '127.0.0.1', () => console.log('listening ' + server.address().port));
    process.on('SIGTERM', () => process.exit(0));`;
  const [fcmd, fargs] = pinned('0', process.execPath, ['--input-type=module', '-e', floorJs, bodies]);
  const floorChild = spawn(fcmd, fargs, { stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(floorChild);
  const floorPort = await new Promise<number>((resolve) => floorChild.stdout!.on('data', (c) => { const m = /listening (\d+)/.exec(String(c)); if (m) resolve(Number(m[1])); }));
  const fcpu0 = cpuMs(floorChild.pid!);
  const tFloor = performance.now();
  const floor = await replay(new URL(`http://127.0.0.1:${floorPort}`), auth, from, CONNS, Infinity, tFloor, undefined, steady.samples.length + steady.errors);
  const floorS = (performance.now() - tFloor) / 1000;
  const fcpu = cpuMs(floorChild.pid!) - fcpu0;
  const loadFloor = load();
  await kill(floorChild);

  console.log(`\n4. Steady mixed traffic: ${STEADY_N} requests on ${CONNS} connections after the search passes (${f(steadyS, 1)} s) (load average ${loadSteady}), against 5. the node:http floor answering the same URLs with the same bytes, the same requests replayed the same way right after (load average ${loadFloor}); ${floor.samples.filter((x) => x.status === 404).length} floor requests had no bytes kept (almanac's non-200s)`);
  table(steady.samples, 'Per route kind (almanac | node:http floor):', floor.samples);
  const n = steady.samples.length, fn = floor.samples.length;
  console.log(`almanac ${f(n / steadyS, 0)} req/s, server CPU ${f((cpuSteady * 1000) / n, 0)} µs/request; node:http floor (the same ${fn} requests) ${f(fn / floorS, 0)} req/s, ${f((fcpu * 1000) / fn, 0)} µs/request; errors ${steady.errors} / ${floor.errors}`);
  console.log(`server RSS at the end: ${f(rssEnd, 0)} MiB (peak ${f(rssPeak, 0)} MiB; target ≤ 400 MB = 381 MiB)`);
}
