/**
 * `npm run bench:access-log`: what the access log costs per request (issue 38, item 6).
 *
 * The compiled server on the release of ALMANAC_DIST (default dist/), pinned to core 0, its
 * stdout a file (as a supervisor's log file or a container runtime's pipe would take it);
 * wrk on core 1 (taskset), BENCH_CONNS (32) connections for BENCH_S (10) seconds of a keyed
 * lookup answered from the response cache (`/apis/elements/Fe`: the cheapest request, so
 * the log's share is the largest it can be), after a 2 s warm-up. Targets in turn, BENCH_ROUNDS
 * (3) rounds: ALMANAC_ACCESS_LOG=off, on, and 0.1 (sampled). Reported per run: requests a
 * second, the server's CPU per request (µs, every thread), p99, and the log's lines; then the
 * median of the rounds per target, with the load average beside each run. First, in process:
 * the time of one AccessLog.log call (formatting and buffering a line; 200,000 calls).
 */
import { execFileSync, spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import path from 'node:path';
import { PROJECT_ROOT, distDir } from '../pipeline/paths.ts';
import { KeyStore } from '../server/state/keys.ts';
import { AccessLog } from '../server/node/access-log.ts';
import { cleanup, tempDir } from '../test/helpers.ts';

const env = process.env;
const SECONDS = Number(env.BENCH_S ?? 10);
const CONNS = Number(env.BENCH_CONNS ?? 32);
const ROUNDS = Number(env.BENCH_ROUNDS ?? 3);
const TARGETS = (env.BENCH_TARGETS ?? 'off,on,0.1').split(',');
const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
const has = (bin: string) => { try { execFileSync('which', [bin], { stdio: 'ignore' }); return true; } catch { return false; } };
if (!has('wrk') || !has('taskset')) throw new Error('bench:access-log needs wrk and taskset');

{
  let bytes = 0;
  const inProcess = new AccessLog({ sample: 1, sink: (t) => (bytes += t.length) });
  const entry = { id: '3f9a1c2e-1k', method: 'GET', url: '/apis/elements/Fe', status: 200, bytes: 1450, start: performance.now(), key: 'key_364197824982', lane: 'lookup', ip: '127.0.0.1' };
  const N = 200_000;
  for (let i = 0; i < 20_000; i++) inProcess.log(entry);
  await new Promise((r) => setImmediate(r));
  const t = performance.now();
  for (let i = 0; i < N; i++) {
    inProcess.log(entry);
    if (i % 1000 === 999) await new Promise((r) => setImmediate(r)); // a turn's worth of lines, then the write
  }
  console.log(`in process: ${(((performance.now() - t) * 1000) / N).toFixed(2)} µs per line (formatting, buffering, one sink call per turn; load ${load()})`);
}
execFileSync(process.execPath, ['bin/compile.mjs', '--if-stale'], { cwd: PROJECT_ROOT, stdio: 'inherit' });
const serverJs = path.join(PROJECT_ROOT, 'lib/server/cli/serve.js');
const work = tempDir('almanac-bench-access-');
const template = path.join(work, 'template');
const key = new KeyStore(template).create('development', 'bench access log').secret;
const lua = path.join(work, 'report.lua');
writeFileSync(lua, `done = function(summary, latency, requests)
  io.write(string.format("RESULT %d %d %d %d\\n", summary.requests, summary.duration, latency:percentile(99),
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout + summary.errors.status))
end`);

const freePort = () => new Promise<number>((resolve) => {
  const s = createNetServer().listen(0, '127.0.0.1', () => {
    const { port } = s.address() as AddressInfo;
    s.close(() => resolve(port));
  });
});
const cpuSeconds = (pid: number) => {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
};

let n = 0;
async function run(setting: string) {
  const state = path.join(work, `state-${n}`);
  execFileSync('cp', ['-a', template, state]);
  const logFile = path.join(work, `access-${n++}.log`);
  const out = openSync(logFile, 'w');
  const port = await freePort();
  const child = spawn('taskset', ['-c', '0', process.execPath, serverJs], {
    env: { ...env, NODE_OPTIONS: '', ALMANAC_ACCESS_LOG: setting, ALMANAC_DIST: distDir(), ALMANAC_STATE_DIR: state, HOST: '127.0.0.1', PORT: String(port) },
    stdio: ['ignore', out, 'inherit'],
  });
  closeSync(out);
  const url = `http://127.0.0.1:${port}/apis/elements/Fe`;
  for (let i = 0; i < 600; i++) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/readyz`)).status === 200) break;
    } catch { /* not listening yet */ }
    await new Promise((r) => setTimeout(r, 50));
  }
  const wrk = (s: number) => execFileSync('taskset', ['-c', '1', 'wrk', '-t1', `-c${CONNS}`, `-d${s}s`, '-s', lua, '-H', `X-Service-Key: ${key}`, url], { encoding: 'utf8' });
  wrk(2);
  const before = load();
  const pid = child.pid!; // taskset execs node: the same process
  const lines0 = statSync(logFile).size;
  const cpu0 = cpuSeconds(pid);
  const [requests, us, p99, errors] = /RESULT (.*)/.exec(wrk(SECONDS))![1].split(' ').map(Number);
  const cpu = cpuSeconds(pid) - cpu0;
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
  const logged = readFileSync(logFile, 'utf8').slice(lines0).split('\n').filter((l) => l.startsWith('{"time"')).length;
  return { setting, rps: requests / (us / 1e6), cpuUs: (cpu / requests) * 1e6, p99: p99 / 1000, errors, logged, requests, load: `${before} → ${load()}` };
}

const rows: Awaited<ReturnType<typeof run>>[] = [];
try {
  for (let r = 0; r < ROUNDS; r++) {
    for (const t of TARGETS) {
      const row = await run(t);
      rows.push(row);
      console.log(`round ${r + 1} ALMANAC_ACCESS_LOG=${t}: ${row.rps.toFixed(0)} req/s, ${row.cpuUs.toFixed(1)} µs CPU/request, p99 ${row.p99.toFixed(2)} ms, ${row.logged} lines for ${row.requests} requests${row.errors ? `, ${row.errors} errors` : ''} (load ${row.load})`);
    }
  }
} finally {
  cleanup(work);
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(`\n${CONNS} connections, ${SECONDS} s per run, ${ROUNDS} rounds, server on core 0 (stdout to a file), wrk on core 1; medians of the rounds`);
console.log('| ALMANAC_ACCESS_LOG | req/s | server CPU µs/request | vs off | p99 ms |');
console.log('|---|---|---|---|---|');
const off = median(rows.filter((r) => r.setting === 'off').map((r) => r.cpuUs));
for (const t of TARGETS) {
  const of = rows.filter((r) => r.setting === t);
  const cpu = median(of.map((r) => r.cpuUs));
  console.log(`| ${t} | ${median(of.map((r) => r.rps)).toFixed(0)} | ${cpu.toFixed(1)} | ${cpu - off >= 0 ? '+' : ''}${(cpu - off).toFixed(1)} | ${median(of.map((r) => r.p99)).toFixed(2)} |`);
}
