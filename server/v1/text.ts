/**
 * Scripture text: resolve translations, books, chapters, verses and ranges to ordinals
 * of the translation's dataset (built in canon order, so a chapter or range is a
 * contiguous slice), and shape verses with links to their neighbours so clients never
 * build paths themselves.
 */
import { datasetId, type BookSummary, type TranslationSummary, type VerseRecord } from '../../sources/scripture/dataset.ts';
import { TRANSLATION_SLUGS, UNAVAILABLE } from '../../sources/scripture/catalogue.ts';
import { resolveBookName, suggestBooks } from '../../sources/scripture/book-names.ts';
import { ApiError } from '../errors.ts';
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
export function verseOrdinal(ctx: Ctx, t: Translation, bookSlug: string, chapter: string, verse: string): number {
  const b = findBook(t, bookSlug);
  const [c] = findChapter(t, b, chapter);
  const v = positiveInt(verse, 'verse');
  const ord = ctx.release.lookup(t.ds, `${b.slug}.${c}.${v}`);
  if (ord === undefined) throw new ApiError('verse_not_found', `${t.slug} ${b.slug} ${c} has no verse ${v}`, { translation: t.slug, book: b.slug, chapter: c, verse: v });
  return ord;
}

/**
 * A canonical reference `<book_slug>.<chapter>.<verse>`, optionally qualified with a
 * translation (`kjv:gen.1.1`); a qualifier naming another translation is refused.
 */
export function referenceOrdinal(ctx: Ctx, t: Translation, ref: string, param: string): number {
  const m = /^(?:([a-z-]+):)?([0-9a-z]+)\.(\d+)\.(\d+)$/i.exec(ref);
  if (!m) {
    throw new ApiError('invalid_reference', `parameter '${param}' must be <book_slug>.<chapter>.<verse>, e.g. john.3.16`, { parameter: param, value: ref.slice(0, 60) });
  }
  if (m[1] && m[1].toLowerCase() !== t.slug) {
    throw new ApiError('range_translation_mismatch', `parameter '${param}' names translation '${m[1]}', not '${t.slug}'`, { parameter: param, translation: t.slug });
  }
  return verseOrdinal(ctx, t, m[2], m[3], m[4]);
}

export const verseRecord = (ctx: Ctx, t: Translation, ord: number): VerseRecord =>
  JSON.parse(ctx.release.record(t.ds, ord).toString('utf8'));

export const versePath = (t: Translation, r: { book: string; chapter: number; verse: number }) =>
  `${V1}/text/${t.slug}/${r.book}/${r.chapter}/${r.verse}`;

/** A verse as the API returns it: its canonical reference and links to its neighbours. */
export function verseItem(ctx: Ctx, t: Translation, ord: number) {
  const r = verseRecord(ctx, t, ord);
  const neighbour = (o: number) => (o >= 0 && o < t.summary.verses ? versePath(t, verseRecord(ctx, t, o)) : null);
  const { id, ...rest } = r;
  return { reference: id, ...rest, links: { self: versePath(t, r), previous: neighbour(ord - 1), next: neighbour(ord + 1) } };
}

/** Links to the chapters before and after, across book boundaries, in canon order. */
export function chapterLinks(t: Translation, b: BookSummary, chapter: number) {
  const all = t.summary.books.flatMap((x) => x.chapters.map((c) => ({ book: x.slug, chapter: c[0] })));
  const i = all.findIndex((x) => x.book === b.slug && x.chapter === chapter);
  const path = (x?: { book: string; chapter: number }) => (x ? `${V1}/text/${t.slug}/${x.book}/${x.chapter}` : null);
  return { self: path(all[i]), previous: path(all[i - 1]), next: path(all[i + 1]) };
}
