/**
 * `npm run bench:stream`: does the streamed build of the IRS BMF stay in bounded memory
 * as the input grows to the full ~1.9M rows?
 *
 * The mirror holds three real state files (DE, RI, VT: 22,194 rows). This harness
 * replicates their rows ×k into a temporary mirror, renumbering EINs so they stay
 * unique and ascending (a scaling input for measurement only: it is built into a temp
 * folder and never served), then builds the dataset in a child process per scale and
 * reports wall time and peak RSS (getrusage maxrss) against the ×1 run of the same
 * session. Set BENCH_SCALES (default "1,16,86"; 86 ≈ 1.9M rows), ALMANAC_MIRROR, and
 * BENCH_HEAP_MB to run the builds under a V8 heap cap (proof that they fit, not a guess
 * from RSS, which V8 lets grow lazily).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { build } from '../server/cli/build.ts';
import { fetchAll } from '../pipeline/fetch.ts';
import { PROJECT_ROOT } from '../pipeline/paths.ts';
import nonprofits from '../sources/nonprofits.ts';
import { MIRROR_ROOT, cleanup, quiet, tempDir } from '../test/helpers.ts';

const STATES = ['de', 'ri', 'vt'];
const IRS = 'www.irs.gov/pub/irs-soi';

if (process.argv[2] === '--child') {
  const [cache, dist] = process.argv.slice(3);
  const t0 = performance.now();
  const r = await build({ env: { ...process.env, ALMANAC_CACHE: cache, ALMANAC_DIST: dist }, sources: [nonprofits], log: quiet });
  const report = r.reports[0];
  console.log(JSON.stringify({ status: report.status, records: report.records, files: report.files, seconds: (performance.now() - t0) / 1000, maxRssMiB: process.resourceUsage().maxRSS / 1024 }));
  process.exit(0);
}

if (process.argv[2] === '--search') {
  // What serving costs at this size, in a process of its own (no heap cap): one search
  // over every shard, cold (shards parsed from disk) and warm (if they stay in
  // ALMANAC_CACHE_MB), and an id lookup.
  const { fsRelease } = await import('../server/release/fs-reader.ts');
  const rel = fsRelease(process.argv[3]);
  const ms = async (fn: () => Promise<unknown>) => {
    const t = performance.now();
    await fn();
    return performance.now() - t;
  };
  const ds = nonprofits.id;
  const searchColdMs = await ms(() => rel.search(ds, 'church'));
  const searchWarmMs = await ms(() => rel.search(ds, 'church'));
  const lookupMs = await ms(() => rel.lookup(ds, '000000001'));
  const info = rel.datasets.get(ds)!;
  console.log(JSON.stringify({ index: info.search_kind === 'terms' ? 'word index' : `${info.search_shards ?? 1} minisearch shard(s)`, searchColdMs, searchWarmMs, lookupMs, searchRssMiB: process.resourceUsage().maxRSS / 1024 }));
  process.exit(0);
}

const mirrorRoot = MIRROR_ROOT;
if (!mirrorRoot) {
  console.error('bench:stream needs the upstream mirror (ALMANAC_MIRROR or ../shared/upstream) for the real BMF rows');
  process.exit(1);
}
const scales = (process.env.BENCH_SCALES ?? '1,16,86').split(',').map(Number);

/** One state file with its rows repeated k times, EINs renumbered from `base` (9 digits, ascending). */
function replicate(file: string, k: number, base: number): { text: string; rows: number } {
  const [header, ...rows] = readFileSync(file, 'latin1').split(/\r?\n/).filter(Boolean);
  const out = [header];
  let n = base;
  for (let c = 0; c < k; c++) for (const row of rows) out.push(String(n++).padStart(9, '0') + row.slice(row.indexOf(',')));
  return { text: out.join('\r\n') + '\r\n', rows: n - base };
}

const results: { scale: number; rows: number; records: number; seconds: number; maxRssMiB: number }[] = [];
for (const k of scales) {
  const mirror = tempDir('almanac-bench-bmf-');
  const cache = tempDir('almanac-bench-cache-');
  const dist = tempDir('almanac-bench-dist-');
  try {
    mkdirSync(path.join(mirror, IRS), { recursive: true });
    let rows = 0;
    STATES.forEach((st, i) => {
      const r = replicate(path.join(mirrorRoot, IRS, `eo_${st}.csv`), k, 1 + i * 300_000_000);
      writeFileSync(path.join(mirror, IRS, `eo_${st}.csv`), r.text, 'latin1');
      rows += r.rows;
    });
    await fetchAll([nonprofits], { ...process.env, ALMANAC_MIRROR: mirror, ALMANAC_CACHE: cache }, quiet);
    const heap = process.env.BENCH_HEAP_MB ? [`--max-old-space-size=${process.env.BENCH_HEAP_MB}`] : [];
    const out = execFileSync(process.execPath, [...heap, '--import', 'tsx', path.join(PROJECT_ROOT, 'bench/stream-build.ts'), '--child', cache, dist], { encoding: 'utf8', maxBuffer: 1 << 20 });
    const built = JSON.parse(out.trim().split('\n').pop()!);
    if (built.status !== 'built') throw new Error(`×${k}: ${out}`);
    const searchOut = execFileSync(process.execPath, ['--import', 'tsx', path.join(PROJECT_ROOT, 'bench/stream-build.ts'), '--search', dist], { encoding: 'utf8', maxBuffer: 1 << 20 });
    const r = { ...built, ...JSON.parse(searchOut.trim().split('\n').pop()!) };
    results.push({ scale: k, rows, ...r });
    console.log(`×${k}: ${rows} rows → ${r.records} records, ${r.files} files, ${r.seconds.toFixed(1)} s, peak RSS ${r.maxRssMiB.toFixed(0)} MiB; `
      + `search (${r.index}) ${r.searchColdMs.toFixed(0)} ms cold, ${r.searchWarmMs.toFixed(0)} ms warm `
      + `(server process peak RSS ${r.searchRssMiB.toFixed(0)} MiB); id lookup ${r.lookupMs.toFixed(1)} ms`);
  } finally {
    cleanup(mirror, cache, dist);
  }
}

const base = results[0];
console.log('\n| input rows | × rows | build time | × time | peak RSS | × RSS | RSS per 1k rows above ×1 |');
console.log('|---|---|---|---|---|---|---|');
for (const r of results) {
  const per = r === base ? '' : `${(((r.maxRssMiB - base.maxRssMiB) / (r.rows - base.rows)) * 1000).toFixed(2)} MiB`;
  console.log(`| ${r.rows.toLocaleString('en')} | ${(r.rows / base.rows).toFixed(1)} | ${r.seconds.toFixed(1)} s | ${(r.seconds / base.seconds).toFixed(1)} | ${r.maxRssMiB.toFixed(0)} MiB | ${(r.maxRssMiB / base.maxRssMiB).toFixed(2)} | ${per} |`);
}
