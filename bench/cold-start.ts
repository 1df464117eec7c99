/**
 * `npm run bench:cold-start`: how long the server takes from process start to listening
 * (its "serving … on" line) and to the first 200 of /healthz, run through tsx from the
 * TypeScript sources (with and without its transform cache) and as compiled JavaScript (lib/, `npm run compile`), on the same
 * release (ALMANAC_DIST, default dist/). Median of RUNS (default 5) starts each, one at a time.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PROJECT_ROOT, distDir } from '../pipeline/paths.ts';

const RUNS = Number(process.env.RUNS ?? 5);
const dist = distDir();

async function once(args: string[], extraEnv: Record<string, string>): Promise<{ listening: number; first200: number }> {
  const state = mkdtempSync(path.join(tmpdir(), 'almanac-cold-'));
  const t0 = performance.now();
  const child = spawn(process.execPath, args, {
    cwd: PROJECT_ROOT, env: { ...process.env, ...extraEnv, ALMANAC_DIST: dist, ALMANAC_STATE_DIR: state, HOST: '127.0.0.1', PORT: '0' }, stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const { base, listening } = await new Promise<{ base: string; listening: number }>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (c) => {
        out += c;
        const m = /on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
        if (m) resolve({ base: m[1], listening: performance.now() - t0 });
      });
      child.on('exit', (code) => reject(new Error(`exited with ${code}: ${out}`)));
    });
    const res = await fetch(`${base}/healthz`);
    if (res.status !== 200) throw new Error(`/healthz answered ${res.status}`);
    await res.arrayBuffer();
    return { listening, first200: performance.now() - t0 };
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    rmSync(state, { recursive: true, force: true });
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
// tsx caches its transforms on disk; the first start on a machine has no cache.
const variants: [string, string[], Record<string, string>][] = [
  ['tsx, first start (no cache)', ['--import', 'tsx', 'server/cli/serve.ts'], { TSX_DISABLE_CACHE: '1' }],
  ['tsx (server/cli/serve.ts)', ['--import', 'tsx', 'server/cli/serve.ts'], {}],
  ['node (lib/server/cli/serve.js)', ['lib/server/cli/serve.js'], {}],
];
console.log(`release in ${dist}, ${RUNS} runs each`);
for (const [name, args, extraEnv] of variants) {
  const runs = [];
  for (let i = 0; i < RUNS; i++) runs.push(await once(args, extraEnv));
  console.log(`${name.padEnd(28)} listening ${median(runs.map((r) => r.listening)).toFixed(0).padStart(6)} ms   first 200 ${median(runs.map((r) => r.first200)).toFixed(0).padStart(6)} ms`);
}
