/**
 * `npm run bench`: throughput of the full request path (key check + burst + durable
 * quota count + shard from memory) against plain sirv serving the same release folder,
 * measured in the same run on this machine (2 cores: one server, one load generator).
 * Prints each scenario and its ratio to the sirv baseline (mean of a run before and
 * after). Not part of `npm test`. BENCH_SECONDS sets the duration per scenario.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import autocannon from 'autocannon';
import { PROJECT_ROOT, releaseDir } from '../pipeline/paths.ts';
import { KeyStore } from '../server/state/keys.ts';
import { buildRelease, cleanup, tempDir } from '../test/helpers.ts';

const DURATION = Number(process.env.BENCH_SECONDS ?? 8);
const CONNECTIONS = 32;

function start(args: string[], env: NodeJS.ProcessEnv): Promise<{ child: ChildProcess; base: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/target.ts', ...args], {
    cwd: PROJECT_ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (c) => {
      const m = /listening (\d+)/.exec(String(c));
      if (m) resolve({ child, base: `http://127.0.0.1:${m[1]}` });
    });
    child.on('exit', (code) => reject(new Error(`target exited ${code}`)));
  });
}

/** CPU seconds (user + system) a process has used, from /proc (Linux). */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

async function load(url: string, headers: Record<string, string>, pid: number) {
  await autocannon({ url, headers, connections: CONNECTIONS, duration: 1 }); // warm-up
  const cpu0 = cpuSeconds(pid);
  const r = await autocannon({ url, headers, connections: CONNECTIONS, duration: DURATION });
  const cpu = cpuSeconds(pid) - cpu0;
  if (r.non2xx) throw new Error(`${url}: ${r.non2xx} non-2xx responses`);
  return {
    rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99,
    bytes: r.throughput.average / r.requests.average,
    // Server CPU per request does not depend on how fast the load generator is.
    cpuUs: (cpu / r.requests.total) * 1e6,
  };
}

const { dist, cache, release } = await buildRelease();
const state = tempDir('almanac-bench-state-');
const key = new KeyStore(state).create('development', 'bench').secret;
const auth = { 'x-service-key': key };
const rows: { name: string; rps: number; p50: number; p99: number; bytes: number; cpuUs: number }[] = [];

async function scenario(name: string, args: string[], env: NodeJS.ProcessEnv, urlPath: string, headers = {}) {
  const t = await start(args, env);
  try {
    rows.push({ name, ...(await load(t.base + urlPath, headers, t.child.pid!)) });
  } finally {
    t.child.kill();
  }
}

try {
  const almanacEnv = { ALMANAC_DIST: dist, ALMANAC_STATE_DIR: state };
  const dir = releaseDir(dist, release);
  // Baseline file: the release file closest in size to our /apis/elements/Fe body, so
  // both servers move about the same number of bytes.
  const probe = await start(['almanac'], almanacEnv);
  const feBytes = (await (await fetch(`${probe.base}/apis/elements/Fe`, { headers: auth })).arrayBuffer()).byteLength;
  probe.child.kill();
  const manifest = JSON.parse(readFileSync(path.join(dir, 'manifest.json'), 'utf8'));
  const [file, entry] = Object.entries<{ size: number }>(manifest.files).sort((a, b) => Math.abs(a[1].size - feBytes) - Math.abs(b[1].size - feBytes))[0];
  console.log(`baseline: sirv serving /${file} (${entry.size} bytes; /apis/elements/Fe body is ${feBytes} bytes)`);

  await scenario('sirv, plain static file (baseline, run 1)', ['sirv', dir], {}, `/${file}`);
  await scenario('almanac /apis/elements/Fe', ['almanac'], almanacEnv, '/apis/elements/Fe', auth);
  await scenario('  same, response cache off', ['almanac'], { ...almanacEnv, ALMANAC_RESPONSE_CACHE_MB: '0' }, '/apis/elements/Fe', auth);
  await scenario('  same, all caches off (shards from disk)', ['almanac'], { ...almanacEnv, ALMANAC_RESPONSE_CACHE_MB: '0', ALMANAC_CACHE_MB: '0' }, '/apis/elements/Fe', auth);
  await scenario('almanac /apis/units?limit=100', ['almanac'], almanacEnv, '/apis/units?limit=100', auth);
  await scenario('almanac /apis/units/convert?from=mile&to=km&value=3', ['almanac'], almanacEnv, '/apis/units/convert?from=mile&to=km&value=3', auth);
  await scenario('sirv, plain static file (baseline, run 2)', ['sirv', dir], {}, `/${file}`);
} finally {
  cleanup(dist, cache, state);
}

// The machine is noisy: the baseline is the mean of a sirv run before and after the rest.
const base = (rows[0].rps + rows[rows.length - 1].rps) / 2;
const baseCpu = (rows[0].cpuUs + rows[rows.length - 1].cpuUs) / 2;
console.log(`\n${CONNECTIONS} connections, ${DURATION} s per scenario, node ${process.version}, 2 cores shared by server and load generator`);
console.log('scenario'.padEnd(56) + 'req/s'.padStart(8) + 'vs sirv'.padStart(9) + 'p50 ms'.padStart(8) + 'p99 ms'.padStart(8) + 'bytes'.padStart(7) + 'server CPU µs/req'.padStart(19) + '  sirv/this');
for (const r of rows) {
  console.log(
    r.name.padEnd(56) + r.rps.toFixed(0).padStart(8) + `${(r.rps / base).toFixed(2)}x`.padStart(9) + String(r.p50).padStart(8) + String(r.p99).padStart(8) +
    r.bytes.toFixed(0).padStart(7) + r.cpuUs.toFixed(1).padStart(19) + `${(baseCpu / r.cpuUs).toFixed(2)}x`.padStart(11),
  );
}
console.log('req/s ratio: throughput against the sirv baseline; sirv/this: how many requests this path serves per unit of server CPU that sirv spends on one.');
