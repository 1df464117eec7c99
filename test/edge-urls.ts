/**
 * Requests sampled from a release and the route tables, deterministically (a seeded
 * generator): every route of every dataset the release has — lists and pages, filters
 * with values from its own filter indexes, lookups of real ids and of missing ones,
 * searches with words from its records — and the scripture surface (text, ranges, study,
 * morphology, search, key), plus errors: unknown parameters and paths, bad values, no
 * key, a wrong key. test/edge.test.ts sends them to the Node server and to the Worker.
 */
import { ROUTES } from '../server/api/routes.ts';
import { V1_ROUTES } from '../server/api/v1/routes.ts';
import type { Release } from '../server/release/release.ts';
import type { TranslationSummary } from '../sources/scripture/dataset.ts';

export interface Sampled { path: string; auth: 'header' | 'bearer' | 'query' | 'none' | 'wrong' }

/** mulberry32: a small seeded generator, so a failing sample can be replayed. */
export function random(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const words = (v: unknown): string[] =>
  typeof v === 'string' ? (v.toLowerCase().match(/\p{L}{4,}/gu) ?? []) : Array.isArray(v) ? v.flatMap(words) : [];

export async function sampleRequests(release: Release, seed = 2026_11_26): Promise<Sampled[]> {
  const rnd = random(seed);
  const pick = <T>(xs: T[]): T => xs[Math.floor(rnd() * xs.length)];
  const out: Sampled[] = [];
  const add = (path: string, auth: Sampled['auth'] = 'header') => out.push({ path, auth });
  const enc = encodeURIComponent;

  for (const info of release.datasets.values()) {
    if (info.id.startsWith('bible/') || info.id === 'bible-study') continue;
    const routes = ROUTES.filter((r) => r.dataset === info.id);
    const records = await Promise.all(Array.from({ length: Math.min(8, info.records) }, () => release.record(info.id, Math.floor(rnd() * info.records))));
    const parsed = records.map((b) => JSON.parse(b.toString()) as Record<string, unknown>);
    const ids = parsed.map((r) => String(r.id));
    const text = parsed.flatMap((r) => (info.search_fields ?? []).flatMap((f) => words(r[f])));
    for (const r of routes) {
      const params = r.path.match(/\{[^}]+\}/g) ?? [];
      if (params.length === 0) {
        add(r.path);
        if (r.query.some((q) => q.name === 'limit')) add(`${r.path}?limit=${1 + Math.floor(rnd() * 30)}&offset=${Math.floor(rnd() * Math.max(1, info.records))}`);
        if (r.query.some((q) => q.name === 'q') && text.length) {
          add(`${r.path}?q=${enc(pick(text))}`);
          add(`${r.path}?q=${enc(`${pick(text)} ${pick(text)}`)}&limit=5`);
        }
        for (const f of info.filters.filter((x) => !x.compare && r.query.some((q) => q.name === x.param)).slice(0, 3)) {
          const values = await release.filterValues(info.id, f.param).catch(() => []);
          if (values.length) add(`${r.path}?${f.param}=${enc(pick(values))}&limit=3`);
        }
        add(`${r.path}?bogus=1`);
        if (r.query.some((q) => q.name === 'limit')) add(`${r.path}?limit=0`);
      } else if (params.length === 1) {
        for (const id of ids.slice(0, 4)) if (!id.includes('/')) add(r.path.replace(params[0], enc(id)));
        add(r.path.replace(params[0], 'no-such-record-zz'));
      } else {
        const slashed = ids.find((id) => id.split('/').length === params.length);
        if (slashed) add(r.path.split('/').slice(0, -params.length).concat(slashed.split('/').map(enc)).join('/'));
      }
    }
    add(`/apis/${info.id}`, 'none');
    add(`/apis/${info.id}/${enc(ids[0] ?? 'x')}`, 'wrong');
    add(`/apis/${info.id}?limit=2`, 'bearer');
  }

  const bibles = [...release.datasets.values()].filter((d) => d.id.startsWith('bible/'));
  for (const info of bibles) {
    const t = info.summary as TranslationSummary;
    const slug = t.slug;
    const book = () => pick(t.books);
    for (let i = 0; i < 12; i++) {
      const b = book();
      const [c, , count] = pick(b.chapters);
      const v = 1 + Math.floor(rnd() * count);
      const auth = pick<Sampled['auth']>(['header', 'bearer', 'query']);
      add(`/api/v1/text/${slug}/${b.slug}/${c}/${v}`, auth === 'header' ? 'bearer' : auth);
      add(`/api/v1/${slug}/${b.slug}/${c}/${v}`, 'bearer');
      add(`/api/v1/text/${slug}/${b.slug}/${c}`, 'bearer');
      add(`/api/v1/text/${slug}/range?from=${b.slug}.${c}.${v}&to=${b.slug}.${c}.${Math.min(count, v + 3)}`, 'bearer');
      add(`/api/v1/study/${slug}/${b.slug}/${c}/${v}`, 'bearer');
      add(`/api/v1/morphology/${slug}/range?from=${b.slug}.${c}.${v}&to=${b.slug}.${c}.${Math.min(count, v + 2)}`, 'bearer');
      const verse = JSON.parse((await release.record(info.id, Math.floor(rnd() * info.records))).toString()) as { text: string };
      const w = words(verse.text);
      if (w.length) add(`/api/v1/search?translation=${slug}&q=${enc(pick(w))}&limit=5`, 'bearer');
    }
    const small = t.books.reduce((a, b) => (b.chapters.length < a.chapters.length ? b : a));
    add(`/api/v1/text/${slug}/${small.slug}`, 'bearer');
    add(`/api/v1/books?translation=${slug}`, 'bearer');
    add(`/api/v1/text/${slug}?ref=${enc('John 3:16-18')}`, 'bearer');
    add(`/api/v1/study/${slug}?ref=${enc('Gen 1:1-3')}&source_role=${enc('Original Language')}`, 'bearer');
    add(`/api/v1/text/${slug}/zzz/1/1`, 'bearer');
    add(`/api/v1/text/${slug}/gen/1/999`, 'bearer');
    add(`/api/v1/text/${slug}/range?from=gen.2.1&to=gen.1.1`, 'bearer');
    add(`/api/v1/study/${slug}/gen/1/1?confidence=bogus`, 'bearer');
    add(`/api/v1/search?translation=${slug}`, 'bearer');
  }
  for (const r of V1_ROUTES.filter((x) => !x.path.includes('{'))) if (!r.query.some((q) => q.required)) add(r.path, 'bearer');
  add('/api/v1/translations', 'none');
  add('/api/v1/translations', 'wrong');
  add('/api/v1/nope', 'bearer');
  add('/apis/no-such-dataset', 'header');
  add('/apis', 'header');
  add('/healthz', 'none');
  add('/apis/openapi.json', 'none');
  add('/api/v1/openapi', 'none');
  add('/docs', 'none');
  add('/nothing-here', 'none');
  add('/apis/elements/%E0%A4%A', 'header');
  // The same sample again until there are 1,000 (the second time, many are answered from caches).
  for (let i = 0; out.length < 1000; i++) out.push(out[i]);
  return out;
}

/** ROUTES' paths, to check the sample reaches every route of the datasets present. */
export const routePaths = () => [...ROUTES, ...V1_ROUTES].map((r) => r.path);
