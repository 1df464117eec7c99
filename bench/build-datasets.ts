/**
 * `npx tsx bench/build-datasets.ts <dataset id>…`: build time and record count of some
 * platform datasets alone, fetched from the upstream mirror (ALMANAC_MIRROR, else
 * ../shared/upstream) into a temp cache and built into a temp dist, both removed after.
 * Without ids: the issue-11 datasets. Each dataset's line is the pipeline's own report
 * (normalise, validate, shards and compressed variants); the run is repeated
 * BENCH_RUNS times (default 3) and the median time reported.
 */
import { build } from '../server/cli/build.ts';
import { fetchAll } from '../pipeline/fetch.ts';
import { SOURCES } from '../sources/index.ts';
import { MIRROR_ROOT, cleanup, quiet, tempDir } from '../test/helpers.ts';

const ids = process.argv.slice(2).length ? process.argv.slice(2) : ['classification-crosswalks', 'agencies', 'ingredients', 'economic-indicators'];
const sources = ids.map((id) => SOURCES.find((s) => s.id === id) ?? (() => { throw new Error(`no dataset ${id}`); })());
if (!MIRROR_ROOT) throw new Error('needs the upstream mirror: set ALMANAC_MIRROR or place ../shared/upstream');
const cache = tempDir('almanac-bench-cache-');
const runs = Number(process.env.BENCH_RUNS ?? 3);
const times = new Map<string, number[]>();
const counts = new Map<string, number>();
try {
  await fetchAll(sources, { ...process.env, ALMANAC_MIRROR: MIRROR_ROOT, ALMANAC_CACHE: cache }, quiet);
  for (let i = 0; i < runs; i++) {
    const dist = tempDir('almanac-bench-dist-');
    try {
      const r = await build({ env: { ...process.env, ALMANAC_CACHE: cache, ALMANAC_DIST: dist }, sources, log: quiet });
      for (const rep of r.reports) {
        if (rep.status !== 'built') throw new Error(`${rep.id}: ${rep.status} (${rep.reason})`);
        times.set(rep.id, [...(times.get(rep.id) ?? []), rep.seconds]);
        counts.set(rep.id, rep.records);
      }
    } finally {
      cleanup(dist);
    }
  }
} finally {
  cleanup(cache);
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
for (const [id, xs] of times) console.log(`${id.padEnd(28)} ${String(counts.get(id)).padStart(7)} records  ${median(xs).toFixed(2)} s (median of ${xs.length}: ${xs.map((x) => x.toFixed(2)).join(', ')})`);
