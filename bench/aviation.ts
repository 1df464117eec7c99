/**
 * `npm run bench:aviation`: /apis/aviation/search latency (warm) and the files an
 * /apis/aviation/airports/{ident} lookup reads, on the aviation dataset of the release in
 * ALMANAC_DIST (default dist/; build it with the mirror first). The response cache is
 * off so every request really searches. Queries are airport names' words, places and
 * IATA codes drawn deterministically from the records; the first request (loading the
 * serialized index) is reported apart, a first pass over all queries loads the packs
 * their results come from, and the second pass is measured (warm).
 */
import { spawn } from 'node:child_process';
import { PROJECT_ROOT, distDir } from '../pipeline/paths.ts';
import { viewGet } from '../server/api/handlers.ts';
import { fsRelease } from '../server/release/fs-reader.ts';
import { KeyStore } from '../server/state/keys.ts';
import { cleanup, tempDir } from '../test/helpers.ts';

const N = Number(process.env.BENCH_QUERIES ?? 400);
const release = fsRelease(distDir());
const info = release.datasets.get('aviation');
if (!info) throw new Error('no aviation dataset in the release: build it from the mirror first');

// Deterministic queries over airports (the first records in list order): a name word, a
// two-word name prefix, a place, an IATA code, in turn.
const queries: string[] = [];
const idents: string[] = [];
for (let o = 0; queries.length < N; o = (o + 7919) % 85_000) {
  const r = JSON.parse((await release.record('aviation', o)).toString());
  if (r.kind !== 'airport') continue;
  const words: string[] = r.name.toLowerCase().match(/[a-z]{4,}/g) ?? [];
  const pick = [words[0], words.slice(0, 2).join(' '), r.municipality?.toLowerCase(), r.iata_code][queries.length % 4];
  if (pick) queries.push(pick);
  if (idents.length < 200) idents.push(queries.length % 2 ? r.ident : (r.iata_code ?? r.ident).toLowerCase());
}

// Files read per /airports/{ident}: each lookup on a fresh, cache-less Release.
let maxReads = 0;
for (const ident of idents) {
  const fresh = fsRelease(distDir(), 0);
  // Every file the release asks its reader for (whole, scanned or a range of it).
  const files = new Set<string>();
  const reader = fresh.reader as unknown as Record<'read' | 'scan' | 'range', (p: string, ...rest: unknown[]) => Promise<unknown>>;
  for (const m of ['read', 'scan', 'range'] as const) {
    const own = reader[m].bind(reader);
    reader[m] = (p, ...rest) => (files.add(p), own(p, ...rest));
  }
  await viewGet('aviation', { kind: 'airport' })({ release: fresh, params: { ident }, query: {}, path: '/', reviews: () => { throw new Error('no reviews'); } });
  maxReads = Math.max(maxReads, files.size);
}

const state = tempDir('almanac-bench-aviation-');
const key = new KeyStore(state).create('development', 'bench').secret;
const child = spawn(process.execPath, ['--import', 'tsx', 'bench/target.ts', 'almanac'], {
  cwd: PROJECT_ROOT, env: { ...process.env, ALMANAC_DIST: distDir(), ALMANAC_STATE_DIR: state, ALMANAC_RESPONSE_CACHE_MB: '0' }, stdio: ['ignore', 'pipe', 'inherit'],
});
const base = await new Promise<string>((resolve) => child.stdout.on('data', (c) => {
  const m = /listening (\d+)/.exec(String(c));
  if (m) resolve(`http://127.0.0.1:${m[1]}`);
}));
const get = async (path: string) => {
  const t0 = performance.now();
  const r = await fetch(base + path, { headers: { authorization: `Bearer ${key}` } });
  const body = await r.json();
  if (r.status !== 200) throw new Error(`${path}: ${r.status} ${JSON.stringify(body)}`);
  return { ms: performance.now() - t0, total: body.meta?.total as number };
};
const pct = (times: number[], p: number) => times[Math.min(times.length - 1, Math.floor((p / 100) * times.length))].toFixed(2);
try {
  const cold = await get('/apis/aviation/search?q=airport');
  for (const q of queries) await get(`/apis/aviation/search?q=${encodeURIComponent(q)}`);
  const times: number[] = [];
  let hits = 0;
  for (const q of queries) {
    const r = await get(`/apis/aviation/search?q=${encodeURIComponent(q)}`);
    times.push(r.ms);
    hits += r.total;
  }
  times.sort((a, b) => a - b);
  const gets: number[] = [];
  for (const ident of idents) gets.push((await get(`/apis/aviation/airports/${encodeURIComponent(ident)}`)).ms);
  gets.sort((a, b) => a - b);
  console.log(`aviation: ${info.records} records; ${N} search queries (sequential, warm, response cache off, limit=20)`);
  console.log(`first query (loads the index): ${cold.ms.toFixed(0)} ms`);
  console.log(`search: p50 ${pct(times, 50)} ms, p90 ${pct(times, 90)} ms, p99 ${pct(times, 99)} ms, max ${times[times.length - 1].toFixed(2)} ms; mean matches ${(hits / N).toFixed(0)}`);
  console.log(`/airports/{ident} (${idents.length} idents and IATA codes): p50 ${pct(gets, 50)} ms, p99 ${pct(gets, 99)} ms; at most ${maxReads} files read per lookup (cold)`);
} finally {
  child.kill();
  cleanup(state);
}
