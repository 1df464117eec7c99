/**
 * The /api/v1 route table (scripture text). Like the platform's, it drives the router
 * and the generated OpenAPI catalogue. Text, study and morphology are the preferred
 * namespaces; the direct /{translation}/… routes are compatibility aliases that answer
 * exactly like their /text counterparts.
 */
import { createHash } from 'node:crypto';
import type { SchemaObject } from 'ajv';
import { OPENAPI_V1 } from '../../../pipeline/paths.ts';
import { TRANSLATION_SLUGS, UNAVAILABLE } from '../../../sources/scripture/catalogue.ts';
import { TRANSLATIONS } from '../../../sources/scripture/index.ts';
import { datasetId, type TranslationSummary } from '../../../sources/scripture/dataset.ts';
import type { Handler, Reply } from '../handlers.ts';
import { LIMIT, OFFSET, Q, type ParamSpec } from '../../http/query.ts';
import type { Part } from '../../http/encoding.ts';
import { OPENAPI_DOC_SCHEMA, type Route } from '../routes.ts';
import type { Caller } from '../../state/accounts.ts';
import { keyStatus } from './key-status.ts';
import {
  MAX_RANGE_VERSES, V1, chapterLinks, findBook, findChapter, translation, verseItem, verseItems, verseItemsAt, verseOrdinal, verseRecord, type Translation,
} from './text.ts';
import { REF_EXAMPLES, requestedRange } from './references.ts';
import { phraseFirst, phraseWindow, searchMeta } from '../../search/search-bounds.ts';
import { BOOKS_REPLY, BOOK_REPLY, CHAPTER_REPLY, KEY_REPLY, RANGE_REPLY, SEARCH_REPLY, TRANSLATIONS_REPLY, VERSE_REPLY } from './schemas.ts';
import { SOURCE_COVERAGE_REPLY, SOURCE_TEXTS_REPLY, STUDY_RESPONSE } from './study-schemas.ts';
import type { BookSummary } from '../../../sources/scripture/dataset.ts';
import { STUDY_DATASET, type StudySummary } from '../../../sources/scripture/study/dataset.ts';
import { FILTER_PARAMS, MAX_STUDY_VERSES, absentRoleNote, rangeStudy, readable, sourceCoverage, sourceTexts, studyInfo, verseStudy, type StudyVerse } from './study.ts';

const DATA_POLICY = {
  readable_text: 'Only public-domain translations are served as readable text.',
  generated_morphology: 'Generated or rule-aligned morphology is labelled as such until manually verified (verified_by_service: true).',
};
const NAMESPACES = { preferred: [`${V1}/text`, `${V1}/study`, `${V1}/morphology`], aliases: `${V1}/{translation}/…` };

function envelope(ctx: Parameters<Handler>[0], endpoint: string, data: unknown, t?: Translation, b?: BookSummary, extra: Record<string, unknown> = {}, books?: { slug: string; name: string }[]): Reply {
  const info = t && ctx.release.datasets.get(t.ds);
  const meta = {
    api_version: 'v1', endpoint, data_policy: DATA_POLICY, namespaces: NAMESPACES, ...extra,
    ...(info ? { data_release: info.data_release, sources: info.provenance } : {}),
  };
  return {
    kind: 'json',
    body: JSON.stringify({
      meta,
      ...(t ? { translation: { slug: t.slug, abbreviation: t.summary.abbreviation } } : {}),
      ...(b ? { book: { slug: b.slug, name: b.name } } : {}),
      ...(books ? { books } : {}),
      data,
    }),
  };
}

const verse: (endpoint: string) => Handler = (endpoint) => async (ctx) => {
  const t = translation(ctx, ctx.params.translation);
  const b = findBook(t, ctx.params.book);
  return envelope(ctx, endpoint, await verseItem(ctx, t, await verseOrdinal(ctx, t, b.slug, ctx.params.chapter, ctx.params.verse)), t, b);
};

const chapter: (endpoint: string) => Handler = (endpoint) => async (ctx) => {
  const t = translation(ctx, ctx.params.translation);
  const b = findBook(t, ctx.params.book);
  const [n, first, count] = findChapter(t, b, ctx.params.chapter);
  const verses = await verseItems(ctx, t, first, first + count - 1);
  return envelope(ctx, endpoint, { chapter: n, verses, links: chapterLinks(t, b, n) }, t, b);
};

const wholeBook: (endpoint: string) => Handler = (endpoint) => async (ctx) => {
  const t = translation(ctx, ctx.params.translation);
  const b = findBook(t, ctx.params.book);
  const chapters = await Promise.all(b.chapters.map(async ([n, first, count]) => ({
    chapter: n,
    verses: await verseItems(ctx, t, first, first + count - 1),
    links: chapterLinks(t, b, n),
  })));
  return envelope(ctx, endpoint, { chapters }, t, b, { chapters: chapters.length, verses: chapters.reduce((n, c) => n + c.verses.length, 0) });
};

/** The books a range covers, in order: a range may cross from one book into the next. */
const booksOf = (t: Translation, slugs: string[]) =>
  [...new Set(slugs)].map((s) => t.summary.books.find((b) => b.slug === s)!).map((b) => ({ slug: b.slug, name: b.name }));

const range: (endpoint: string) => Handler = (endpoint) => async (ctx) => {
  const t = translation(ctx, ctx.params.translation);
  const [from, to] = await requestedRange(ctx, t, MAX_RANGE_VERSES, 'text ranges serve');
  const data = await verseItems(ctx, t, from, to);
  const b = findBook(t, data[0].book);
  return envelope(ctx, endpoint, data, t, b, { range: { from: data[0].reference, to: data[data.length - 1].reference, verses: data.length } }, booksOf(t, data.map((v) => v.book)));
};

function translationItem(ctx: Parameters<Handler>[0], slug: string) {
  const info = ctx.release.datasets.get(datasetId(slug));
  if (!info) {
    const reason = UNAVAILABLE[slug]?.reason ?? ctx.release.absent[datasetId(slug)] ?? 'not in the live release';
    return { slug, name: UNAVAILABLE[slug]?.name ?? TRANSLATIONS.find((t) => t.slug === slug)?.name ?? slug, available: false, reason };
  }
  const s = info.summary as TranslationSummary;
  const groups: Record<string, { books: number; verses: number }> = {};
  for (const b of s.books) {
    const g = (groups[b.group] ??= { books: 0, verses: 0 });
    g.books++;
    g.verses += b.chapters.reduce((n, c) => n + c[2], 0);
  }
  return {
    slug, name: s.name, abbreviation: s.abbreviation, language: s.language, available: true, edition: s.edition,
    versification: s.versification, verse_count: s.verses, book_count: s.books.length, canon_groups: groups,
    data_release: info.data_release, sources: info.provenance, links: { books: `${V1}/books?translation=${slug}` },
  };
}

const TRANSLATION_PARAM: ParamSpec = { name: 'translation', required: true, description: 'Translation slug, e.g. kjv.', schema: { type: 'string', minLength: 1, maxLength: 40 } };
const REF = (name: string): ParamSpec => ({
  name, description: `One verse: canonical <book_slug>.<chapter>.<verse> (john.3.16), or written (John 3:16; any book name or abbreviation). Required with the other end unless ref is given.`,
  schema: { type: 'string', minLength: 1, maxLength: 60 },
});
/** `ref=John 3:16-18` (server/v1/references.ts); on the range routes it replaces from/to. */
const WRITTEN = (required: boolean): ParamSpec => ({
  name: 'ref', ...(required ? { required } : {}),
  description: `A reference as people write it: ${REF_EXAMPLES.join(', ')}. Book names, abbreviations and numerals in any form; a lone number in a one-chapter book is a verse.${required ? '' : ' Instead of from and to.'}`,
  schema: { type: 'string', minLength: 1, maxLength: 80 },
});
const BOOKS_LIST: SchemaObject = { type: 'array', description: 'Every book the range covers, in order', items: { type: 'object', required: ['slug', 'name'], properties: { slug: { type: 'string' }, name: { type: 'string' } } } };
const withBooks = (schema: SchemaObject): SchemaObject => ({ ...schema, required: [...schema.required, 'books'], properties: { ...schema.properties, books: BOOKS_LIST } });
const T = { name: 'translation', description: 'Translation slug, e.g. kjv.' };
const B = { name: 'book', description: 'Book slug (lower-case OSIS id), e.g. gen, 1sam, matt, tob.' };
const C = { name: 'chapter', description: 'Chapter number.' };
const V = { name: 'verse', description: 'Verse number.' };

const base = { tag: 'scripture', auth: true } as const;

/**
 * Study and morphology bodies. Study: `translation`, `book`, `readable_text` (the
 * translation's verses) and `source_panels`; morphology: only `source_panels` (and the
 * references in `data`). Not response-cached: a review shows at once.
 */
async function studyReply(ctx: Parameters<Handler>[0], endpoint: string, study: boolean, b: BookSummary, verses: StudyVerse[], extra: Record<string, unknown> = {}): Promise<Reply> {
  const t = translation(ctx, ctx.params.translation);
  const info = ctx.release.datasets.get(t.ds)!;
  const studyDs = ctx.release.datasets.get(STUDY_DATASET)!;
  const filters = Object.fromEntries(FILTER_PARAMS.map((p) => [p.name, ctx.query[p.name] ?? null]));
  const roleNote = absentRoleNote(ctx, studyDs.summary as StudySummary);
  const meta = {
    api_version: 'v1', endpoint, data_policy: DATA_POLICY, namespaces: NAMESPACES, filters, ...(roleNote ? { source_role_note: roleNote } : {}), ...extra,
    data_release: info.data_release, study_release: studyDs.data_release, sources: [...info.provenance, ...studyDs.provenance],
  };
  const data = { references: verses.map((v) => v.reference), panels: verses.reduce((n, v) => n + v.count, 0) };
  const books = extra.range ? { books: booksOf(t, verses.map((v) => v.reference.slice(0, v.reference.indexOf('.')))) } : {};
  const head = study
    ? { meta, translation: { slug: t.slug, abbreviation: t.summary.abbreviation }, book: { slug: b.slug, name: b.name }, ...books, data, readable_text: await readable(ctx, t, verses) }
    : { meta, ...books, data };
  // Panels arrive serialized as UTF-8 (cached per verse); spliced in as bytes rather than
  // parsed and re-serialized, and handed on as parts (http/encoding.ts compresses them
  // without joining them into a 4 MB Buffer per request).
  const opening = Buffer.from(`${JSON.stringify(head).slice(0, -1)},"source_panels":[`);
  const parts: Part[] = [opening];
  // The ETag hashes the head and each spliced fragment's digest: the same identity as
  // hashing the body (the fragments are the rest of it), for ~1/1000 of the bytes.
  const etag = createHash('sha1').update(opening);
  for (const v of verses) {
    if (!v.count) continue;
    if (parts.length > 1) parts.push(COMMA);
    parts.push(...v.panels);
    etag.update(v.digest);
  }
  parts.push(CLOSE);
  return { kind: 'json', body: parts, etag: `s${etag.digest('base64url')}` };
}
const COMMA = Buffer.from(',');
const CLOSE = Buffer.from(']}');
const studyRoute = (ns: 'study' | 'morphology', what: string): Route[] => {
  const study = ns === 'study';
  const handler: Handler = async (ctx) => {
    const { b, verses } = await rangeStudy(ctx, translation(ctx, ctx.params.translation));
    return studyReply(ctx, `${ns}.range`, study, b, verses, { range: { from: verses[0].reference, to: verses[verses.length - 1].reference, verses: verses.length } });
  };
  return [
    { ...base, dataset: STUDY_DATASET, cache: false, policy: 'changing', cost: 'range', path: `${V1}/${ns}/{translation}/range`, operationId: `${ns}Range`,
      summary: `${what} for a verse range (at most ${MAX_STUDY_VERSES} verses)`, pathParams: [T], query: [REF('from'), REF('to'), WRITTEN(false), ...FILTER_PARAMS], response: withBooks(STUDY_RESPONSE), handler },
    { ...base, dataset: STUDY_DATASET, cache: false, policy: 'changing', cost: 'range', path: `${V1}/${ns}/{translation}`, operationId: `${ns}Reference`,
      summary: `${what} for a written reference (ref=John 3:16-18; at most ${MAX_STUDY_VERSES} verses)`, pathParams: [T], query: [WRITTEN(true), ...FILTER_PARAMS], response: withBooks(STUDY_RESPONSE), handler },
    { ...base, dataset: STUDY_DATASET, cache: false, policy: 'changing', path: `${V1}/${ns}/{translation}/{book}/{chapter}/{verse}`, operationId: `${ns}Verse`,
      summary: `${what} for one verse`, pathParams: [T, B, C, V], query: FILTER_PARAMS, response: STUDY_RESPONSE,
      handler: async (ctx) => {
        const { b, verses } = await verseStudy(ctx, translation(ctx, ctx.params.translation));
        return studyReply(ctx, `${ns}.verse`, study, b, verses);
      } },
  ];
};
const studyMeta = (ctx: Parameters<Handler>[0], endpoint: string) => {
  const { info } = studyInfo(ctx);
  return { api_version: 'v1', endpoint, data_policy: DATA_POLICY, namespaces: NAMESPACES, data_release: info.data_release, sources: info.provenance };
};
const textRoutes = (prefix: string, ns: string, summary: string): Route[] => [
  { ...base, cost: 'range', path: `${prefix}/range`, operationId: `${ns}Range`, summary: `${summary}: verse range (at most ${MAX_RANGE_VERSES} verses)`, pathParams: [T], query: [REF('from'), REF('to'), WRITTEN(false)], response: withBooks(RANGE_REPLY), handler: range(`${ns}.range`) },
  // /text/{translation}?ref=…, the range under a written reference; not for the alias
  // prefix, where /api/v1/{translation} would shadow mistyped v1 paths.
  ...(ns === 'text' ? [{ ...base, cost: 'range' as const, path: prefix, operationId: `${ns}Reference`, summary: `${summary}: a written reference (ref=John 3:16-18; at most ${MAX_RANGE_VERSES} verses)`, pathParams: [T], query: [WRITTEN(true)], response: withBooks(RANGE_REPLY), handler: range(`${ns}.reference`) }] : []),
  { ...base, cost: 'range', path: `${prefix}/{book}`, operationId: `${ns}Book`, summary: `${summary}: whole book, by chapter`, pathParams: [T, B], query: [], response: BOOK_REPLY, handler: wholeBook(`${ns}.book`) },
  { ...base, path: `${prefix}/{book}/{chapter}`, operationId: `${ns}Chapter`, summary: `${summary}: one chapter`, pathParams: [T, B, C], query: [], response: CHAPTER_REPLY, handler: chapter(`${ns}.chapter`) },
  { ...base, path: `${prefix}/{book}/{chapter}/{verse}`, operationId: `${ns}Verse`, summary: `${summary}: one verse`, pathParams: [T, B, C, V], query: [], response: VERSE_REPLY, handler: verse(`${ns}.verse`) },
];

export const V1_ROUTES: Route[] = [
  { ...base, auth: false, path: `${V1}/openapi`, operationId: 'v1OpenApi', summary: 'This OpenAPI 3.1 catalogue of the v1 surface (no key, not counted)', pathParams: [], query: [], response: OPENAPI_DOC_SCHEMA, handler: () => ({ kind: 'file', path: OPENAPI_V1 }) },
  {
    ...base, path: `${V1}/key`, operationId: 'v1Key', summary: 'Tier, monthly quota, usage, remaining calls and last use of the calling key (never counted; answers when the month is used up)', pathParams: [], query: [], cache: false, policy: 'account', billed: false,
    response: KEY_REPLY,
    handler: (ctx) => envelope(ctx, 'key', keyStatus(ctx.key as Caller, ctx.usage ?? { used: 0 })),
  },
  {
    ...base, path: `${V1}/translations`, operationId: 'v1Translations', summary: 'Translations, available or not (with the reason)', pathParams: [], query: [], response: TRANSLATIONS_REPLY,
    handler: (ctx) => envelope(ctx, 'translations', TRANSLATION_SLUGS.map((s) => translationItem(ctx, s))),
  },
  {
    ...base, path: `${V1}/books`, operationId: 'v1Books', summary: 'Books of a translation with chapter and verse counts', pathParams: [], query: [TRANSLATION_PARAM], response: BOOKS_REPLY,
    handler: (ctx) => {
      const t = translation(ctx, String(ctx.query.translation));
      const data = t.summary.books.map((b) => ({
        slug: b.slug, osis: b.osis, name: b.name, group: b.group, chapters: b.chapters.length,
        verses: b.chapters.reduce((n, c) => n + c[2], 0), links: { book: `${V1}/text/${t.slug}/${b.slug}` },
      }));
      return envelope(ctx, 'books', data, t);
    },
  },
  {
    ...base, cost: 'search', path: `${V1}/search`, operationId: 'v1Search', summary: 'Ranked full-text search of one translation', pathParams: [], query: [TRANSLATION_PARAM, Q, LIMIT, OFFSET], response: SEARCH_REPLY,
    handler: async (ctx) => {
      const t = translation(ctx, String(ctx.query.translation));
      const { limit, offset } = ctx.query as { limit: number; offset: number };
      const found = await ctx.release.searchAsync(t.ds, String(ctx.query.q));
      // Phrase matches first (In the beginning → Gen 1:1), among a bounded window of hits
      // (their texts read first: phraseFirst itself reads nothing).
      const window = phraseWindow(found.ordinals, String(ctx.query.q));
      const texts = new Map((await ctx.release.records(t.ds, window)).map((l, i) => [window[i], (JSON.parse(l.toString('utf8')) as { text: string }).text]));
      const hits = phraseFirst(found.ordinals, (o) => texts.get(o)!, String(ctx.query.q));
      const data = await verseItemsAt(ctx, t, hits.slice(offset, offset + limit));
      const next = offset + limit < hits.length
        ? `${V1}/search?${new URLSearchParams({ translation: t.slug, q: String(ctx.query.q), limit: String(limit), offset: String(offset + limit) })}`
        : null;
      return envelope(ctx, 'search', data, t, undefined, { q: ctx.query.q, total: hits.length, limit, offset, next, order: 'relevance', ...searchMeta(found) });
    },
  },
  ...studyRoute('study', 'Readable text plus source panels with word tokens'),
  ...studyRoute('morphology', 'Source panels and tokens only'),
  {
    ...base, dataset: STUDY_DATASET, path: `${V1}/source-texts`, operationId: 'v1SourceTexts', summary: 'Every study layer, present or absent (with the reason)', pathParams: [], query: [], response: SOURCE_TEXTS_REPLY,
    handler: (ctx) => ({ kind: 'json', body: JSON.stringify({ meta: studyMeta(ctx, 'source-texts'), data: sourceTexts(studyInfo(ctx).summary) }) }),
  },
  {
    ...base, dataset: STUDY_DATASET, cache: false, policy: 'changing', path: `${V1}/source-coverage`, operationId: 'v1SourceCoverage', summary: 'Coverage, token status buckets, review maturity and phase-5 (review) state per layer and in total', pathParams: [], query: [], response: SOURCE_COVERAGE_REPLY,
    handler: async (ctx) => ({ kind: 'json', body: JSON.stringify({ meta: studyMeta(ctx, 'source-coverage'), data: sourceCoverage(await ctx.reviews(), studyInfo(ctx).summary) }) }),
  },
  ...textRoutes(`${V1}/text/{translation}`, 'text', 'Text'),
  ...textRoutes(`${V1}/{translation}`, 'alias', 'Compatibility alias'),
];
