/**
 * `npm run bench:hostile`: the long hostile run of issue 9. A real server in its own
 * process (bench/target.ts) over the live release (ALMANAC_DIST or dist/), then:
 *   1. HOSTILE_COUNT (default 100,000) generated requests from a fixed seed, 16 in flight;
 *   2. a soak of SOAK_SECONDS (default 300) of further generated requests, sampling the
 *      server's RSS (from /proc) every 5 s.
 * Reports requests, 5xx, envelope faults, latency and RSS at start and end. The request
 * generator and the rules each answer must meet are test/hostile-requests.ts.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { PROJECT_ROOT, distDir } from '../pipeline/paths.ts';
import { fsRelease } from '../server/release/fs-reader.ts';
import { KeyStore } from '../server/state/keys.ts';
import { SOURCES } from '../sources/index.ts';
import { cleanup, tempDir } from '../test/helpers.ts';
import { hostileRequests, sendAll, type Outcome } from '../test/hostile-requests.ts';

const COUNT = Number(process.env.HOSTILE_COUNT ?? 100_000);
const SOAK_S = Number(process.env.SOAK_SECONDS ?? 300);
const SEED = Number(process.env.HOSTILE_SEED ?? 20261123);

const rssMiB = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

function summary(label: string, out: Outcome[], seconds: number) {
  const sent = out.filter((o) => o.status !== -1);
  const ms = sent.map((o) => o.ms).sort((a, b) => a - b);
  const fivexx = sent.filter((o) => o.status >= 500);
  const faults = sent.filter((o) => o.fault);
  const byStatus: Record<number, number> = {};
  for (const o of sent) byStatus[o.status] = (byStatus[o.status] ?? 0) + 1;
  console.log(`${label}: ${sent.length} requests in ${seconds.toFixed(0)} s (${(sent.length / seconds).toFixed(0)}/s); 5xx ${fivexx.length} ` +
    `(${fivexx.filter((o) => !o.fault).length} of them the documented 503 dataset_unavailable); rule faults ${faults.length}; ` +
    `latency p50 ${ms[Math.floor(ms.length / 2)].toFixed(1)} ms, p99 ${ms[Math.floor(ms.length * 0.99)].toFixed(1)} ms, max ${ms[ms.length - 1].toFixed(1)} ms; ` +
    `over 1 s: ${ms.filter((x) => x > 1000).length}; statuses ${JSON.stringify(byStatus)}`);
  for (const f of faults.slice(0, 5)) console.log(`  fault: ${f.req.method} ${f.req.path.slice(0, 120)} → ${f.fault}`);
  for (const f of sent.filter((o) => o.ms > 1000).slice(0, 5)) console.log(`  slow: ${f.ms.toFixed(0)} ms ${f.req.method} ${f.req.path.slice(0, 120)} → ${f.status}`);
}

async function main() {
  const state = tempDir('almanac-bench-hostile-');
  const store = new KeyStore(state);
  const key = store.create('development', 'bench').secret;
  const other = store.create('development', 'bench 2').secret;
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/target.ts', 'almanac'], {
    cwd: PROJECT_ROOT, env: { ...process.env, ALMANAC_DIST: distDir(), ALMANAC_STATE_DIR: state }, stdio: ['ignore', 'pipe', 'inherit'],
  });
  const base = await new Promise<string>((resolve) => child.stdout.on('data', (c) => {
    const m = /listening (\d+)/.exec(String(c));
    if (m) resolve(`http://127.0.0.1:${m[1]}`);
  }));
  const rssStart = rssMiB(child.pid!);
  const built = fsRelease(distDir()).datasets;
  const absent = SOURCES.map((x) => x.id).filter((id) => !built.has(id));
  let t0 = performance.now();
  const out = await sendAll(base, fc.sample(hostileRequests(key, other), { seed: SEED, numRuns: COUNT }), 16, absent);
  summary(`hostile run (seed ${SEED})`, out, (performance.now() - t0) / 1000);
  const rssAfterRun = rssMiB(child.pid!);

  const samples: number[] = [rssMiB(child.pid!)];
  const sampler = setInterval(() => samples.push(rssMiB(child.pid!)), 5000);
  const soak: Outcome[] = [];
  t0 = performance.now();
  for (let batch = 1; performance.now() - t0 < SOAK_S * 1000; batch++) {
    soak.push(...(await sendAll(base, fc.sample(hostileRequests(key, other), { seed: SEED + batch, numRuns: 5000 }), 16, absent)));
  }
  clearInterval(sampler);
  samples.push(rssMiB(child.pid!));
  summary(`soak (${SOAK_S} s)`, soak, (performance.now() - t0) / 1000);
  const health = await fetch(`${base}/healthz`);
  console.log(`server RSS: ${rssStart.toFixed(0)} MiB at start, ${rssAfterRun.toFixed(0)} MiB after the run, soak start ${samples[0].toFixed(0)} MiB, ` +
    `end ${samples[samples.length - 1].toFixed(0)} MiB, max ${Math.max(...samples).toFixed(0)} MiB (${samples.length} samples); /healthz after: ${health.status}`);
  child.kill('SIGINT');
  cleanup(state);
}

main();
