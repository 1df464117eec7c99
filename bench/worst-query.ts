/**
 * `npm run bench:worst-query`: the slowest searches we can construct within the documented
 * limits (q ≤ 200 characters), timed in-process per dataset (server time), then sent to a
 * real server while /healthz is polled every 10 ms to show whether search blocks the event
 * loop. Needs a built release (ALMANAC_DIST or dist/). Issue 9, fault 1.
 */
import { spawn } from 'node:child_process';
import { PROJECT_ROOT, distDir } from '../pipeline/paths.ts';
import { fsRelease } from '../server/release/fs-reader.ts';
import { KeyStore } from '../server/state/keys.ts';
import { cleanup, tempDir } from '../test/helpers.ts';

const MAX = 200;
const fill = (word: string) => Array.from({ length: Math.floor((MAX + 1) / (word.length + 1)) }, () => word).join(' ').slice(0, MAX);
const distinct = (words: string[]) => words.join(' ').slice(0, MAX);
const alpha = 'abcdefghijklmnopqrstuvwxyz';
/** The shapes that cost most: many one-letter prefixes, many two-letter ones, many long fuzzy words. */
export const WORST_QUERIES: string[] = [
  fill('s'), fill('e'), fill('a'), fill('t'), 'the', 's', 'sta', 'san',
  distinct([...alpha].flatMap((c) => [c])),
  distinct(['st', 'an', 'co', 'ma', 'be', 'th', 're', 'de', 'sa', 'ca', 'la', 'pa', 'mo', 'ch', 'in', 'al', 'ar', 'ne', 'se', 'ho', 'ba', 'po', 'to', 'ri', 'le', 'ma', 'ge', 'ha', 'br', 'lo', 'me', 'ka', 'ta', 'fr', 'da', 'bo', 'di', 'gr', 'ra', 'pe', 'si', 'na', 'tr', 'fo', 'ga', 'va', 'ro', 'wa', 'sh', 'ki', 'ke', 'bi', 'mi', 'no', 'pr', 'ti', 'ni', 'vi', 'wi', 'ku', 'gu', 'ju', 'ja', 'el', 'or', 'ol']),
  distinct(['sta', 'san', 'con', 'mar', 'ber', 'the', 'res', 'der', 'sai', 'car', 'lan', 'par', 'mon', 'cha', 'int', 'all', 'ari', 'new', 'sen', 'hol', 'bar', 'por', 'tor', 'ric', 'les', 'mad', 'ger', 'har', 'bro', 'lor', 'men', 'kan', 'tan', 'fre', 'dan', 'bou', 'dis', 'gra', 'ram', 'per']),
  distinct(['saintsaintsaint', 'mountainsmount', 'christchristian', 'lordlordlordlo', 'peoplepeoplepeo', 'kingdomkingdom', 'countrycountry', 'villagevillage', 'districtdistrict', 'holidayholiday', 'national', 'independence', 'thereforethere']),
  distinct(['and', 'the', 'of', 'to', 'that', 'in', 'he', 'shall', 'unto', 'for', 'i', 'his', 'a', 'lord', 'they', 'be', 'is', 'him', 'not', 'them', 'it', 'with', 'all', 'thou', 'thy', 'was', 'god', 'which', 'my', 'me', 'said', 'but', 'ye', 'their', 'have', 'will', 'thee', 'from', 'as']),
];

async function main() {
  const dist = distDir();
  const release = fsRelease(dist);
  const searchable = [...release.datasets.values()].filter((d) => d.search_fields?.length);
  console.log(`release ${release.id}: ${searchable.length} searchable datasets, ${WORST_QUERIES.length} hostile query shapes`);
  let worst = { ms: 0, cpu: 0, ds: '', q: '' };
  let slowest = 0;
  const attempt = async (ds: string, q: string) => {
    try {
      await release.search(ds, q);
    } catch {
      // A 400 for the query is a bounded answer too.
    }
  };
  // Warm-up pass (index loads, JIT), then the median of three timed runs; CPU time beside
  // wall time, because on a shared machine the wall clock includes waiting for a core.
  for (const d of searchable) for (const q of WORST_QUERIES) await attempt(d.id, q);
  for (const d of searchable) {
    for (const q of WORST_QUERIES) {
      const runs: { ms: number; cpu: number }[] = [];
      for (let i = 0; i < 3; i++) {
        const c0 = process.cpuUsage();
        const t0 = performance.now();
        await attempt(d.id, q);
        const c = process.cpuUsage(c0);
        runs.push({ ms: performance.now() - t0, cpu: (c.user + c.system) / 1000 });
      }
      runs.sort((a, b) => a.ms - b.ms);
      if (runs[1].ms > worst.ms) worst = { ms: runs[1].ms, cpu: runs[1].cpu, ds: d.id, q };
      slowest = Math.max(slowest, runs[2].ms);
    }
  }
  console.log(`worst in-process search (median of 3, warm): ${worst.ms.toFixed(1)} ms wall, ${worst.cpu.toFixed(1)} ms CPU (${worst.ds}, q="${worst.q.slice(0, 40)}…"); slowest single run ${slowest.toFixed(1)} ms`);

  // Over HTTP: the worst query in a loop on one connection, /healthz polled on another.
  const state = tempDir('almanac-bench-worst-');
  const key = new KeyStore(state).create('development', 'bench').secret;
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/target.ts', 'almanac'], {
    cwd: PROJECT_ROOT, env: { ...process.env, ALMANAC_DIST: dist, ALMANAC_STATE_DIR: state, ALMANAC_RESPONSE_CACHE_MB: '0' }, stdio: ['ignore', 'pipe', 'inherit'],
  });
  const base = await new Promise<string>((resolve) => child.stdout.on('data', (c) => {
    const m = /listening (\d+)/.exec(String(c));
    if (m) resolve(`http://127.0.0.1:${m[1]}`);
  }));
  const path = worst.ds.startsWith('bible/')
    ? `/api/v1/search?translation=${worst.ds.slice(6)}&q=${encodeURIComponent(worst.q)}`
    : `/apis/${worst.ds}?q=${encodeURIComponent(worst.q)}&limit=100`;
  await fetch(base + path, { headers: { authorization: `Bearer ${key}` } }).then((r) => r.arrayBuffer());
  // Baseline: /healthz on this (shared) machine with no search running.
  const idle: number[] = [];
  for (const until = performance.now() + 3000; performance.now() < until;) {
    const t0 = performance.now();
    await fetch(`${base}/healthz`).then((r) => r.arrayBuffer());
    idle.push(performance.now() - t0);
    await new Promise((r) => setTimeout(r, 10));
  }
  let stop = false;
  const searchMs: number[] = [];
  const statuses = new Map<number, number>();
  const loop = (async () => {
    while (!stop) {
      const t0 = performance.now();
      const r = await fetch(base + path, { headers: { authorization: `Bearer ${key}` } });
      await r.arrayBuffer();
      statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
      searchMs.push(performance.now() - t0);
    }
  })();
  const healthMs: number[] = [];
  const until = performance.now() + Number(process.env.BENCH_SECONDS ?? 10) * 1000;
  while (performance.now() < until) {
    const t0 = performance.now();
    await fetch(`${base}/healthz`).then((r) => r.arrayBuffer());
    healthMs.push(performance.now() - t0);
    await new Promise((r) => setTimeout(r, 10));
  }
  stop = true;
  await loop;
  child.kill('SIGINT');
  cleanup(state);
  const q = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))].toFixed(1);
  console.log(`over HTTP: ${searchMs.length} worst searches (statuses ${JSON.stringify(Object.fromEntries(statuses))}), p50 ${q(searchMs, 0.5)} ms, max ${q(searchMs, 1)} ms`);
  console.log(`/healthz idle: ${idle.length} polls, p50 ${q(idle, 0.5)} ms, p99 ${q(idle, 0.99)} ms, max ${q(idle, 1)} ms`);
  console.log(`/healthz meanwhile: ${healthMs.length} polls, p50 ${q(healthMs, 0.5)} ms, p99 ${q(healthMs, 0.99)} ms, max ${q(healthMs, 1)} ms`);
}

main();
