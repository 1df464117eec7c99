/**
 * References as people write them (issue 13): `ref=John 3:16`, `John 3:16-18`,
 * `Gen 1:1-2:3`, `1 Cor 13`, `Gen 50:26-Exod 1:3`, and the `from`/`to` of the range
 * routes, resolved to a contiguous slice of a translation's verse ordinals. One parser
 * for text, study and morphology, so the three namespaces read a reference alike.
 *
 * Forms (book names as in findBook; `:` or `.` between chapter and verse; `-`, `–` or
 * `—` for a range):
 *   Book C:V          one verse            Book C            the whole chapter
 *   Book C:V-V2       verses in a chapter  Book C-C2         whole chapters C to C2
 *   Book C:V-C2:V2    across chapters      Book C:V-Book2 C2:V2   across books
 * In a book of one chapter (Obadiah, Philemon, 2–3 John, Jude) a lone number after the
 * book is a verse (`Jude 3` = Jude 1:3, `Jude 1-3` verses 1 to 3), as in print; `Jude 1`
 * alone is the whole chapter.
 * A bare book (`Genesis`) is not a reference here: whole books have their own route.
 */
import type { BookSummary } from '../../../sources/scripture/dataset.ts';
import { ApiError } from '../../http/errors.ts';
import type { Ctx } from '../handlers.ts';
import { findBook, referenceOrdinal, verseOrdinal, type Translation } from './text.ts';

export const REF_EXAMPLES = ['John 3:16', 'John 3:16-18', 'Gen 1:1-2:3', '1 Cor 13', 'Jude 3', 'Gen 50:26-Exod 1:3'];

/** One end of a reference as written: a book name and up to two numbers. */
interface Written { book?: string; first?: number; second?: number }

const BOOK = String.raw`((?:[1-4]|first|second|third|fourth)?[\s.-]*[a-z][a-z\s.'’-]*?)`;
const NUMS = String.raw`(?:\s*(\d{1,4})(?:\s*[:.]\s*(\d{1,4}))?)?`;
const START = new RegExp(`^${BOOK}${NUMS}\\s*(?:[-–—]\\s*(.*?))?\\s*$`, 'i');
const END_NUMS = /^(\d{1,4})(?:\s*[:.]\s*(\d{1,4}))?$/;

/** How a reference was read, for the 400 that explains a failure. */
function read(start?: Written, end?: Written | string) {
  return { book: start?.book ?? null, chapter: start?.first ?? null, verse: start?.second ?? null, end: end ?? null };
}

export function parseReference(raw: string, param = 'ref'): { start: Written; end?: Written } {
  const s = raw.trim().replace(/\s+/g, ' ');
  const bad = (why: string, how: ReturnType<typeof read>) =>
    new ApiError('invalid_reference', `parameter '${param}': ${why}; write e.g. ${REF_EXAMPLES.slice(0, 4).join(', ')}`, {
      parameter: param, value: raw.slice(0, 80), read: how, examples: REF_EXAMPLES,
    });
  const m = START.exec(s);
  if (!m) {
    const nums = s.match(/\d+/g)?.map(Number) ?? [];
    const book = /^[^\d]*[a-z][^\d]*/i.exec(s.replace(/^[1-4]\s*/, ''))?.[0].trim();
    throw bad('could not be read as <book> <chapter>[:<verse>][-…]', { ...read({ book, first: nums[0], second: nums[1] }), end: null });
  }
  const start: Written = { book: m[1].trim(), first: m[2] ? Number(m[2]) : undefined, second: m[3] ? Number(m[3]) : undefined };
  if (start.first === undefined) throw bad('a chapter number is missing (a whole book is /text/{translation}/{book})', read(start));
  if (m[4] === undefined) return { start };
  const e = m[4];
  const n = END_NUMS.exec(e);
  if (n) return { start, end: { first: Number(n[1]), second: n[2] ? Number(n[2]) : undefined } };
  const other = START.exec(e);
  if (!other || other[4] !== undefined || !other[2]) throw bad(`the end of the range '${e.slice(0, 40)}' could not be read`, read(start, e.slice(0, 40)));
  return { start, end: { book: other[1].trim(), first: Number(other[2]), second: other[3] ? Number(other[3]) : undefined } };
}

/** First and last ordinal a written reference end covers (a verse, or a whole chapter). */
async function span(ctx: Ctx, t: Translation, b: BookSummary, first: number, second: number | undefined): Promise<[number, number]> {
  const oneChapter = b.chapters.length === 1;
  const [chapter, verse] = second !== undefined ? [first, second] : oneChapter && first > 1 ? [b.chapters[0][0], first] : [first, undefined];
  if (verse !== undefined) {
    const o = await verseOrdinal(ctx, t, b.slug, String(chapter), String(verse));
    return [o, o];
  }
  const c = b.chapters.find((x) => x[0] === chapter);
  if (!c) throw new ApiError('chapter_not_found', `${t.slug} ${b.slug} has no chapter ${chapter}`, { translation: t.slug, book: b.slug, chapter, chapters: b.chapters.length });
  return [c[1], c[1] + c[2] - 1];
}

/** The ordinals a human reference covers, first to last (order is checked by the caller). */
export async function referenceSpan(ctx: Ctx, t: Translation, raw: string, param = 'ref'): Promise<[number, number]> {
  const { start, end } = parseReference(raw, param);
  const b = findBook(t, start.book!);
  const [from, startEnd] = await span(ctx, t, b, start.first!, start.second);
  if (!end) return [from, startEnd];
  if (end.book !== undefined) return [from, (await span(ctx, t, findBook(t, end.book), end.first!, end.second))[1]];
  // `John 3:16-18` (a verse, then a verse of that chapter) vs `John 3-4` (chapters);
  // in a one-chapter book `Jude 3-5` and `Jude 1-3` are verses.
  const verseMode = start.second !== undefined || b.chapters.length === 1;
  if (end.second === undefined && verseMode) {
    const chapter = start.second !== undefined ? start.first! : b.chapters[0][0];
    return [from, (await span(ctx, t, b, chapter, end.first))[1]];
  }
  return [from, (await span(ctx, t, b, end.first!, end.second))[1]];
}

/** One verse given in any written form (`from=Genesis 1:1`); a range there is refused. */
export async function writtenVerse(ctx: Ctx, t: Translation, raw: string, param: string): Promise<number> {
  const [a, z] = await referenceSpan(ctx, t, raw, param);
  if (a !== z) {
    throw new ApiError('invalid_reference', `parameter '${param}' must name one verse, e.g. john.3.16 or John 3:16 (use ref= for a passage)`, { parameter: param, value: raw.slice(0, 80) });
  }
  return a;
}

/** A range end: canonical (`john.3.16`, `kjv:gen.1.1`, any book name: `genesis.1.1`) or written (`Genesis 1:1`). */
export function rangeEnd(ctx: Ctx, t: Translation, raw: string, param: string): Promise<number> {
  return /^(?:[a-z][a-z-]*:)?[0-9a-z]+\.\d+\.\d+$/i.test(raw) ? referenceOrdinal(ctx, t, raw, param) : writtenVerse(ctx, t, raw, param);
}

/**
 * The verse ordinals a range request asks for: `ref=` or `from`+`to` (not both), in
 * order, at most `max` verses (`what` names whose limit it is in the message).
 */
export async function requestedRange(ctx: Ctx, t: Translation, max: number, what: string): Promise<[number, number]> {
  const { ref, from: f, to: z } = ctx.query;
  let from: number;
  let to: number;
  if (ref !== undefined) {
    if (f !== undefined || z !== undefined) {
      throw new ApiError('invalid_parameter', "give either 'ref' or 'from' and 'to', not both", { parameter: f !== undefined ? 'from' : 'to' });
    }
    [from, to] = await referenceSpan(ctx, t, String(ref), 'ref');
  } else {
    if (f === undefined) throw new ApiError('missing_parameter', "parameter 'from' is required (or give 'ref')", { parameter: 'from' });
    if (z === undefined) throw new ApiError('missing_parameter', "parameter 'to' is required (or give 'ref')", { parameter: 'to' });
    from = await rangeEnd(ctx, t, String(f), 'from');
    to = await rangeEnd(ctx, t, String(z), 'to');
  }
  if (from > to) {
    const shown = ref !== undefined ? { ref } : { from: f, to: z };
    throw new ApiError('range_out_of_order', `the range's start comes after its end in ${t.slug}`, shown);
  }
  if (to - from + 1 > max) {
    throw new ApiError('range_too_long', `the range has ${to - from + 1} verses; ${what} at most ${max}`, { verses: to - from + 1, max });
  }
  return [from, to];
}
