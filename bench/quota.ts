/**
 * `npm run bench:quota`: what durability costs per counted request, measured in one run.
 * Compares the journal the server uses (one write(2) per request, fsync each second:
 * nothing lost on kill -9, at most 1 s on power loss) with an in-memory counter (loses
 * everything) and with an fsync per request (loses nothing even on power loss).
 */
import { closeSync, fsyncSync, openSync, writeSync } from 'node:fs';
import path from 'node:path';
import { QuotaStore } from '../server/state/quota.ts';
import { cleanup, tempDir } from '../test/helpers.ts';

const N = Number(process.env.BENCH_COUNTS ?? 200_000);
const dir = tempDir('almanac-bench-quota-');

function time(name: string, n: number, fn: (i: number) => void) {
  const t0 = performance.now();
  for (let i = 0; i < n; i++) fn(i);
  const us = ((performance.now() - t0) * 1000) / n;
  return { name, n, us };
}

const rows = [];
const mem = new Map<string, number>();
rows.push(time('in memory only (no durability)', N, () => mem.set('key_a', (mem.get('key_a') ?? 0) + 1)));

const q = new QuotaStore(dir, { compactBytes: 1 << 30 });
q.open();
rows.push(time('journal: write per request, fsync each second (used)', N, () => q.count('key_a')));
q.close();

const fd = openSync(path.join(dir, 'fsync-each.journal'), 'a');
const perFsync = Math.min(N, 2_000); // slow: fewer iterations
rows.push(time('journal: fsync per request', perFsync, () => {
  writeSync(fd, `key_a 2026-11 1763800000\n`);
  fsyncSync(fd);
}));
closeSync(fd);
cleanup(dir);

const base = rows[1].us;
console.log('store'.padEnd(56) + 'µs/count'.padStart(10) + 'counts/s'.padStart(12) + '  vs used');
for (const r of rows) {
  console.log(r.name.padEnd(56) + r.us.toFixed(2).padStart(10) + (1e6 / r.us).toFixed(0).padStart(12) + `${(r.us / base).toFixed(2)}x`.padStart(9));
}
