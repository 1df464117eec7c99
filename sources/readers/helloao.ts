/**
 * The Free Use Bible API's JSON (HelloAO, https://bible.helloao.org/docs/): a translation's
 * `books.json` ({translation, books: [{id, order, numberOfChapters, totalNumberOfVerses, …}]})
 * and one file per chapter, `<BOOK>/<n>.json`: {translation, book, chapter: {number,
 * content, footnotes}, numberOfVerses, links…}. `chapter.content` is a list of
 *
 * - `{type: "verse", number, content: [...]}`, whose parts are a string, `{text, poem?}`
 *   (a poetry line, `poem` its indent), `{lineBreak: true}` or `{noteId}` (a footnote's
 *   place: the note itself is in `chapter.footnotes`);
 * - `{type: "heading", content: [string]}` (e.g. Psalm 119's ALEPH) and
 *   `{type: "hebrew_subtitle", content: [...]}` (a psalm's title), outside any verse;
 * - `{type: "line_break"}` between blocks.
 *
 * A verse's text is its string and text parts joined by single spaces (a line break is a
 * space: the line structure is poetry layout); headings, psalm titles and footnotes are
 * left out, as for the other translations. A verse whose only part is a footnote (the
 * RV's Acts 8:37, "Some ancient authorities insert…") is numbered with text "": the
 * edition numbers it and puts the words in the margin. Anything else, a verse number out
 * of order, or a count that differs from the file's own `numberOfVerses`, fails naming
 * the file.
 */

export interface HelloAoBook { id: string; order: number; chapters: number; verses: number }
export interface HelloAoChapter { book: string; number: number; verses: { number: number; text: string }[]; headings: number }

const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
function fail(file: string, field: string, value: unknown): never {
  const shown = JSON.stringify(value);
  throw new Error(`${file}: field ${field}: unexpected ${shown === undefined ? 'undefined' : shown.slice(0, 200)}`);
}
const count = (file: string, field: string, v: unknown) => (Number.isSafeInteger(v) && (v as number) > 0 ? (v as number) : fail(file, field, v));

/** books.json: the books in the translation's order, with their chapter and verse counts. */
export function readHelloAoBooks(body: unknown, file: string, translation: string): HelloAoBook[] {
  if (!isObj(body) || !isObj(body.translation)) return fail(file, 'translation', isObj(body) ? body.translation : body);
  if (body.translation.id !== translation) fail(file, 'translation.id', body.translation.id);
  const books = Array.isArray(body.books) ? body.books : fail(file, 'books', body.books);
  const out = books.map((b, i): HelloAoBook => {
    const at = `books[${i}]`;
    if (!isObj(b) || typeof b.id !== 'string' || !/^[1-4A-Z][A-Z0-9]{2}$/.test(b.id)) return fail(file, `${at}.id`, isObj(b) ? b.id : b);
    return { id: b.id, order: count(file, `${at}.order`, b.order), chapters: count(file, `${at}.numberOfChapters`, b.numberOfChapters), verses: count(file, `${at}.totalNumberOfVerses`, b.totalNumberOfVerses) };
  });
  out.forEach((b, i) => b.order !== i + 1 && fail(file, `books[${i}].order`, b.order));
  return out;
}

/** The text of one verse's parts. */
function verseText(parts: unknown, at: string): string {
  if (!Array.isArray(parts)) return fail(at, 'content', parts);
  const text: string[] = [];
  parts.forEach((p, i) => {
    if (typeof p === 'string') text.push(p);
    else if (isObj(p) && typeof p.text === 'string' && Object.keys(p).every((k) => k === 'text' || k === 'poem')) text.push(p.text);
    else if (isObj(p) && p.lineBreak === true && Object.keys(p).length === 1) return;
    else if (isObj(p) && Number.isSafeInteger(p.noteId) && Object.keys(p).length === 1) return;
    else fail(at, `content[${i}]`, p);
  });
  return text.join(' ').replace(/\s+/g, ' ').trim();
}

/** One chapter file: its verses in order, and how many heading blocks it left out. */
export function readHelloAoChapter(body: unknown, file: string, translation: string): HelloAoChapter {
  if (!isObj(body)) return fail(file, '(document)', body);
  if (!isObj(body.translation) || body.translation.id !== translation) fail(file, 'translation.id', isObj(body.translation) ? body.translation.id : body.translation);
  const book = isObj(body.book) && typeof body.book.id === 'string' ? body.book.id : fail(file, 'book.id', body.book);
  const chapter = isObj(body.chapter) ? body.chapter : fail(file, 'chapter', body.chapter);
  const number = count(file, 'chapter.number', chapter.number);
  const content = Array.isArray(chapter.content) ? chapter.content : fail(file, 'chapter.content', chapter.content);
  const verses: HelloAoChapter['verses'] = [];
  let headings = 0;
  content.forEach((block, i) => {
    const at = `${file} chapter.content[${i}]`;
    if (!isObj(block)) return fail(at, '(block)', block);
    if (block.type === 'verse') {
      const n = count(at, 'number', block.number);
      if (n !== verses.length + 1) fail(at, `number (after verse ${verses.length})`, n);
      verses.push({ number: n, text: verseText(block.content, `${at} (verse ${n})`) });
    } else if (block.type === 'heading' || block.type === 'hebrew_subtitle') headings++;
    else if (block.type !== 'line_break') fail(at, 'type', block.type);
  });
  if (body.numberOfVerses !== verses.length) fail(file, `numberOfVerses (the file holds ${verses.length})`, body.numberOfVerses);
  return { book, number, verses, headings };
}
