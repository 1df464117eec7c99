/**
 * `npm run bench`: almanac's full path against nginx and node's own floor, in one run
 * (issue 14). Targets, each serving the same bytes:
 *   nginx      the almanac response saved as a file, Debian's nginx with its own config
 *              in a temp folder (skipped with a message if nginx is absent);
 *   node:http  a bare server answering that buffer with the headers almanac sent (the floor
 *              of this stack: almanac's exact bytes and headers, issue 41);
 *   sirv       that file through sirv;
 *   almanac    the full path (key, burst, durable count, record) with 1 and N workers, and
 *              1 process with its access log off.
 * Responses: ~3.4 KB (`/apis/elements/Fe`, the issue's probe) and ~64 KB
 * (`/apis/elements?limit=33`), identity and br (almanac asked with `Accept-Encoding: br`;
 * the static targets serve almanac's br bytes as a file, so every target sends the same
 * bytes), at 32 and 256 connections (BENCH_CONNS). Every target is sent the same request
 * (almanac's key, and Accept-Encoding: br for the br rows; the static targets ignore both:
 * until the seventh pass the floor was sent neither, so it parsed fewer request bytes than
 * almanac, ~1 µs a request here). The load
 * generator is wrk (falls back to autocannon); single-process servers are pinned to core 0
 * and the load generator to core 1 with taskset where the machine has two cores or more.
 * Server CPU per request is the CPU time of every thread of the server's whole process
 * tree (/proc schedstat) over its requests.
 *
 * Rounds (issue 41, eighth pass): on this VM the CPU one request costs moves by ±10 % from
 * one second to the next for the same process (the same bare floor measured 17.9–33.0 µs
 * in eight 1-second rounds), so one 5-second run per target decided a ratio by which
 * target drew the slow seconds. Each response size and connection count is now measured in
 * BENCH_ROUNDS rounds (default 7) of BENCH_SECONDS each (default 1), the targets taking
 * turns in alternating order; a row gives the median round (and max: the worst of them),
 * and the summary each round's ratio beside the median's. wrk runs without blocking this
 * process, which reads the servers' output (almanac's access log) as a log collector would,
 * and reports how much it read and whether a server dropped lines. From 128 connections up
 * each connection's first request waits BENCH_SETTLE_MS (default 100) so the server has
 * accepted every connection before the load starts: node 20 accepts one connection per
 * event-loop turn, and the ramp of 256 new connections into a busy server, not the server's
 * own work, was the 256-connection maximum (up to ~1 s, the bare floor's too; ninth pass,
 * scale-load.ts). BENCH_SETTLE_MS=0 measures with the ramp. Each round starts once the other
 * targets have been quiet for 100 ms, the node targets run without V8's memory reducer (an
 * idle target's full collection landed in another's round on the shared core), and each
 * node target's full collections and event-loop stalls are set beside its 256-connection
 * rounds (scale-gc.ts; eleventh pass). BENCH_ALLOC=1 also reports
 * what each node target allocates per request (V8's --trace-gc-nvp). BENCH_ONLY=name,name limits targets;
 * BENCH_WORKERS (default 2) sets N; BENCH_SIZES limits the responses ("3.4 KB,64 KB br").
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { get as httpGet } from 'node:http';
import { loadavg } from 'node:os';
import path from 'node:path';
import { build } from '../server/cli/build.ts';
import { PROJECT_ROOT } from '../pipeline/paths.ts';
import elements from '../sources/elements.ts';
import { KeyStore } from '../server/state/keys.ts';
import { cleanup, quiet, tempDir } from '../test/helpers.ts';
import { gcLine, gcWatch, readMarks, type Mark } from './scale-gc.ts';
import { startNginx } from './scale-nginx.ts';
import { ALLOC, AllocCount, LUA, PIN, SETTLE_MS, WRK, allocFlags, cores, has, load, pinned, othersQuiet, summarize, tree, warmUp, type Result, type Round } from './scale-load.ts';

/** Whole seconds: wrk takes no fractions. */
const SECONDS = Math.max(1, Math.round(Number(process.env.BENCH_SECONDS ?? 1)));
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 7));
const WORKERS = Number(process.env.BENCH_WORKERS ?? 2);
const ONLY = process.env.BENCH_ONLY?.split(',');
/** BENCH_SIZES="3.4 KB,64 KB br" limits the responses measured. */
const SIZE_ONLY = process.env.BENCH_SIZES?.split(',').map((x) => x.trim());
const CONNS = (process.env.BENCH_CONNS ?? '32,256').split(',').map(Number);
// This process (which drains the servers' output and reads /proc between rounds) stays off
// the measured servers' core, as the load generator does; what it starts says its own cores.
if (PIN) execFileSync('taskset', ['-a', '-p', '-c', '1', String(process.pid)], { stdio: 'ignore' });

/**
 * The port a child prints once it listens. After that its output (almanac's access log,
 * ~10 MB/s under load) is drained and dropped: it was kept in one growing string and
 * searched again on every chunk, work of this process beside the server under test.
 */
/** Per server: bytes of output drained after it listened, and the access log lines it reported dropped (its reader too slow). */
const drained = new Map<ChildProcess, { bytes: number; dropped: number; alloc: AllocCount }>();
function started(child: ChildProcess, pattern: RegExp): Promise<number> {
  return new Promise((resolve, reject) => {
    let out = '';
    const on = (c: Buffer) => {
      out += c;
      const m = pattern.exec(out);
      if (!m) return;
      child.stdout?.off('data', on);
      child.stderr?.off('data', on);
      const d = { bytes: 0, dropped: 0, alloc: new AllocCount() };
      drained.set(child, d);
      const count = (chunk: Buffer) => {
        d.bytes += chunk.length;
        if (ALLOC) d.alloc.feed(chunk);
        for (let i = chunk.indexOf('"dropped":'); i !== -1; i = chunk.indexOf('"dropped":', i + 10)) d.dropped += parseInt(chunk.toString('latin1', i + 10, i + 24), 10) || 0;
      };
      child.stdout?.on('data', count);
      child.stderr?.on('data', count);
      out = '';
      resolve(Number(m[1]));
    };
    child.stdout?.on('data', on);
    child.stderr?.on('data', on);
    child.on('exit', (code) => reject(new Error(`exited ${code}: ${out.slice(-500)}`)));
  });
}

execFileSync(process.execPath, ['bin/compile.mjs', '--if-stale'], { cwd: PROJECT_ROOT, stdio: 'inherit' });
const work = tempDir('almanac-bench-scale-');
chmodSync(work, 0o755); // nginx's workers run as another user when started by root
const dist = path.join(work, 'dist');
await build({ env: { ALMANAC_DIST: dist, ALMANAC_CACHE: path.join(work, 'cache') }, sources: [elements], log: quiet });
const state = path.join(work, 'state');
const key = new KeyStore(state).create('development', 'bench').secret;
const auth = { 'x-service-key': key };
const luaFile = path.join(work, 'report.lua');
writeFileSync(luaFile, LUA);
const children: ChildProcess[] = [];
/** Per target name: the file where its full collections and stalls are written (scale-gc.ts), and what they were, read before the work folder goes. */
const gcFiles = new Map<string, string>();
const gcMarks = new Map<string, Mark[]>();
const kill = (c: ChildProcess) => new Promise((r) => { if (c.exitCode !== null || c.signalCode !== null) return r(null); c.once('exit', r); c.kill('SIGTERM'); });

/** Each almanac target gets its own copy of the state folder: they run at once, and a state folder has one server. */
let stateCopies = 0;
async function almanac(workers: number, env: Record<string, string> = {}) {
  const own = path.join(work, `state-${stateCopies++}`);
  cpSync(state, own, { recursive: true });
  // The compiled server, as `npm run serve` runs it (no tsx loader in the measured process).
  const args = ['lib/server/cli/serve.js', ...(workers > 1 ? ['--workers', String(workers)] : [])];
  // One process: pinned to core 0 like the other single-process servers. N workers use every core.
  const gc = gcWatch(work);
  const [cmd, a] = pinned(workers > 1 ? `0-${cores - 1}` : '0', process.execPath, [...allocFlags, ...gc.flags, ...args]);
  const child = spawn(cmd, a, { cwd: PROJECT_ROOT, env: { ...process.env, ALMANAC_DIST: dist, ALMANAC_STATE_DIR: own, PORT: '0', ...gc.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  const port = await started(child, /on http:\/\/[\d.]+:(\d+)/);
  return { child, base: `http://127.0.0.1:${port}`, gc: gc.file };
}

const SIZES = [
  { name: '3.4 KB', path: '/apis/elements/Fe', br: false }, { name: '64 KB', path: '/apis/elements?limit=33', br: false },
  { name: '3.4 KB br', path: '/apis/elements/Fe', br: true }, { name: '64 KB br', path: '/apis/elements?limit=33', br: true },
];
/** Headers node:http writes itself on every response (the floor's node adds them as almanac's does). */
const OWN = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding']);
/** A response's bytes as sent (fetch would decompress br), and its headers as a flat list in the order sent. */
const raw = (url: string, headers: Record<string, string>) => new Promise<{ body: Buffer; headers: string[] }>((resolve, reject) => {
  httpGet(url, { headers }, (res) => {
    const parts: Buffer[] = [];
    const sent = res.rawHeaders.flatMap((v, i, a) => (i % 2 === 0 && !OWN.has(v.toLowerCase()) ? [v, a[i + 1]] : []));
    res.on('data', (c: Buffer) => parts.push(c)).on('end', () => resolve({ body: Buffer.concat(parts), headers: sent })).on('error', reject);
  }).on('error', reject);
});
const rows: { target: string; size: string; conns: number; r: Result; rounds: Round[]; load: number; alloc?: number }[] = [];
try {
  // The bytes every target serves: almanac's own responses.
  const probe = await almanac(1);
  const files = path.join(work, 'www');
  mkdirSync(files);
  for (const [i, s] of SIZES.entries()) {
    const r = await raw(probe.base + s.path, s.br ? { ...auth, 'accept-encoding': 'br' } : auth);
    writeFileSync(path.join(files, `r${i}.json`), r.body);
    writeFileSync(path.join(files, `r${i}.headers.json`), JSON.stringify(r.headers));
  }
  await kill(probe.child);

  const targets: { name: string; start: () => Promise<{ child: ChildProcess; base: string; gc?: string }>; path: (i: number) => string }[] = [];
  if (has('nginx')) {
    targets.push({ name: 'nginx', path: (i) => `/r${i}.json`, start: () => startNginx(work, files, children) });
  } else console.log('nginx not installed: its rows are skipped (apt-get install -y nginx)');
  targets.push(
    { name: 'node:http', path: (i) => `/r${i}`, start: async () => nodeTarget(['floor', files]) },
    { name: 'sirv', path: (i) => `/r${i}.json`, start: async () => nodeTarget(['sirv', files]) },
    { name: 'almanac 1 process', path: (i) => SIZES[i].path, start: () => almanac(1) },
    // The access log is on by default; off, it must cost nothing (issue 41).
    { name: 'almanac 1 process, access log off', path: (i) => SIZES[i].path, start: () => almanac(1, { ALMANAC_ACCESS_LOG: 'off' }) },
    { name: `almanac ${WORKERS} workers`, path: (i) => SIZES[i].path, start: () => almanac(WORKERS) },
  );
  // Every target runs at once (idle but for its turn), and each response size and
  // connection count is measured on all targets back to back: the ratios compare runs a
  // few seconds apart, not minutes, which matters on a VM whose speed drifts (the same
  // node:http floor measured 14.8 and 19.2 µs per request within one hour).
  const running: { t: (typeof targets)[number]; s: { child: ChildProcess; base: string; gc?: string } }[] = [];
  for (const t of targets) if (!ONLY || ONLY.some((o) => t.name.startsWith(o))) running.push({ t, s: await t.start() });
  for (const { t, s } of running) if (s.gc) gcFiles.set(t.name, s.gc);
  for (const [i, size] of SIZES.entries()) {
    if (SIZE_ONLY && !SIZE_ONLY.includes(size.name)) continue;
    // Every target gets the same request bytes (the key, and Accept-Encoding for br), which
    // the static ones ignore: parsing them is node:http's work, not almanac's (issue 41).
    const headers = size.br ? { ...auth, 'accept-encoding': 'br' } : auth;
    for (const conns of CONNS) {
      const rounds = new Map(running.map(({ t }) => [t.name, [] as Round[]]));
      for (const { t, s } of running) await warmUp(s.base + t.path(i), headers, conns);
      const allocated = () => new Map(running.map(({ t, s }) => [t.name, drained.get(s.child)?.alloc.total ?? 0]));
      const alloc0 = allocated();
      for (let k = 0; k < ROUNDS; k++) {
        for (const { t, s } of k % 2 ? [...running].reverse() : running) {
          // Each round on a quiet core: the other targets done with their own rounds' work.
          const others = running.filter((x) => x.s !== s).flatMap((x) => tree(x.s.child.pid!));
          await othersQuiet(others);
          const r = await load(s.base + t.path(i), headers, conns, SECONDS, tree(s.child.pid!), s.child.pid!, luaFile, others);
          rounds.get(t.name)!.push(r);
        }
      }
      const alloc1 = allocated();
      for (const { t } of running) {
        const r = summarize(rounds.get(t.name)!);
        const n = rounds.get(t.name)!.reduce((a, x) => a + x.n, 0);
        const alloc = ALLOC && alloc1.get(t.name)! > alloc0.get(t.name)! ? (alloc1.get(t.name)! - alloc0.get(t.name)!) / n : undefined;
        rows.push({ target: t.name, size: size.name, conns, r, rounds: rounds.get(t.name)!, load: loadavg()[0], alloc });
        console.error(`${t.name} ${size.name} c=${conns}: ${r.rps.toFixed(0)} req/s, ${r.cpuUs.toFixed(1)} µs CPU/req (rounds ${rounds.get(t.name)!.map((x) => x.cpuUs.toFixed(1)).join(' ')}), p99 ${r.p99.toFixed(2)} ms, max ${r.max.toFixed(1)} ms (rounds ${rounds.get(t.name)!.map((x) => x.max.toFixed(0)).join(' ')})${alloc ? `, ${(alloc / 1024).toFixed(1)} KB allocated/req` : ''}${r.errors ? `, ${r.errors} errors` : ''}`);
      }
    }
  }
  for (const { t, s } of running) {
    const d = drained.get(s.child);
    if (d?.bytes) console.error(`${t.name}: ${(d.bytes / 2 ** 20).toFixed(1)} MiB of output read while measured${d.dropped ? `, ${d.dropped} access log lines dropped (its reader too slow)` : ', no access log line dropped'}`);
  }
  for (const { s } of running) await kill(s.child);
  for (const [name, file] of gcFiles) gcMarks.set(name, readMarks(file));
} finally {
  for (const c of children) await kill(c);
  cleanup(work);
}

async function nodeTarget(args: string[]) {
  const gc = gcWatch(work);
  const [cmd, a] = pinned('0', process.execPath, [...allocFlags, ...gc.flags, '--import', 'tsx', 'bench/scale-target.ts', ...args]);
  const child = spawn(cmd, a, { cwd: PROJECT_ROOT, env: { ...process.env, ...gc.env }, stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  const port = await started(child, /listening (\d+)/);
  return { child, base: `http://127.0.0.1:${port}`, gc: gc.file };
}

const find = (target: string, size: string, conns: number) => rows.find((x) => x.target.startsWith(target) && x.size === size && x.conns === conns)?.r;
console.log(`\n${ROUNDS} rounds of ${SECONDS} s per target, response size and connection count (rows: the median round; max: the worst), node ${process.version}, ${cores} cores, load generator ${WRK ? 'wrk' : 'autocannon'}${PIN ? ', single-process servers on core 0 and the load generator on core 1 (taskset)' : ''}; br rows: the same responses brotli-encoded`);
console.log('| target | response | conns | req/s | p50 ms | p99 ms | p99.9 ms | max ms | server CPU µs/req | per-CPU vs nginx | per-CPU vs node:http | load (1 min) |');
console.log('|---|---|---|---|---|---|---|---|---|---|---|---|');
const order = (x: (typeof rows)[number]) => [...new Set(rows.map((y) => y.target))].indexOf(x.target);
rows.sort((a, b) => order(a) - order(b)); // stable: within a target, sizes and connections in run order
for (const { target, size, conns, r, load: l } of rows) {
  const ng = find('nginx', size, conns);
  const fl = find('node:http', size, conns);
  // Per core: requests per CPU-second, i.e. the inverse of CPU per request.
  const vs = (b?: Result) => (b ? `${(b.cpuUs / r.cpuUs).toFixed(2)}×` : '–');
  console.log(`| ${target} | ${size} | ${conns} | ${r.rps.toFixed(0)} | ${r.p50.toFixed(2)} | ${r.p99.toFixed(2)} | ${r.p999.toFixed(2)} | ${r.max.toFixed(1)} | ${r.cpuUs.toFixed(1)} | ${vs(ng)} | ${vs(fl)} | ${l.toFixed(1)} |${r.errors ? ` ${r.errors} errors` : ''}`);
}
const one = find('almanac 1', '3.4 KB', CONNS[0]);
const many = find(`almanac ${WORKERS}`, '3.4 KB', CONNS[0]);
for (const { target, size, conns, r } of rows) if (target.includes('workers') && r.rootUs !== undefined) console.log(`${target} ${size} c=${conns}: the primary (counting for the workers over IPC) used ${r.rootUs.toFixed(1)} µs CPU/request of the ${r.cpuUs.toFixed(1)}`);
for (const target of ['almanac 1 process', 'almanac 1 process, access log off']) {
  const ratios = SIZES.map((s) => {
    const a = rows.find((x) => x.target === target && x.size === s.name && x.conns === CONNS[0]), f = rows.find((x) => x.target === 'node:http' && x.size === s.name && x.conns === CONNS[0]);
    // Each round's own ratio (the floor's round and almanac's, seconds apart), to show the spread.
    return a && f ? { size: s.name, ratio: f.r.cpuUs / a.r.cpuUs, each: a.rounds.map((r, k) => f.rounds[k].cpuUs / r.cpuUs) } : undefined;
  }).filter((x) => x !== undefined);
  if (!ratios.length) continue;
  const worst = Math.min(...ratios.map((r) => r.ratio));
  console.log(`\n${target} per CPU vs the node:http floor at ${CONNS[0]} connections (median rounds): ${ratios.map((r) => `${r.size} ${r.ratio.toFixed(2)}×`).join(', ')}; worst ${worst.toFixed(2)}× (issue 41's target: ≥ 0.9× in all four)`);
  for (const r of ratios) console.log(`  ${r.size}, round by round: ${r.each.map((x) => `${x.toFixed(2)}×`).join(' ')}`);
}
if (ALLOC) {
  console.log(`\nKB allocated per request (V8's --trace-gc-nvp), at ${CONNS[0]} connections: ${[...new Set(rows.filter((x) => x.alloc).map((x) => x.target))].map((t) => `${t} ${SIZES.map((sz) => rows.find((x) => x.target === t && x.size === sz.name && x.conns === CONNS[0])?.alloc).map((a) => (a ? (a / 1024).toFixed(1) : '–')).join(' / ')}`).join('; ')} (${SIZES.map((sz) => sz.name).join(' / ')})`);
}
if (one && many) console.log(`\n${WORKERS} workers vs 1 process (3.4 KB, ${CONNS[0]} connections): ${(many.rps / one.rps).toFixed(2)}× req/s, ${(one.cpuUs / many.cpuUs).toFixed(2)}× requests per CPU-second`);
// Issue 41, item 3: the worst round at the largest connection count, per target.
const big = Math.max(...CONNS);
if (big >= 128) {
  const worst = [...new Set(rows.map((x) => x.target))].map((t) => {
    const rs = rows.filter((x) => x.target === t && x.conns === big);
    return rs.length ? `${t} ${Math.max(...rs.map((x) => x.r.max)).toFixed(1)} ms` : '';
  }).filter(Boolean);
  console.log(`\nWorst maximum at ${big} connections over every response and round${settleNote()}: ${worst.join(', ')} (issue 41's target: ≤ 50 ms)`);
  console.log(`Full collections (mark-compact) and event-loop stalls of each node target beside its ${big}-connection rounds (bench/gc-marks.mjs):`);
  for (const [t, marks] of gcMarks) {
    const rs = rows.filter((x) => x.target === t && x.conns === big).flatMap((x) => x.rounds);
    if (rs.length) console.log(`  ${gcLine(t, rs, marks)}`);
  }
}
function settleNote() {
  return SETTLE_MS && WRK ? ` (each connection's first request sent ${SETTLE_MS} ms after it opened, once node had accepted it)` : ' (connections opened under load: node 20 accepts one per event-loop turn)';
}
