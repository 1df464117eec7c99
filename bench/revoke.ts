/**
 * `npm run bench:revoke`: what "a revoke applies to the next request" costs. The server
 * stats keys.json before every authentication (KeyStore.reload); this times that call
 * when the file has not changed (the steady state), against verifying a key alone.
 */
import { KeyStore } from '../server/state/keys.ts';
import { cleanup, tempDir } from '../test/helpers.ts';

const N = Number(process.env.BENCH_CALLS ?? 200_000);
const dir = tempDir('almanac-bench-revoke-');
const store = new KeyStore(dir, () => {});
for (let i = 0; i < 50; i++) store.create('basic', `k${i}`);
const secret = store.create('development', 'bench').secret;

function time(label: string, fn: () => void) {
  for (let i = 0; i < 10_000; i++) fn();
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < N; i++) fn();
  const ns = Number(process.hrtime.bigint() - t0) / N;
  console.log(`${label}: ${(ns / 1000).toFixed(2)} µs per call (${N} calls)`);
  return ns;
}

const stat = time('keys.json stat check (reload, unchanged file)', () => store.reload());
const verify = time('key verification (sha256 + constant-time compare)', () => store.verify(secret));
console.log(`the per-request revocation check adds ${(stat / 1000).toFixed(2)} µs, ${((stat / verify) * 100).toFixed(0)}% of verifying the key`);
cleanup(dir);
