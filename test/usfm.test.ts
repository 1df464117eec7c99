import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { USFM_TO_OSIS, readUsfm } from '../sources/readers/usfm.ts';
import { BOOK_BY_OSIS } from '../sources/scripture/books.ts';
import type { TranslationSource, Verse } from '../sources/scripture/contract.ts';
import { translationDataset } from '../sources/scripture/dataset.ts';
import {
  BRENTON_BASE, BRENTON_ORDER, BRENTON_PINS, WEB_C_BASE, WEB_C_ORDER, WEB_C_PINS, brenton, readEdition, webCatholic,
} from '../sources/scripture/ebible.ts';
import { MIRROR_ROOT, NEEDS_MIRROR } from './helpers.ts';

const fixture = (name: string) => readFileSync(new URL(`./fixtures/usfm/${name}`, import.meta.url), 'utf8');
const read = (name: string) => readUsfm(name, fixture(name))!;
const ref = (v: Verse) => `${v.book} ${v.chapter}:${v.verse}`;
const find = (verses: Verse[], r: string) => verses.find((v) => ref(v) === r);
/** A one-chapter book from a few USFM lines. */
const tiny = (body: string, code = 'GEN') => readUsfm('tiny.usfm', `\\id ${code} test\n\\c 1\n${body}\n`);

describe('USFM reader: WEB-style Strong\'s, notes, headings and words of Jesus', () => {
  const john = read('73-JHNtest.usfm');
  it('maps the book and keeps every verse in order', () => {
    expect([john.code, john.osis]).toEqual(['JHN', 'John']);
    expect(john.verses.map(ref)).toEqual(['John 3:16', 'John 3:17', 'John 3:18', 'John 3:19', 'John 3:20']);
  });
  it('keeps \\wj, \\+w, \\+nd, \\add and \\bk text; drops footnotes, cross references and headings', () => {
    expect(find(john.verses, 'John 3:16')!.text).toBe(
      '“For God so loved the world, that he gave his only born Son, that whoever believes in him should not perish, but have eternal life.',
    );
    expect(find(john.verses, 'John 3:17')!.text).toBe(
      'For God didn’t send his Son into the world to judge the world, but that the world should be saved through him.',
    );
    expect(john.verses.map((v) => v.text).join(' ')).not.toMatch(/Nicodemus|Romans|Psalm 2|μονογενη|\\|\|/);
  });
  it('a footnote glued between two words still separates them', () => {
    expect(find(john.verses, 'John 3:18')!.text).toBe('He said these things in the book of Moses.');
  });
  it("collects Strong's in word order, normalised, whatever other attributes the word has", () => {
    expect(find(john.verses, 'John 3:16')!.strongs).toEqual(['G1063', 'G2316', 'G25', 'G3588', 'G2889', 'G3439', 'G2443']);
    expect(find(john.verses, 'John 3:20')!.strongs).toEqual(['G2316', 'G2316a']);
    expect(find(john.verses, 'John 3:18')!.strongs).toBeUndefined();
  });
  it('a verse whose only content is a footnote is kept, empty', () => {
    expect(find(john.verses, 'John 3:19')).toEqual({ book: 'John', chapter: 3, verse: 19, text: '' });
  });
});

describe('USFM reader: \\d titles and labels', () => {
  const ps = read('20-PSAtest.usfm');
  it('a \\d before the first verse is verse 0, without its footnote', () => {
    expect(find(ps.verses, 'Ps 3:0')).toEqual({
      book: 'Ps', chapter: 3, verse: 0, text: 'A Psalm by David, when he fled from Absalom his son.', strongs: ['H1732'],
    });
  });
  it('poetry lines flow into one verse; \\qs Selah is kept; \\cl and \\ms are dropped', () => {
    expect(find(ps.verses, 'Ps 3:1')!.text).toBe('Yahweh, how my adversaries have increased! Many are those who rise up against me.');
    expect(find(ps.verses, 'Ps 3:2')!.text).toBe('Many there are who say of my soul, “There is no help for him in God.” Selah.');
  });
  it('several \\d in a chapter (Psalm 119 acrostic) are labels: all dropped, each noted', () => {
    expect(ps.verses.filter((v) => v.chapter === 119).map(ref)).toEqual(['Ps 119:1', 'Ps 119:2']);
    expect(ps.notes).toEqual(["Ps 119: \\d label 'BETH' after verse 1 dropped", "Ps 119: \\d label 'ALEPH' before verse 1 dropped"]);
  });
  it('an empty \\d followed by a verse (Brenton) leaves the title in that verse', () => {
    const esg = read('43-ESGtest.usfm');
    expect(find(esg.verses, 'EsthGr 4:1')!.text).toBe('A Song of Mardochæus. But Mardochæus having perceived what was done, rent his garments.');
    expect(find(esg.verses, 'EsthGr 4:0')).toBeUndefined();
  });
});

describe('USFM reader: ranges, lettered segments, introductions', () => {
  const sir = read('46-SIRtest.usfm');
  const esg = read('43-ESGtest.usfm');
  it('drops the book introduction (\\ip, \\is1) and keeps text before verse 1 as verse 0', () => {
    expect(sir.verses.map((v) => v.text).join(' ')).not.toMatch(/Deuterocanonical|WHEREAS/);
    expect(find(sir.verses, 'Sir 51:0')!.text).toBe('A Prayer of Jesus the son of Sirach.');
    expect(sir.notes).toContain('Sir 51:0 is text before verse 1 (in \\p)');
  });
  it('a range puts its text on the first number and gives the others empty verses', () => {
    expect(sir.verses.filter((v) => v.chapter === 11).map((v) => [v.verse, v.text])).toEqual([
      [14, 'Good things and bad, life and death, poverty and riches, are from the Lord.'],
      [15, ''],
      [16, ''],
      [17, 'The Lord’s gift remains with the godly.'],
    ]);
    expect(sir.notes).toContain('Sir 11:15-16 is one verse in the source: text on 15, the rest empty');
  });
  it('lettered segments join their verse; a segment with no plain verse starts it', () => {
    expect(esg.verses.map(ref)).toEqual(['EsthGr 1:1', 'EsthGr 1:2', 'EsthGr 4:1', 'EsthGr 4:2', 'EsthGr 4:3']);
    expect(find(esg.verses, 'EsthGr 1:1')!.text).toBe(
      '[In the second year of the reign of Artaxerxes the great king, on the first day of Nisan, Mardochæus ' +
        'a Jew dwelling in the city Susa, saw a vision. Now he was of the captivity.',
    );
    expect(find(esg.verses, 'EsthGr 4:2')!.text).toBe('And he came to the king\'s gate, and stood. For it was not lawful for him to enter into the palace.');
    expect(esg.notes).toEqual([
      'EsthGr 1:1 holds lettered segments 1b 1c',
      'EsthGr 4:2 starts with segment 2a (there is no plain 2)',
      'EsthGr 4:2 holds lettered segments 2b',
    ]);
  });
});

describe('USFM book codes', () => {
  it('maps to OSIS ids that books.ts knows', () => {
    for (const osis of Object.values(USFM_TO_OSIS)) expect(BOOK_BY_OSIS.has(osis), osis).toBe(true);
    const pairs = Object.fromEntries(['GEN', 'EXO', 'MAT', 'TOB', 'JDT', 'ESG', 'WIS', 'SIR', 'BAR', 'LJE', 'SUS', 'BEL', '1MA', '2MA',
      '3MA', '4MA', '1ES', 'MAN', 'DAG', 'PS2'].map((c) => [c, USFM_TO_OSIS[c]]));
    expect(pairs).toEqual({
      GEN: 'Gen', EXO: 'Exod', MAT: 'Matt', TOB: 'Tob', JDT: 'Jdt', ESG: 'EsthGr', WIS: 'Wis', SIR: 'Sir', BAR: 'Bar', LJE: 'EpJer',
      SUS: 'Sus', BEL: 'Bel', '1MA': '1Macc', '2MA': '2Macc', '3MA': '3Macc', '4MA': '4Macc', '1ES': '1Esd', MAN: 'PrMan',
      DAG: 'Dan', PS2: 'AddPs',
    });
    expect(tiny('\\p\n\\v 1 A man lived in Babylon.', 'DAG')!.verses[0]).toEqual({ book: 'Dan', chapter: 1, verse: 1, text: 'A man lived in Babylon.' });
  });
  it('ignores non-scripture books', () => {
    for (const code of ['FRT', 'INT', 'GLO', 'XXA', 'XXC', 'BAK', 'OTH']) expect(tiny('\\p\n\\v 1 x', code)).toBeNull();
  });
});

describe('USFM reader: refuses what it would lose or misread', () => {
  const cases: [string, string, RegExp][] = [
    ['unknown book code', '\\id ZZZ test\n\\c 1\n\\p\n\\v 1 x', /^bad\.usfm: unknown USFM book code ZZZ$/],
    ['no \\id', '\\c 1\n\\p\n\\v 1 x', /bad\.usfm: does not start with \\id/],
    ['unknown marker', '\\id GEN\n\\c 1\n\\p\n\\v 1 x \\zfoo y\\zfoo*', /bad\.usfm: GEN chapter 1, in \\p: unknown marker \\zfoo/],
    ['footnote left open', '\\id GEN\n\\c 1\n\\p\n\\v 1 x \\f + \\ft note\n\\v 2 y', /chapter 1, in \\p: \\f not closed before \\v/],
    ['character marker left open', '\\id GEN\n\\c 1\n\\p\n\\v 1 \\wj x\n\\v 2 y', /chapter 1, in \\p: \\wj not closed before \\v/],
    ['close without open', '\\id GEN\n\\c 1\n\\p\n\\v 1 x\\add*', /\\add\* closes nothing open/],
    ['verse inside a heading', '\\id GEN\n\\c 1\n\\s1 Creation \\v 1 In the beginning', /chapter 1, in \\s1: \\v inside a dropped paragraph/],
    ['text between a title and verse 1', '\\id PSA\n\\c 3\n\\d Title\n\\p stray\n\\v 1 x', /chapter 3, in \\p: text outside a verse: 'stray'/],
    ['verse twice', '\\id GEN\n\\c 1\n\\p\n\\v 1 x\n\\v 1 y', /chapter 1, in \\p: verse 1 appears twice/],
    ['chapter twice', '\\id GEN\n\\c 1\n\\p\n\\v 1 x\n\\c 1\n\\p\n\\v 2 y', /GEN chapter 1 appears twice/],
    ['segment out of place', '\\id GEN\n\\c 1\n\\p\n\\v 3 x\n\\v 4 y\n\\v 3a z', /segment 3a does not follow verse 3/],
    ['bad verse number', '\\id GEN\n\\c 1\n\\p\n\\v 2-1 x', /verse '2-1' not understood/],
    ["bad Strong's", '\\id GEN\n\\c 1\n\\p\n\\v 1 \\w In|strong="X12"\\w*', /Strong's number 'X12' not understood/],
    ['introduction inside the text', '\\id GEN\n\\c 1\n\\ip About\n\\p\n\\v 1 x', /introduction paragraph \\ip inside the text/],
    ['an unterminated note', '\\id GEN\n\\c 1\n\\p\n\\v 1 x\\f + \\ft n', /\\f not closed at end of file/],
  ];
  for (const [what, usfm, error] of cases) it(what, () => expect(() => readUsfm('bad.usfm', usfm)).toThrow(error));
});

// ---- The real eBible files, from the shared upstream mirror (as `npm run fetch` would cache them).
const MIRROR = `${MIRROR_ROOT ?? '/nonexistent'}/`;
const rawOf = (t: TranslationSource) =>
  Object.fromEntries(
    Object.entries(t.inputs).map(([name, spec]) => {
      if (spec.kind !== 'url') throw new Error(`${name}: not a url input`);
      const buf = readFileSync(MIRROR + spec.url.replace(/^https:\/\//, ''));
      expect(createHash('sha256').update(buf).digest('hex'), name).toBe(spec.sha256);
      return [name, buf.toString('utf8')];
    }),
  );
const markers = (raw: Record<string, string>) => Object.values(raw).reduce((n, s) => n + (s.match(/\\v /g)?.length ?? 0), 0);
const groups = (verses: Verse[]) => {
  const out: Record<string, number> = {};
  for (const v of verses) out[BOOK_BY_OSIS.get(v.book)!.group] = (out[BOOK_BY_OSIS.get(v.book)!.group] ?? 0) + 1;
  return out;
};
const booksOf = (verses: Verse[]) => [...new Set(verses.map((v) => v.book))];

describe.skipIf(!existsSync(MIRROR))(`real eBible files ${NEEDS_MIRROR}`, () => {
  it('web-catholic: 73 books in Catholic order, every \\v marker, titles as verse 0, 41 empty', () => {
    const raw = rawOf(webCatholic);
    const started = performance.now();
    const { verses, notes } = readEdition('web-catholic', WEB_C_BASE, WEB_C_PINS, WEB_C_ORDER, raw);
    console.log(`web-catholic: ${verses.length} verses read in ${Math.round(performance.now() - started)} ms`);
    expect(booksOf(verses)).toEqual(WEB_C_ORDER.map((c) => USFM_TO_OSIS[c]));
    expect(markers(raw)).toBe(35_408);
    // 35,408 markers + 12 empty numbers of the 5 Sirach ranges + 117 verse-0 titles (116 Psalms, Sir 51).
    expect(verses.length).toBe(35_537);
    expect(verses.filter((v) => v.verse === 0)).toHaveLength(117);
    expect(verses.filter((v) => !v.text)).toHaveLength(41); // 29 empty markers (as upstream counts) + 12
    expect(groups(verses)).toEqual({ old: 23_267, apocrypha: 4_312, new: 7_958 });
    expect(notes.filter((n) => n.includes('label'))).toHaveLength(22); // Psalm 119
    expect(find(verses, 'Gen 1:1')!.text).toBe('In the beginning, God created the heavens and the earth.');
    expect(find(verses, 'John 3:16')).toMatchObject({
      text: 'For God so loved the world, that he gave his only born Son, that whoever believes in him should not perish, but have eternal life.',
      strongs: expect.arrayContaining(['G2316', 'G2889', 'G5207', 'G2222']),
    });
    expect(find(verses, 'Tob 1:1')!.text).toMatch(/^The book of the words of Tobit, the son of Tobiel/);
    expect(find(verses, 'Ps 3:0')!.text).toBe('A Psalm by David, when he fled from Absalom his son.');
    expect(verses.filter((v) => v.book === 'Dan' && v.chapter === 13)).toHaveLength(64); // Susanna
    expect(find(verses, 'Dan 14:1')!.text).toMatch(/^King Astyages was gathered to his fathers/); // Bel
    expect(verses.filter((v) => v.book === 'EsthGr').length).toBe(205);
  });

  it('brenton: 53 books, 29,005 \\v markers of which 314 lettered segments join their verse', () => {
    const raw = rawOf(brenton);
    const { verses, notes } = readEdition('brenton', BRENTON_BASE, BRENTON_PINS, BRENTON_ORDER, raw);
    expect(booksOf(verses)).toEqual(BRENTON_ORDER.map((c) => USFM_TO_OSIS[c]));
    expect(markers(raw)).toBe(29_005);
    const merged = notes.filter((n) => n.includes('holds lettered')).reduce((n, s) => n + s.split(' segments ')[1].split(' ').length, 0);
    expect(merged).toBe(314);
    // 29,005 − 314 merged segments + 2 text-before-verse-1 (Lam 1:0, Sir 1:0 "The Prologue …").
    expect(verses.length).toBe(28_693);
    expect(verses.filter((v) => v.verse === 0).map(ref)).toEqual(['Lam 1:0', 'Sir 1:0']);
    expect(verses.filter((v) => !v.text).map(ref)).toEqual(['Prov 30:1']); // "See chapter 24" footnote only
    expect(groups(verses)).toEqual({ old: 23_196, apocrypha: 5_497 });
    expect(find(verses, 'Gen 1:1')!.text).toBe('In the beginning God made the heaven and the earth.');
    expect(find(verses, 'Ps 3:1')!.text).toBe('A Psalm of David, when he fled from the presence of his son Abessalom.');
    expect(find(verses, 'Tob 1:1')!.text).toMatch(/^The book of the words of Tobit/);
    expect(find(verses, 'EsthGr 1:1')!.text).toMatch(/^\[In the second year of the reign of Artaxerxes .* a Jew dwelling in the city Susa/);
    expect(booksOf(verses)).toEqual(expect.arrayContaining(['Sus', 'Bel', 'EpJer', 'PrMan', '1Esd', '3Macc', '4Macc']));
    expect(verses.some((v) => v.strongs)).toBe(false);
  });

  it('both become datasets with unique, schema-shaped ids', () => {
    for (const t of [webCatholic, brenton]) {
      const records = translationDataset(t).normalise(rawOf(t));
      expect(records.every((r) => /^[0-9a-z]+\.[1-9][0-9]*\.[0-9]+$/.test(r.id))).toBe(true);
      expect(records.every((r) => (r.strongs ?? []).every((s) => /^[HG][1-9][0-9]*[a-z]?$/.test(s)))).toBe(true);
    }
  });
});
