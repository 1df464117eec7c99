/**
 * `npm run bench:lanes`: does a cheap request wait behind expensive ones (issue 38, item 3)?
 *
 * A compiled server on the full release of ALMANAC_DIST (default dist/), pinned to core 0
 * (this client on core 1, as bench/traffic.ts does). For BENCH_S (30) seconds:
 * - BENCH_STUDY_CLIENTS (40) connections each ask cold 100-verse study ranges, one after the
 *   other: every range is a different run of 100 verses of kjv or asv, never asked before
 *   in that server's life (a fresh server per run), so no cache holds it;
 * - one connection asks a lookup (`/apis/elements/Fe`, then `/apis/currencies/EUR`, …: a
 *   few records, each from the response cache after its first time) every 50 ms, as a
 *   client or a load balancer's check would, and its time is measured from when it was due
 *   (an open loop: waiting counts).
 * Reported per target: lookup p50/p99/max and how many answered, study ranges answered and
 * their p50, and the load average before and after (the machine is shared).
 *
 * Targets (BENCH_TARGETS, comma-separated; each run in turn, BENCH_ROUNDS (2) rounds, so
 * before and after alternate in the same sitting):
 * - `lanes`: this lib/ as configured by default (a lane per cost class); `lanes@<value>`:
 *   with ALMANAC_LANES=<value> (`lanes@range=1`);
 * - `quiet`: `lanes` with no study clients: the lookup's time on this machine at this moment;
 * - `one-queue`: this lib/ with ALMANAC_LANES=off (one first-come queue of 4, the behaviour before issue 38);
 * - `no-admission`: ALMANAC_MAX_ACTIVE=0 (everything at once);
 * - `before`: the compiled server at BENCH_BEFORE_LIB (e.g. a checkout of main's lib/), as it is.
 * The release's files are read once first, so every run finds them in the page cache.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import http from 'node:http';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import path from 'node:path';
import { PROJECT_ROOT, distDir, releaseDir } from '../pipeline/paths.ts';
import { fsRelease } from '../server/release/fs-reader.ts';
import { KeyStore } from '../server/state/keys.ts';
import type { TranslationSummary } from '../sources/scripture/dataset.ts';
import { random } from '../test/edge-urls.ts';
import { cleanup, tempDir } from '../test/helpers.ts';

const env = process.env;
const SECONDS = Number(env.BENCH_S ?? 30);
const CLIENTS = Number(env.BENCH_STUDY_CLIENTS ?? 40);
const ROUNDS = Number(env.BENCH_ROUNDS ?? 2);
const EVERY_MS = 50;
const TARGETS = (env.BENCH_TARGETS ?? (env.BENCH_BEFORE_LIB ? 'before,lanes' : 'one-queue,lanes')).split(',');
const dist = distDir();
const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
const has = (bin: string) => { try { execFileSync('which', [bin], { stdio: 'ignore' }); return true; } catch { return false; } };
const PIN = has('taskset');
const pct = (xs: number[], p: number) => (xs.length ? xs[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))] : NaN);

execFileSync(process.execPath, ['bin/compile.mjs', '--if-stale'], { cwd: PROJECT_ROOT, stdio: 'inherit' });
const libOf = (t: string) => (t === 'before' ? env.BENCH_BEFORE_LIB! : path.join(PROJECT_ROOT, 'lib'));
for (const t of TARGETS) {
  if (!['lanes', 'quiet', 'one-queue', 'no-admission', 'before'].includes(t.split('@')[0])) throw new Error(`unknown target ${t}`);
  if (!existsSync(path.join(libOf(t) ?? '', 'server/cli/serve.js'))) throw new Error(`target ${t}: no compiled server under ${libOf(t)} (set BENCH_BEFORE_LIB)`);
}
if (PIN) execFileSync('taskset', ['-a', '-p', '-c', '1', String(process.pid)], { stdio: 'ignore' });

// The ranges: consecutive runs of 100 verses of kjv and asv, shuffled (seeded), never repeated in a run.
const release = fsRelease(dist);
const rnd = random(38);
const ranges: string[] = [];
for (const slug of ['kjv', 'asv']) {
  const info = release.datasets.get(`bible/${slug}`);
  if (!info) throw new Error(`${dist}: the release has no bible/${slug}`);
  const verses = (info.summary as TranslationSummary).books.flatMap((b) => b.chapters.flatMap(([c, , n]) => Array.from({ length: n }, (_, v) => `${b.slug}.${c}.${v + 1}`)));
  for (let at = 0; at + 100 <= verses.length; at += 100) ranges.push(`/api/v1/study/${slug}/range?from=${verses[at]}&to=${verses[at + 99]}`);
}
for (let i = ranges.length - 1; i > 0; i--) {
  const j = Math.floor(rnd() * (i + 1));
  [ranges[i], ranges[j]] = [ranges[j], ranges[i]];
}
const LOOKUPS = ['/apis/elements/Fe', '/apis/currencies/EUR', '/apis/elements/Au', '/apis/currencies/USD'].filter((p) => release.datasets.has(p.split('/')[2]));

// Every file once, so that no run pays for the disk and the last one does not get it free.
const t0 = performance.now();
let warmed = 0;
const walk = (d: string) => {
  for (const e of readdirSync(d, { withFileTypes: true })) {
    const p = path.join(d, e.name);
    if (e.isDirectory()) walk(p);
    else if (statSync(p).size < 2 ** 30) warmed += readFileSync(p).length;
  }
};
walk(releaseDir(dist, release.id));
console.log(`release ${release.id}: ${(warmed / 2 ** 20).toFixed(0)} MiB read into the page cache in ${((performance.now() - t0) / 1000).toFixed(1)} s; ${ranges.length} distinct ranges`);

const work = tempDir('almanac-bench-lanes-');
const template = path.join(work, 'template');
const key = new KeyStore(template).create('development', 'bench lanes').secret;
const auth = { authorization: `Bearer ${key}` };
const children: ChildProcess[] = [];

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createNetServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

let runs = 0;
async function start(target: string) {
  const state = path.join(work, `state-${runs++}`);
  execFileSync('cp', ['-a', template, state]);
  const port = await freePort();
  const extra: Record<string, string> = target === 'one-queue' ? { ALMANAC_LANES: 'off' } : target === 'no-admission' ? { ALMANAC_MAX_ACTIVE: '0' }
    : target.startsWith('lanes@') ? { ALMANAC_LANES: target.slice('lanes@'.length) } : {};
  const js = path.join(libOf(target), 'server/cli/serve.js');
  const [cmd, args] = PIN ? ['taskset', ['-c', '0', process.execPath, js]] : [process.execPath, [js]];
  const child = spawn(cmd, args, { env: { ...env, ...extra, NODE_OPTIONS: '', ALMANAC_ACCESS_LOG: 'off', ALMANAC_DIST: dist, ALMANAC_STATE_DIR: state, HOST: '127.0.0.1', PORT: String(port) }, stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (c) => {
      out += c;
      if (/serving .* on http/.test(out)) resolve();
    });
    child.once('exit', (code) => reject(new Error(`${target}: the server exited (${code})`)));
  });
  const base = `http://127.0.0.1:${port}`;
  // Let the search indexes warm (they load after listening) before the clock starts.
  await new Promise((r) => setTimeout(r, 3000));
  return { base, child };
}

function get(agent: http.Agent, url: string): Promise<{ status: number; bytes: number }> {
  return new Promise((resolve, reject) => {
    http.get(url, { agent, headers: auth }, (res) => {
      let bytes = 0;
      res.on('data', (c: Buffer) => (bytes += c.length));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes }));
      res.on('error', reject);
    }).on('error', reject);
  });
}

async function run(target: string) {
  const { base, child } = await start(target);
  const before = load();
  const until = performance.now() + SECONDS * 1000;
  let next = 0;
  const study: number[] = [];
  let studyBad = 0;
  const studyAgent = new http.Agent({ keepAlive: true, maxSockets: CLIENTS });
  const studyClient = async () => {
    while (performance.now() < until) {
      const t = performance.now();
      const r = await get(studyAgent, base + ranges[next++ % ranges.length]).catch(() => ({ status: 0, bytes: 0 }));
      if (r.status === 200 && performance.now() < until + 60_000) study.push(performance.now() - t);
      else studyBad++;
    }
  };
  const lookups: number[] = [];
  let lookupBad = 0;
  const lookupAgent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const lookupClient = async () => {
    // The first due time after the study clients have sent their first requests.
    await new Promise((r) => setTimeout(r, 200));
    for (let i = 0, due = performance.now(); due < until; i++, due += EVERY_MS) {
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      const r = await get(lookupAgent, base + LOOKUPS[i % LOOKUPS.length]).catch(() => ({ status: 0, bytes: 0 }));
      if (r.status === 200) lookups.push(performance.now() - due);
      else lookupBad++;
      // An open loop: requests due while this one waited are sent at once, late (their wait counts).
    }
  };
  await Promise.all([lookupClient(), ...Array.from({ length: target === 'quiet' ? 0 : CLIENTS }, studyClient)]);
  studyAgent.destroy();
  lookupAgent.destroy();
  const after = load();
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
  lookups.sort((a, b) => a - b);
  study.sort((a, b) => a - b);
  return { target, lookups, lookupBad, study, studyBad, before, after };
}

const rows: Awaited<ReturnType<typeof run>>[] = [];
try {
  for (let round = 0; round < ROUNDS; round++) {
    for (const t of TARGETS) {
      const r = await run(t);
      rows.push(r);
      console.log(`round ${round + 1} ${t}: lookups p50 ${pct(r.lookups, 50).toFixed(1)} ms, p99 ${pct(r.lookups, 99).toFixed(1)} ms (load ${r.before} → ${r.after})`);
    }
  }
} finally {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  cleanup(work);
}

console.log(`\n${CLIENTS} clients asking cold 100-verse study ranges, one asking a lookup every ${EVERY_MS} ms (timed from when it was due), ${SECONDS} s per run${PIN ? '; server on core 0, clients on core 1' : ''}`);
console.log('| round | target | lookups answered | lookup p50 ms | p99 ms | max ms | study ranges answered | study p50 s | load before → after |');
console.log('|---|---|---|---|---|---|---|---|---|');
rows.forEach((r, i) => {
  const f = (x: number) => (Number.isNaN(x) ? '–' : x.toFixed(1));
  console.log(`| ${Math.floor(i / TARGETS.length) + 1} | ${r.target} | ${r.lookups.length}${r.lookupBad ? ` (+${r.lookupBad} failed)` : ''} | ${f(pct(r.lookups, 50))} | ${f(pct(r.lookups, 99))} | ${f(r.lookups.at(-1) ?? NaN)} | ${r.study.length}${r.studyBad ? ` (+${r.studyBad} not 200)` : ''} | ${(pct(r.study, 50) / 1000).toFixed(2)} | ${r.before} → ${r.after} |`);
});
