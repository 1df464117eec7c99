/**
 * Scripture text: resolve translations, books, chapters, verses and ranges to ordinals
 * of the translation's dataset (built in canon order, so a chapter or range is a
 * contiguous slice), and shape verses with links to their neighbours so clients never
 * build paths themselves.
 */
import { datasetId, type BookSummary, type TranslationSummary, type VerseRecord } from '../../../sources/scripture/dataset.ts';
import { TRANSLATION_SLUGS, UNAVAILABLE } from '../../../sources/scripture/catalogue.ts';
import { resolveBookName, suggestBooks } from '../../../sources/scripture/book-names.ts';
import { ApiError } from '../../http/errors.ts';
import type { Ctx } from '../handlers.ts';

/** Longest /text range; the spec leaves it open (study ranges are capped at 100). */
export const MAX_RANGE_VERSES = 500;
export const V1 = '/api/v1';

export interface Translation {
  slug: string;
  summary: TranslationSummary;
  ds: string;
}

export function translation(ctx: Ctx, raw: string): Translation {
  // Slugs are lower case; `KJV` is what people type.
  const slug = raw.toLowerCase();
  const ds = datasetId(slug);
  const info = ctx.release.datasets.get(ds);
  if (info) return { slug, summary: info.summary as TranslationSummary, ds };
  if ((TRANSLATION_SLUGS as readonly string[]).includes(slug)) {
    const reason = UNAVAILABLE[slug]?.reason ?? ctx.release.absent[ds] ?? 'not in the live release';
    throw new ApiError('translation_unavailable', `translation '${slug}' is not available`, { translation: slug, reason });
  }
  throw new ApiError('translation_not_found', `no translation '${slug.slice(0, 40)}'`, { translation: slug.slice(0, 40), available: TRANSLATION_SLUGS });
}

/**
 * A book by slug or by any name people type (`genesis`, `1 John`, `1jn`, `Jn`:
 * sources/scripture/book-names.ts). A name several books start with is a 400
 * `ambiguous_id` with the candidates; a name no book has is a 404 suggesting the closest.
 */
export function findBook(t: Translation, raw: string): BookSummary {
  const exact = t.summary.books.find((x) => x.slug === raw);
  if (exact) return exact;
  const shown = raw.slice(0, 40);
  const r = resolveBookName(raw);
  if ('ambiguous' in r) {
    // The same in every translation (Ju is ambiguous in the KJV too, which has no Judith).
    throw new ApiError('ambiguous_id', `'${shown}' could be several books: ${r.ambiguous.join(', ')}; use one of their slugs`, { translation: t.slug, book: shown, candidates: r.ambiguous });
  }
  const b = 'slug' in r ? t.summary.books.find((x) => x.slug === r.slug) : undefined;
  if (b) return b;
  const slugs = t.summary.books.map((x) => x.slug);
  const suggestions = 'slug' in r ? [] : suggestBooks(raw, slugs);
  const why = 'slug' in r ? `'${shown}' is ${r.slug}, which ${t.slug} does not have` : `${t.slug} has no book '${shown}'`;
  throw new ApiError('book_not_found', `${why}${suggestions.length ? `; did you mean ${suggestions.join(', ')}?` : ''}`, {
    translation: t.slug, book: shown, ...('slug' in r ? { resolved: r.slug } : {}), suggestions, books: `${V1}/books?translation=${t.slug}`,
  });
}

function positiveInt(raw: string, what: string): number {
  if (!/^\d{1,4}$/.test(raw)) throw new ApiError('invalid_reference', `${what} '${raw.slice(0, 20)}' is not a number`, { [what]: raw.slice(0, 20) });
  return Number(raw);
}

export function findChapter(t: Translation, b: BookSummary, raw: string): [number, number, number] {
  const n = positiveInt(raw, 'chapter');
  const c = b.chapters.find((x) => x[0] === n);
  if (!c) throw new ApiError('chapter_not_found', `${t.slug} ${b.slug} has no chapter ${n}`, { translation: t.slug, book: b.slug, chapter: n, chapters: b.chapters.length });
  return c;
}

/** Ordinal of one verse, by path parts. */
export async function verseOrdinal(ctx: Ctx, t: Translation, bookSlug: string, chapter: string, verse: string): Promise<number> {
  const b = findBook(t, bookSlug);
  const [c] = findChapter(t, b, chapter);
  const v = positiveInt(verse, 'verse');
  const ord = await ctx.release.lookup(t.ds, `${b.slug}.${c}.${v}`);
  if (ord === undefined) throw new ApiError('verse_not_found', `${t.slug} ${b.slug} ${c} has no verse ${v}`, { translation: t.slug, book: b.slug, chapter: c, verse: v });
  return ord;
}

/**
 * A canonical reference `<book_slug>.<chapter>.<verse>`, optionally qualified with a
 * translation (`kjv:gen.1.1`); a qualifier naming another translation is refused.
 */
export function referenceOrdinal(ctx: Ctx, t: Translation, ref: string, param: string): Promise<number> {
  const m = /^(?:([a-z-]+):)?([0-9a-z]+)\.(\d+)\.(\d+)$/i.exec(ref);
  if (!m) {
    throw new ApiError('invalid_reference', `parameter '${param}' must be <book_slug>.<chapter>.<verse>, e.g. john.3.16`, { parameter: param, value: ref.slice(0, 60) });
  }
  if (m[1] && m[1].toLowerCase() !== t.slug) {
    throw new ApiError('range_translation_mismatch', `parameter '${param}' names translation '${m[1]}', not '${t.slug}'`, { parameter: param, translation: t.slug });
  }
  return verseOrdinal(ctx, t, m[2], m[3], m[4]);
}

export const verseRecord = async (ctx: Ctx, t: Translation, ord: number): Promise<VerseRecord> =>
  JSON.parse((await ctx.release.record(t.ds, ord)).toString('utf8'));

export const versePath = (t: Translation, r: { book: string; chapter: number; verse: number }) =>
  `${V1}/text/${t.slug}/${r.book}/${r.chapter}/${r.verse}`;

/**
 * Verses [from, to] (ordinals, in canon order) as the API returns them: each with its
 * canonical reference and links to its neighbours. The records are read once each,
 * with the one before and the one after for the outer links.
 */
export async function verseItems(ctx: Ctx, t: Translation, from: number, to: number) {
  const lo = Math.max(0, from - 1);
  const hi = Math.min(t.summary.verses - 1, to + 1);
  const records = (await ctx.release.records(t.ds, Array.from({ length: hi - lo + 1 }, (_, i) => lo + i))).map((l) => JSON.parse(l.toString('utf8')) as VerseRecord);
  const at = (o: number) => (o >= lo && o <= hi ? records[o - lo] : undefined);
  const link = (o: number) => {
    const r = at(o);
    return r ? versePath(t, r) : null;
  };
  return Array.from({ length: to - from + 1 }, (_, i) => {
    const ord = from + i;
    const { id, ...rest } = at(ord)!;
    return { reference: id, ...rest, links: { self: link(ord), previous: link(ord - 1), next: link(ord + 1) } };
  });
}

/** One verse as verseItems gives it. */
export const verseItem = async (ctx: Ctx, t: Translation, ord: number) => (await verseItems(ctx, t, ord, ord))[0];

/**
 * Verses anywhere (a search page), each as verseItem gives it, their records and their
 * neighbours' read in one go (Release.records: one read per pack where reads cost, not
 * three per verse).
 */
export async function verseItemsAt(ctx: Ctx, t: Translation, ords: number[]) {
  const need = [...new Set(ords.flatMap((o) => [o - 1, o, o + 1]).filter((o) => o >= 0 && o < t.summary.verses))].sort((a, b) => a - b);
  const lines = await ctx.release.records(t.ds, need);
  const rec = new Map(need.map((o, i) => [o, JSON.parse(lines[i].toString('utf8')) as VerseRecord]));
  const link = (o: number) => {
    const r = rec.get(o);
    return r ? versePath(t, r) : null;
  };
  return ords.map((ord) => {
    const { id, ...rest } = rec.get(ord)!;
    return { reference: id, ...rest, links: { self: link(ord), previous: link(ord - 1), next: link(ord + 1) } };
  });
}

/** Links to the chapters before and after, across book boundaries, in canon order. */
export function chapterLinks(t: Translation, b: BookSummary, chapter: number) {
  const all = t.summary.books.flatMap((x) => x.chapters.map((c) => ({ book: x.slug, chapter: c[0] })));
  const i = all.findIndex((x) => x.book === b.slug && x.chapter === chapter);
  const path = (x?: { book: string; chapter: number }) => (x ? `${V1}/text/${t.slug}/${x.book}/${x.chapter}` : null);
  return { self: path(all[i]), previous: path(all[i - 1]), next: path(all[i + 1]) };
}
