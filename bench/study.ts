/**
 * `npm run bench:study`: what the word-study layers cost.
 *
 * 1. Build time: builds the study dataset alone (from the fetch cache; run
 *    `ALMANAC_MIRROR=../shared/upstream npm run fetch` first) into a temp dist and reports
 *    its time, files and bytes: what the layers add to a full build. Skipped with
 *    BENCH_DIST=<a dist with the study layers and kjv/asv/darby/web-catholic> (then that
 *    dist is measured instead of a fresh one, which also needs kjv for the requests).
 * 2. Server: a real server process (bench/target.ts, response cache off as the study
 *    routes have none): RSS before any study request, after touching every layer (a verse
 *    per layer and translation), and after touching every pack (worst case).
 * 3. Latency, sequential requests on loopback: warm /study verse (400 verses spread over
 *    the canon, each requested once to warm, then measured), and 100-verse /study ranges,
 *    on asv (its study adds the generated alignment panel) or else kjv.
 * Per layer: verse count, token count, status buckets (from /source-coverage).
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { build } from '../server/cli/build.ts';
import { PROJECT_ROOT, distDir } from '../pipeline/paths.ts';
import { KeyStore } from '../server/state/keys.ts';
import { translationDataset } from '../sources/scripture/dataset.ts';
import { TRANSLATIONS } from '../sources/scripture/index.ts';
import { studyDataset } from '../sources/scripture/study/dataset.ts';
import { cleanup, tempDir } from '../test/helpers.ts';

const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))];
const ms = (x: number) => `${x.toFixed(2)} ms`;

let dist = process.env.BENCH_DIST;
const temp: string[] = [];
if (!dist) {
  dist = tempDir('almanac-bench-study-');
  temp.push(dist);
  const env = { ...process.env, ALMANAC_DIST: dist };
  const texts = TRANSLATIONS.filter((t) => ['kjv', 'asv'].includes(t.slug)).map(translationDataset);
  const t0 = performance.now();
  const r = await build({ env, sources: [studyDataset()], log: () => {} });
  const s = r.reports[0];
  console.log(`study layers build: ${s.seconds.toFixed(1)} s (${s.records} records, ${s.files} files, ${(s.bytes / 2 ** 20).toFixed(1)} MiB raw; whole run ${((performance.now() - t0) / 1000).toFixed(1)} s)`);
  await build({ env, sources: [...texts, studyDataset()], log: () => {} }); // the requests need translations
}

const state = tempDir('almanac-bench-study-state-');
temp.push(state);
const key = new KeyStore(state).create('development', 'bench').secret;
// BENCH_PROF_DIR=<dir>: the server writes a V8 CPU profile there when the bench ends.
const prof = process.env.BENCH_PROF_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROF_DIR}`] : [];
const child = spawn(process.execPath, [...prof, '--import', 'tsx', 'bench/target.ts', 'almanac'], {
  cwd: PROJECT_ROOT, env: { ...process.env, ALMANAC_DIST: dist ?? distDir(), ALMANAC_STATE_DIR: state, ALMANAC_RESPONSE_CACHE_MB: '0' }, stdio: ['ignore', 'pipe', 'inherit'],
});
const base = await new Promise<string>((resolve) => child.stdout.on('data', (c) => {
  const m = /listening (\d+)/.exec(String(c));
  if (m) resolve(`http://127.0.0.1:${m[1]}`);
}));
const rss = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))![1]) / 1024;
// node:http with a keep-alive agent, not fetch: fetch's web streams took 50-60 ms of the
// client's own time to take in a 4 MB range that curl receives in 6-15 ms, so the bench
// measured the client. Timed to the last byte; parsing is the client's time, not the server's.
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
const get = async (p: string) => {
  const t0 = performance.now();
  const { status, bytes } = await new Promise<{ status: number; bytes: Buffer }>((resolve, reject) => {
    http.get(base + p, { agent, headers: { authorization: `Bearer ${key}` } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes: Buffer.concat(chunks) }));
      res.on('error', reject);
    }).on('error', reject);
  });
  const t = performance.now() - t0;
  const body = JSON.parse(bytes.toString('utf8'));
  if (status !== 200) throw new Error(`${p}: ${status} ${JSON.stringify(body).slice(0, 200)}`);
  return { t, body };
};

try {
  const have = (await get('/api/v1/translations')).body.data.filter((t: any) => t.available).map((t: any) => t.slug);
  await get('/api/v1/text/kjv/gen/1/1');
  const rss0 = rss();
  for (const t of ['kjv', 'asv', 'darby', 'web-catholic'].filter((s) => have.includes(s))) {
    for (const v of ['gen/1/1', 'dan/2/4', 'ps/23/1', 'john/1/1', 'john/3/16']) await get(`/api/v1/study/${t}/${v}`);
  }
  const rssLayers = rss();

  // 400 verses spread over the kjv canon (every ~78th verse).
  // asv when present: its study also carries the generated alignment panel (the heavier case).
  const T = have.includes('asv') ? 'asv' : 'kjv';
  const books = (await get(`/api/v1/books?translation=${T}`)).body.data as { slug: string }[];
  const refs: string[] = [];
  for (const b of books) {
    const chapters = (await get(`/api/v1/text/${T}/${b.slug}`)).body.data.chapters as { chapter: number; verses: unknown[] }[];
    for (const c of chapters) for (let v = 1; v <= c.verses.length; v++) refs.push(`${b.slug}/${c.chapter}/${v}`);
  }
  const sample = refs.filter((_, i) => i % Math.floor(refs.length / 400) === 0).slice(0, 400);
  for (const r of sample) await get(`/api/v1/study/${T}/${r}`);
  const verse = [];
  for (const r of sample) verse.push((await get(`/api/v1/study/${T}/${r}`)).t);
  const ranges = [];
  for (let i = 0; i < 60; i++) {
    const start = refs[(i * 7919) % (refs.length - 100)].replace(/\//g, '.');
    const end = refs[(i * 7919) % (refs.length - 100) + 99].replace(/\//g, '.');
    const url = `/api/v1/study/${T}/range?from=${start}&to=${end}`;
    await get(url); // warm
    ranges.push((await get(url)).t);
  }
  const rssAll = rss();
  console.log(`load average while measuring: ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')} (2 cores, shared)`);
  console.log(`warm /study/${T} verse (${verse.length} verses): p50 ${ms(quantile(verse, 0.5))} p90 ${ms(quantile(verse, 0.9))} p99 ${ms(quantile(verse, 0.99))}`);
  console.log(`warm 100-verse /study/${T} range (${ranges.length} ranges): p50 ${ms(quantile(ranges, 0.5))} p90 ${ms(quantile(ranges, 0.9))} p99 ${ms(quantile(ranges, 0.99))}`);
  console.log(`server RSS: ${rss0.toFixed(0)} MiB before study requests, ${rssLayers.toFixed(0)} MiB with every layer touched (+${(rssLayers - rss0).toFixed(0)}), ${rssAll.toFixed(0)} MiB after the 400-verse sample and ranges (+${(rssAll - rss0).toFixed(0)})`);
  const cov = (await get('/api/v1/source-coverage')).body.data;
  for (const l of cov.layers) console.log(`  ${l.id.padEnd(20)} verses ${String(l.verses).padStart(6)} tokens ${String(l.word_tokens).padStart(7)} ${JSON.stringify(l.token_statuses)}`);
} finally {
  agent.destroy();
  child.kill('SIGINT');
  cleanup(...temp);
}
