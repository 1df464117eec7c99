/**
 * The interleaved traffic of bench/edge.ts (issue 39, item 3): for every dataset of a
 * release, requests of every route kind with real ids, filter values and words from its
 * own records, shuffled together (a seeded generator, so a run can be replayed), so the
 * isolate's caches evict one another as they would under mixed traffic. Route kinds:
 *
 *   lookup       one record by id (/apis/<ds>/<id>, and each view's {id} route)
 *   list         a page of 20 at an offset
 *   filter       a page of 20 with a filter value
 *   search       a word or two, the default page
 *   search100    the same with limit=100 (the most records a page may read)
 *   text         a verse and a chapter of a translation
 *   text-range   100 verses of text
 *   study        a verse's word study
 *   study-range  100 verses of word study (the largest bodies: ~1–5 MB)
 */
import { ROUTES } from '../server/api/routes.ts';
import type { Release } from '../server/release/release.ts';
import type { TranslationSummary } from '../sources/scripture/dataset.ts';
import { random } from '../test/edge-urls.ts';

export type Kind = 'lookup' | 'list' | 'filter' | 'search' | 'search100' | 'text' | 'text-range' | 'study' | 'study-range';
export const KINDS: Kind[] = ['lookup', 'list', 'filter', 'search', 'search100', 'text', 'text-range', 'study', 'study-range'];
export interface BenchRequest { kind: Kind; dataset: string; path: string }

const words = (v: unknown): string[] =>
  typeof v === 'string' ? (v.toLowerCase().match(/\p{L}{4,}/gu) ?? []) : Array.isArray(v) ? v.flatMap(words) : [];

/** `perDataset` requests of each kind a dataset has, for every dataset, shuffled. */
export async function benchTraffic(release: Release, seed: number, perDataset = 2): Promise<BenchRequest[]> {
  const rnd = random(seed);
  const pick = <T>(xs: T[]): T => xs[Math.floor(rnd() * xs.length)];
  const enc = encodeURIComponent;
  const out: BenchRequest[] = [];
  for (const info of release.datasets.values()) {
    const ds = info.id;
    const add = (kind: Kind, path: string) => out.push({ kind, dataset: ds, path });
    const record = async () => JSON.parse((await release.record(ds, Math.floor(rnd() * info.records))).toString()) as Record<string, unknown>;
    if (ds.startsWith('bible/')) {
      const t = info.summary as TranslationSummary;
      for (let i = 0; i < perDataset; i++) {
        const b = pick(t.books);
        const [c, , count] = pick(b.chapters);
        add('text', `/api/v1/text/${t.slug}/${b.slug}/${c}/${1 + Math.floor(rnd() * count)}`);
        add('text', `/api/v1/text/${t.slug}/${b.slug}/${c}`);
        const at = Math.floor(rnd() * Math.max(1, info.records - 100));
        const [from, to] = [await release.record(ds, at), await release.record(ds, at + 99)].map((l) => JSON.parse(l.toString()) as { id: string });
        add('text-range', `/api/v1/text/${t.slug}/range?from=${enc(from.id)}&to=${enc(to.id)}`);
        const w = words((await record()).text);
        if (w.length) {
          add('search', `/api/v1/search?translation=${t.slug}&q=${enc(pick(w))}`);
          add('search100', `/api/v1/search?translation=${t.slug}&q=${enc(pick(w))}&limit=100`);
        }
        if (t.slug === 'kjv') {
          add('study', `/api/v1/study/kjv/${b.slug}/${c}/${1 + Math.floor(rnd() * count)}`);
          add('study-range', `/api/v1/study/kjv/range?from=${enc(from.id)}&to=${enc(to.id)}`);
        }
      }
      continue;
    }
    if (ds === 'bible-study') continue; // asked through /api/v1/study above
    const routes = ROUTES.filter((r) => r.dataset === ds);
    for (let i = 0; i < perDataset; i++) {
      const rec = await record();
      const text = (info.search_fields ?? []).flatMap((f) => words(rec[f]));
      for (const r of routes) {
        const params = r.path.match(/\{[^}]+\}/g) ?? [];
        if (params.length === 1 && !String(rec.id).includes('/')) add('lookup', r.path.replace(params[0], enc(String(rec.id))));
        if (params.length) continue;
        if (r.query.some((q) => q.name === 'limit') && !r.query.some((q) => q.name === 'q' && q.required)) {
          add('list', `${r.path}?limit=20&offset=${Math.floor(rnd() * Math.max(1, info.records - 20))}`);
          const f = info.filters.find((x) => !x.compare && r.query.some((q) => q.name === x.param));
          const values = f ? await release.filterValues(ds, f.param).catch(() => []) : [];
          if (f && values.length) add('filter', `${r.path}?${f.param}=${enc(pick(values))}&limit=20`);
        }
        if (r.query.some((q) => q.name === 'q') && text.length) {
          add('search', `${r.path}?q=${enc(pick(text))}`);
          add('search100', `${r.path}?q=${enc(`${pick(text)} ${pick(text)}`.trim())}&limit=100`);
        }
      }
    }
  }
  // Fisher–Yates with the seeded generator: every dataset's kinds interleaved.
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}
