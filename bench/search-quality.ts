/**
 * `npm run bench:search-quality`: how well search finds what a person looks for (issues 26
 * and 36, "Search"), on two query sets, each reported per dataset and overall:
 *
 * - judged: the queries of test/fixtures/search-quality.json, each with the record ids
 *   that answer it, chosen by reading the records (the ranking's honest check);
 * - generated: one query per name a record is known by, made from the records
 *   themselves (bench/search-names.ts: SearchSpec.names), thousands of them (coverage).
 *   Neither set is tuned on the other, nor on its own misses one by one.
 *
 * Both run against the live release of dist/ (ALMANAC_DIST overrides), read as the server
 * reads it (fsRelease, Release.searchWithin). Per set and dataset:
 *
 * - success@1 and success@3: the share of queries with an expected record first / in the
 *   first three;
 * - MRR: the mean of 1 / rank of the first expected record (0 when it is not in the
 *   first MAX_RANK).
 *
 * Expected ids are looked up as /apis/<dataset>/{id} looks them up (id, else alias), so a
 * record merged into another since the fixture was written still counts through its
 * alias; a query none of whose ids the release knows, or whose dataset the release lacks,
 * is reported and skipped. A translation (bible/*) is ranked as /api/v1/search ranks it:
 * phrase matches first (search-bounds.ts phraseFirst). List filters of /apis searches
 * (e.g. expired weather alerts) are not applied: they narrow a list, they do not rank it.
 *
 * Options: `--set judged|generated` runs one set only; `--save-generated FILE` writes the
 * generated queries, `--generated FILE` runs those instead of generating them (to measure
 * another release, built by other code, on the same queries); `--misses` lists every
 * judged query whose expected record is not first (`--misses=generated`: the generated
 * ones, the first 200), with what came first.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { distDir } from '../pipeline/paths.ts';
import { fsRelease } from '../server/release/fs-reader.ts';
import { phraseFirst, phraseWindow } from '../server/search/search-bounds.ts';
import { generatedQueries } from './search-names.ts';

/** Ranks beyond this count as not found (MRR 0). */
const MAX_RANK = 100;
const FIXTURE = new URL('../test/fixtures/search-quality.json', import.meta.url);

interface Query { dataset: string; q: string; expect: string[] }
interface Outcome { query: Query; rank: number | null; first: string | null; meta: string }

const fixture = JSON.parse(readFileSync(FIXTURE, 'utf8')) as { queries: Query[] };
const release = fsRelease(distDir(), 2 * 1024 ** 3);

const idOf = async (ds: string, o: number) => (JSON.parse((await release.record(ds, o)).toString()) as { id: string }).id;

/** The query's ordinals as the server would answer them (phrase order for translations). */
async function ranked(ds: string, q: string) {
  const found = await release.searchWithin(ds, q);
  if (!ds.startsWith('bible/')) return found;
  const window = phraseWindow(found.ordinals, q);
  const texts = new Map(await Promise.all(window.map(async (o) => [o, (JSON.parse((await release.record(ds, o)).toString()) as { text: string }).text] as const)));
  return { ...found, ordinals: phraseFirst(found.ordinals, (o) => texts.get(o)!, q) };
}

/** The ordinals of the expected records in this release (by id, else alias); empty when it knows none. */
async function expectedOrdinals(query: Query): Promise<Set<number>> {
  const found = await Promise.all(query.expect.map((id) => release.lookup(query.dataset, id)));
  return new Set(found.filter((o): o is number => o !== undefined));
}

async function run(query: Query, expected: Set<number>): Promise<Outcome> {
  // A query the cost bound refuses (400 invalid_parameter: a word in too many records) finds nothing.
  const found = await ranked(query.dataset, query.q).catch((e: Error) => ({ ordinals: [] as number[], match: undefined, unmatched: undefined, partial: false, refused: e.message }));
  const top = found.ordinals.slice(0, MAX_RANK);
  const at = top.findIndex((o) => expected.has(o));
  const rank = at < 0 ? null : at + 1;
  const refused = 'refused' in found ? `refused: ${found.refused}` : '';
  const flags = [found.match === 'partial' ? `partial, unmatched ${JSON.stringify(found.unmatched)}` : '', found.partial ? 'bounded' : '', refused].filter(Boolean).join('; ');
  return { query, rank, first: top.length ? await idOf(query.dataset, top[0]) : null, meta: flags };
}

const option = (name: string) => {
  const at = process.argv.findIndex((a) => a === name || a.startsWith(`${name}=`));
  return at < 0 ? undefined : process.argv[at].includes('=') ? process.argv[at].split('=')[1] : process.argv[at + 1];
};
const only = option('--set');
const missesOf = process.argv.some((a) => a === '--misses') ? 'judged' : option('--misses');

/** Runs a query set: outcomes per dataset, the datasets the release lacks and the queries none of whose ids it has. */
async function runSet(queries: Query[]) {
  const byDataset = new Map<string, Outcome[]>();
  const skipped = new Set<string>();
  const stale: Query[] = [];
  for (const query of queries) {
    if (!release.datasets.has(query.dataset)) {
      skipped.add(query.dataset);
      continue;
    }
    const expected = await expectedOrdinals(query);
    if (!expected.size) {
      stale.push(query);
      continue;
    }
    const list = byDataset.get(query.dataset) ?? byDataset.set(query.dataset, []).get(query.dataset)!;
    list.push(await run(query, expected));
  }
  return { byDataset, skipped, stale };
}

const score = (xs: Outcome[]) => ({
  n: xs.length,
  s1: xs.filter((x) => x.rank === 1).length / xs.length,
  s3: xs.filter((x) => x.rank !== null && x.rank <= 3).length / xs.length,
  mrr: xs.reduce((t, x) => t + (x.rank ? 1 / x.rank : 0), 0) / xs.length,
});
const row = (name: string, xs: Outcome[]) => {
  const s = score(xs);
  return `${name.padEnd(28)} ${String(s.n).padStart(5)}  ${s.s1.toFixed(3)}  ${s.s3.toFixed(3)}  ${s.mrr.toFixed(3)}`;
};

async function report(name: string, queries: Query[], maxMisses: number) {
  const started = performance.now();
  const { byDataset, skipped, stale } = await runSet(queries);
  console.log(`\n${name}: ${queries.length} queries (${((performance.now() - started) / 1000).toFixed(1)} s)`);
  console.log(`${'dataset'.padEnd(28)} ${'n'.padStart(5)}  succ@1  succ@3  MRR`);
  for (const [ds, xs] of [...byDataset].sort(([a], [b]) => (a < b ? -1 : 1))) console.log(row(ds, xs));
  console.log(row('overall', [...byDataset.values()].flat()));
  if (skipped.size) console.log(`not in this release (skipped): ${[...skipped].join(', ')}`);
  if (stale.length) console.log(`skipped, none of their ids in this release: ${stale.length}${stale.length <= 20 ? `: ${stale.map((q) => `${q.dataset} '${q.q}'`).join(', ')}` : ''}`);
  if (missesOf === name) {
    console.log(`\n${name} queries whose expected record is not first:`);
    for (const x of [...byDataset.values()].flat().filter((o) => o.rank !== 1).slice(0, maxMisses)) {
      console.log(`  ${x.query.dataset} '${x.query.q}': rank ${x.rank ?? `>${MAX_RANK}`}, first ${x.first ?? '(nothing)'}${x.meta ? ` (${x.meta})` : ''}`);
    }
  }
}

console.log(`release ${release.id} in ${distDir()}`);
if (only !== 'generated') await report('judged', fixture.queries, Infinity);
if (only !== 'judged') {
  const from = option('--generated');
  const generated = from ? (JSON.parse(readFileSync(from, 'utf8')) as { queries: Query[] }).queries : await generatedQueries(release);
  const save = option('--save-generated');
  if (save) writeFileSync(save, JSON.stringify({ release: release.id, queries: generated }));
  await report('generated', generated, 200);
}
