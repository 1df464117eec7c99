/**
 * `npm run bench:core`: the app core's own work for a cached keyed lookup, in process
 * (issue 41, item 1): `core.handle` of a compiled server (key, count, route, response
 * cache, headers), 32 requests an event-loop turn as under wrk's 32 connections, no
 * socket. What it adds to node:http's own cost per request is what `npm run bench`'s
 * ratio to the floor can never get back.
 *
 * Whole-server CPU figures on this VM move by ±15 % from run to run, more than a change
 * of a few tenths of a microsecond; this bench runs several compiled trees in the same
 * process, in alternating rounds (BENCH_ROUNDS, default 40, of 4,096 requests each), and
 * prints each tree's minimum, p25 and median wall time per request: the minimum is the
 * least disturbed by neighbours. A loop doing no work costs ~0.25 µs a request of it.
 *
 * BENCH_LIB=<tree>/lib,<tree>/lib compares compiled trees (default: this one's lib/,
 * compiled if stale); BENCH_URL (default /apis/elements/Fe) and BENCH_ENCODING (e.g. br)
 * pick the request. Run it pinned to one core to keep it steady:
 *   taskset -c 0 npx tsx bench/core.ts
 */
import { execFileSync } from 'node:child_process';
import { loadavg } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from '../server/cli/build.ts';
import { PROJECT_ROOT } from '../pipeline/paths.ts';
import elements from '../sources/elements.ts';
import { cleanup, quiet, tempDir } from '../test/helpers.ts';

const libs = (process.env.BENCH_LIB ?? path.join(PROJECT_ROOT, 'lib')).split(',').map((l) => l.trim()).filter(Boolean);
if (!process.env.BENCH_LIB) execFileSync(process.execPath, ['bin/compile.mjs', '--if-stale'], { cwd: PROJECT_ROOT, stdio: 'inherit' });
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 40);
const N = 4096;
const BATCH = 32;
const url = process.env.BENCH_URL ?? '/apis/elements/Fe';

const work = tempDir('almanac-bench-core-');
const dist = path.join(work, 'dist');
await build({ env: { ALMANAC_DIST: dist, ALMANAC_CACHE: path.join(work, 'cache') }, sources: [elements], log: quiet });

interface Tree { lib: string; handle: () => Promise<unknown>; close: () => Promise<void>; times: number[] }
const trees: Tree[] = [];
try {
  for (const [i, lib] of libs.entries()) {
    const { createApp } = await import(pathToFileURL(path.join(lib, 'server/node/server.js')).href);
    const { KeyStore } = await import(pathToFileURL(path.join(lib, 'server/state/keys.js')).href);
    const stateDir = path.join(work, `state-${i}`);
    const key = new KeyStore(stateDir).create('development', 'bench').secret;
    const app = createApp({ dist, stateDir, verify: false, log: () => {} });
    const headers: Record<string, string | undefined> = { authorization: `Bearer ${key}`, 'accept-encoding': process.env.BENCH_ENCODING };
    const req = () => ({ id: 'bench', method: 'GET', url, header: (n: string) => headers[n], gone: () => false });
    const first = await app.core.handle(req());
    if (first.status !== 200) throw new Error(`${lib}: ${url} answered ${first.status}`);
    trees.push({ lib, handle: () => app.core.handle(req()), close: () => app.close(), times: [] });
  }
  const turn = () => new Promise((r) => setImmediate(r));
  const run = async (t: Tree, n: number) => {
    for (let i = 0; i < n; i += BATCH) {
      const batch: Promise<unknown>[] = [];
      for (let j = 0; j < BATCH; j++) batch.push(t.handle());
      await Promise.all(batch);
      await turn(); // the counts of a turn are written at its end
    }
  };
  for (const t of trees) await run(t, 20_000); // JIT warm-up
  for (let r = 0; r < ROUNDS; r++) {
    for (const t of r % 2 ? trees : [...trees].reverse()) {
      const t0 = performance.now();
      await run(t, N);
      t.times.push(((performance.now() - t0) * 1000) / N);
    }
    await new Promise((res) => setTimeout(res, 50)); // below the development plan's burst of 100,000 a second
  }
  console.log(`${url}${process.env.BENCH_ENCODING ? ` (${process.env.BENCH_ENCODING})` : ''}, ${ROUNDS} rounds of ${N} requests, ${BATCH} a turn, load ${loadavg()[0].toFixed(1)}`);
  console.log('| tree | min µs/request | p25 | median |\n|---|---|---|---|');
  for (const t of trees) {
    const s = [...t.times].sort((a, b) => a - b);
    const at = (q: number) => s[Math.floor(q * (s.length - 1))].toFixed(2);
    console.log(`| ${t.lib} | ${at(0)} | ${at(0.25)} | ${at(0.5)} |`);
  }
} finally {
  for (const t of trees) await t.close();
  cleanup(work);
}
