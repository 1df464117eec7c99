/**
 * Prototype (issue 14): split a built minisearch index by word, to see whether a query
 * that loads only its words' parts meets first use ≤ 200 ms and what it costs.
 * Each part holds the terms whose first two characters hash to it, the documents those
 * terms reference (ids, field lengths, stored fields) and the whole index's counts, so
 * a word's scores are the whole index's. Usage: tsx bench/search-split.ts <dataset>...
 */
import { readFileSync } from 'node:fs';
import MiniSearch from 'minisearch';
import { distDir } from '../pipeline/paths.ts';
import { searchOptions, searchTokenize } from '../pipeline/shards.ts';
import { Release } from '../server/release.ts';

const TARGET = Number(process.env.SPLIT_TARGET_KB ?? 256) * 1024;
const release = new Release(distDir());
const key = (term: string) => [...term].slice(0, 2).join('');
const fnv = (s: string) => { let h = 0x811c9dc5; for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193) >>> 0; return h; };

function split(js: any, parts: number): string[] {
  const buckets = Array.from({ length: parts }, () => ({ index: [] as any[], docs: new Set<string>() }));
  for (const entry of js.index) {
    const b = buckets[fnv(key(entry[0])) % parts];
    b.index.push(entry);
    for (const f of Object.values(entry[1]) as Record<string, number>[]) for (const d of Object.keys(f)) b.docs.add(d);
  }
  return buckets.map((b) => {
    const pick = (o: Record<string, unknown>) => Object.fromEntries([...b.docs].filter((d) => d in o).map((d) => [d, o[d]]));
    return JSON.stringify({ ...js, documentIds: pick(js.documentIds), fieldLength: pick(js.fieldLength), storedFields: pick(js.storedFields), index: b.index });
  });
}

for (const ds of process.argv.slice(2)) {
  const info = release.datasets.get(ds)!;
  const text = readFileSync(`${release.dir}/${ds}/search.json`, 'utf8');
  const opts = searchOptions(info.search_fields!, info.search_rank, info.search_tuning?.stopWords);
  const whole = MiniSearch.loadJSON(text, opts);
  const parts = Math.max(1, Math.ceil(text.length / TARGET));
  const files = split(JSON.parse(text), parts);
  const sizes = files.map((f) => f.length).sort((a, b) => a - b);
  const loadMs: number[] = [];
  const loaded: MiniSearch[] = [];
  for (const f of files) {
    const t0 = performance.now();
    loaded.push(MiniSearch.loadJSON(f, opts));
    loadMs.push(performance.now() - t0);
  }
  loadMs.sort((a, b) => a - b);
  // Equivalence: single words and pairs drawn from the records, exact and prefix, no typos.
  const part = (w: string) => loaded[fnv(key(w)) % parts];
  let same = 0, differ = 0;
  const search = { prefix: (t: string) => t.length >= 3, fuzzy: false, combineWith: 'AND' as const,
    ...(info.search_boost ? { boost: info.search_boost } : {}),
    ...(info.search_rank ? { boostDocument: (_i: unknown, _t: string, s: any) => 1 + Math.log10(1 + Number(s?.__rank ?? 0)) } : {}) };
  for (let i = 0, o = 0; i < 3000 && same + differ < 300; i++, o = (o + 7919) % info.records) {
    const rec = JSON.parse(release.record(ds, o).toString());
    const words = info.search_fields!.flatMap((f) => searchTokenize(String(rec[f] ?? ''))).map((w) => w.toLowerCase()).filter((w) => w.length > 2).slice(0, 2);
    if (!words.length) continue;
    const expect = whole.search(words.join(' '), search).map((r) => [r.id, r.score]);
    const pt = (opts as { processTerm?: (t: string) => string | null }).processTerm ?? ((t: string) => t.toLowerCase());
    const kept = words.map(pt).filter((w): w is string => !!w);
    if (!kept.length) continue;
    const raws = kept.map((w) => (part(w) as any).executeQuery(w, search));
    const combined = (loaded[0] as any).combineResults(raws, 'AND') as Map<number, { score: number; terms: string[] }>;
    const last = part(kept[kept.length - 1]) as any;
    const got = [...combined].map(([sid, r]) => [last._documentIds.get(sid), r.score * (r.terms.length || 1)]).sort((a: any, b: any) => b[1] - a[1]);
    if (JSON.stringify(got) === JSON.stringify(expect)) same++;
    else {
      differ++;
      if (process.env.SPLIT_DEBUG && differ < 3) console.log(words, expect.length, got.length, JSON.stringify(expect.slice(0, 4)), JSON.stringify(got.slice(0, 4)));
    }
  }
  console.log(`${ds}: whole ${(text.length / 2 ** 20).toFixed(1)} MiB → ${parts} parts, ${(sizes[0] / 1024).toFixed(0)}–${(sizes[sizes.length - 1] / 1024).toFixed(0)} KiB (total ${(sizes.reduce((a, b) => a + b, 0) / 2 ** 20).toFixed(1)} MiB); part load p50 ${loadMs[loadMs.length >> 1].toFixed(0)} ms max ${loadMs[loadMs.length - 1].toFixed(0)} ms; ${same} queries identical, ${differ} differ`);
}
