/**
 * `npm run bench:search`: /api/v1/search latency on the largest translation of the live
 * release (needs a built dist/ with it; run `npm start` or fetch + build first). The
 * response cache is off so every request really searches. Queries are words and word
 * pairs drawn deterministically from the translation's own text; the first request's
 * time (loading the serialized index) is reported apart.
 */
import { spawn } from 'node:child_process';
import { PROJECT_ROOT, distDir } from '../pipeline/paths.ts';
import { fsRelease } from '../server/release/fs-reader.ts';
import type { TranslationSummary } from '../sources/scripture/dataset.ts';
import { KeyStore } from '../server/state/keys.ts';
import { cleanup, tempDir } from '../test/helpers.ts';

const N = Number(process.env.BENCH_QUERIES ?? 400);
const release = fsRelease(distDir());
const bibles = [...release.datasets.values()].filter((d) => d.id.startsWith('bible/'));
if (!bibles.length) throw new Error('no translation in dist/: build first');
const largest = bibles.sort((a, b) => b.records - a.records)[0];
const slug = (largest.summary as TranslationSummary).slug;

// Deterministic query list: every k-th verse's 3rd word, and every 2k-th verse's words 2–3.
const words: string[] = [];
for (let o = 0; words.length < N; o = (o + 997) % largest.records) {
  const text: string = JSON.parse((await release.record(largest.id, o)).toString()).text;
  const w = text.toLowerCase().match(/[a-z]{4,}/g) ?? [];
  if (w.length > 3) words.push(words.length % 2 ? `${w[1]} ${w[2]}` : w[2]);
}

const state = tempDir('almanac-bench-search-');
const key = new KeyStore(state).create('development', 'bench').secret;
const child = spawn(process.execPath, ['--import', 'tsx', 'bench/target.ts', 'almanac'], {
  cwd: PROJECT_ROOT, env: { ...process.env, ALMANAC_DIST: distDir(), ALMANAC_STATE_DIR: state, ALMANAC_RESPONSE_CACHE_MB: '0' }, stdio: ['ignore', 'pipe', 'inherit'],
});
const base = await new Promise<string>((resolve) => child.stdout.on('data', (c) => {
  const m = /listening (\d+)/.exec(String(c));
  if (m) resolve(`http://127.0.0.1:${m[1]}`);
}));
const get = async (q: string) => {
  const t0 = performance.now();
  const r = await fetch(`${base}/api/v1/search?translation=${slug}&q=${encodeURIComponent(q)}&limit=20`, { headers: { authorization: `Bearer ${key}` } });
  const body = await r.json();
  if (r.status !== 200) throw new Error(`${q}: ${r.status} ${JSON.stringify(body)}`);
  return { ms: performance.now() - t0, total: body.meta.total as number };
};
try {
  const cold = await get('light');
  const times: number[] = [];
  let hits = 0;
  for (const q of words) {
    const r = await get(q);
    times.push(r.ms);
    hits += r.total;
  }
  times.sort((a, b) => a - b);
  const pct = (p: number) => times[Math.min(times.length - 1, Math.floor((p / 100) * times.length))].toFixed(2);
  console.log(`${slug}: ${largest.records} verses, ${N} queries (sequential, response cache off, limit=20)`);
  console.log(`first query (loads the index): ${cold.ms.toFixed(0)} ms`);
  console.log(`p50 ${pct(50)} ms, p90 ${pct(90)} ms, p99 ${pct(99)} ms, max ${times[times.length - 1].toFixed(2)} ms; mean matches per query ${(hits / N).toFixed(0)}`);
} finally {
  child.kill();
  cleanup(state);
}
