/**
 * The Septuagint layer (issue 37, item 5): the LxxLemmas reader on excerpts of the real
 * files (test/fixtures/lxx-lemmas/README.md), the layer's references, texts and Strong's
 * numbers on them with the real Strong's dictionaries (npm strongs), its pinned inputs,
 * and its numbering through Brenton's table. The whole Septuagint is checked against the
 * upstream's own counts, and every placement against the Hebrew, in septuagint-mirror.test.ts.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readLxxLemmas } from '../sources/readers/lxx-lemmas.ts';
import { ALTERNATIVE_TEXTS, LXX_BASE, LXX_NOTE, LXX_PINS, SEPTUAGINT, septuagintLayer, septuagintVerses } from '../sources/scripture/study/septuagint.ts';
import { Lexicon, LEXICON_INPUTS } from '../sources/scripture/study/lexicon.ts';
import { STATUSES, type TokenTuple } from '../sources/scripture/study/tokens.ts';
import { kjvKeys } from '../sources/scripture/versification/numbering.ts';

const dir = new URL('./fixtures/lxx-lemmas/', import.meta.url);
const text = (file: string) => fs.readFileSync(new URL(file, dir), 'utf8');
const FIXTURES = fs.readdirSync(dir).filter((f) => f.endsWith('.js'));
const lexicon = Lexicon.from(Object.fromEntries(Object.entries(LEXICON_INPUTS).map(([name, spec]) => [
  name, fs.readFileSync(new URL(`../node_modules/${(spec as { package: string }).package}/${(spec as { file: string }).file}`, import.meta.url), 'utf8'),
])));
const verses = () => septuagintVerses(Object.fromEntries(FIXTURES.map((f) => [f, text(f)])), lexicon);

describe('the LxxLemmas reader', () => {
  it('reads a book: each verse\'s words in order, each with its Word List key and its lemma', () => {
    const gen = readLxxLemmas(text('Gen.js'), 'Gen.js');
    expect(gen.book).toBe('Gen');
    expect(gen.verses.map((v) => v.ref)).toEqual(['Gen.1.1', 'Gen.1.2', 'Gen.1.3']);
    expect(gen.verses[0]).toMatchObject({ chapter: 1, verse: 1, letter: '', through: 1 });
    expect(gen.verses[0].words.slice(0, 3)).toEqual([{ key: 'εν', lemma: 'ἐν' }, { key: 'αρχη', lemma: 'ἀρχή' }, { key: 'ποιεω', lemma: 'ποιέω' }]);
    expect(gen.verses.map((v) => v.words.length)).toEqual([10, 19, 9]);
  });

  it('reads Rahlfs\' lettered additions, merged verses and ranges, verse and chapter 0 and Sirach\'s prologue as what they are', () => {
    const pick = (file: string) => readLxxLemmas(text(file), file).verses.map(({ ref, chapter, verse, letter, through }) => ({ ref, chapter, verse, letter, through }));
    expect(pick('1Kgs.js').slice(1)).toEqual([
      { ref: '1Kgs.2.35a', chapter: 2, verse: 35, letter: 'a', through: 35 }, { ref: '1Kgs.2.35b', chapter: 2, verse: 35, letter: 'b', through: 35 },
    ]);
    expect(pick('Jer.js')[1]).toEqual({ ref: 'Jer.7.27/28', chapter: 7, verse: 27, letter: '', through: 28 });
    expect(pick('SusOG.js').map((v) => [v.ref, v.verse, v.through])).toEqual([['Sus.1.6', 6, 6], ['Sus.1.7/8', 7, 8], ['Sus.1.60-62', 60, 62]]);
    expect(pick('Sir.js')[0]).toMatchObject({ chapter: 'Prolog', verse: 1 });
    expect(pick('EpJer.js')[0]).toMatchObject({ chapter: 1, verse: 0 });
    expect(pick('Lam.js')[0]).toMatchObject({ chapter: 0, verse: 1 });
  });

  it('fails naming the file and the reference on anything it does not know', () => {
    const gen = text('Gen.js');
    expect(() => readLxxLemmas(gen.replace('"Gen.1.2"', '"Gen 1:2"'), 'Gen.js')).toThrow(/Gen\.js: reference 'Gen 1:2' is not Book\.chapter\.verse/);
    expect(() => readLxxLemmas(gen.replace('"Gen.1.2"', '"Exod.1.2"'), 'Gen.js')).toThrow(/Gen\.js: Exod\.1\.2 names book Exod, the file's others Gen/);
    expect(() => readLxxLemmas(gen.replace(/\{"key": "αρχη", "lemma": "[^"]*"\}/, '{"key": "αρχη"}'), 'Gen.js')).toThrow(/Gen\.js: Gen\.1\.1 word 2: expected \{key, lemma\}/);
    expect(() => readLxxLemmas(gen.replace(/\{"key": "αρχη", "lemma": "[^"]*"\}/, '{"key": "αρχη", "lemma": "ἀρχή", "morph": "N"}'), 'Gen.js')).toThrow(/word 2/);
    expect(() => readLxxLemmas(gen.slice(0, -3), 'Gen.js')).toThrow(/Gen\.js: not JSON/);
    expect(() => readLxxLemmas('{}', 'Gen.js')).toThrow(/Gen\.js: no verses/);
    expect(() => readLxxLemmas(text('Jer.js').replace('Jer.7.27/28', 'Jer.7.27/27'), 'Jer.js')).toThrow(/Jer\.7\.27\/27: a range must end after it starts/);
  });
});

describe('the Septuagint layer', () => {
  it('declares the 59 book files from the publisher\'s repository at the mirrored commit, each pinned by sha256', () => {
    const inputs = Object.entries(septuagintLayer.inputs);
    expect(inputs).toHaveLength(59);
    expect(Object.keys(LXX_PINS).slice(0, 6)).toEqual(['Gen.js', 'Exod.js', 'Lev.js', 'Num.js', 'Deut.js', 'JoshB.js']);
    expect(septuagintLayer.inputs['lxx:Gen.js']).toEqual({
      kind: 'url', url: `${LXX_BASE}Gen.js`, sha256: '4da2dc0c4d4a35e6288509a829260c83bb65bed2f92229e3479b92fb76b3bc14', format: 'text', optional: true,
    });
    expect(LXX_BASE).toBe('https://raw.githubusercontent.com/openscriptures/GreekResources/dd5a2fd530ab3c6b748c174cec38966c356d8111/LxxLemmas/');
    // All or nothing: one missing file leaves the layer absent with its reason, not a Septuagint without a book.
    const raw = Object.fromEntries(Object.keys(LXX_PINS).map((f) => [`lxx:${f}`, '{}']));
    delete raw['lxx:Ps.js'];
    expect(septuagintLayer.read(raw, lexicon, { sourceTokens: new Map(), studyKeys: () => [] })).toBeNull();
  });

  it('says what it is: Greek Tradition, lemmas only and why, credited to the Open Scriptures Septuagint Project under CC BY 4.0', () => {
    for (const m of [SEPTUAGINT, ...ALTERNATIVE_TEXTS]) {
      expect(m).toMatchObject({ role: 'Greek Tradition', language: 'grc', kind: 'Greek Septuagint', generated: false, numbering: 'septuagint', note: LXX_NOTE });
      expect(m.provenance[0].licence.spdx).toBe('CC-BY-4.0');
      expect(m.provenance[0].attribution).toMatch(/Open Scriptures Septuagint Project/);
    }
    expect(LXX_NOTE).toMatch(/lemmas? only|Lemmas only/i);
    expect(LXX_NOTE).toMatch(/not freely licensed/);
  });

  it('gives each verse its own Rahlfs reference and keeps the texts Rahlfs prints twice apart, one named layer each', () => {
    const v = verses();
    const labels = (layer: string) => v.filter((x) => x.layer === layer).map((x) => x.label);
    expect(labels('septuagint')).toEqual(expect.arrayContaining([
      'gen.1.1', '1kgs.2.35a', 'jer.7.27-28', 'sir.prolog.1', 'epjer.1.0', 'lam.0.1', 'neh.1.1', 'ps.9.22',
    ]));
    expect(labels('septuagint-daniel-og')).toEqual(['sus.1.6', 'sus.1.7-8', 'sus.1.60-62']);
    expect(labels('septuagint-tobit-s')).toEqual(['tob.9.2', 'tob.9.3-4']);
    expect(labels('septuagint-joshua-a')).toEqual(['josh.15.21']);
    expect(labels('septuagint-joshua-b')).toEqual(['josh.15.21']);
    // 2 Esdras 11:1 is Nehemiah 1:1, numbered as the LXX versification divides the book.
    expect(v.find((x) => x.label === 'neh.1.1')!.ref).toEqual({ book: 'Neh', chapter: 1, verse: 1 });
    const a = v.find((x) => x.layer === 'septuagint-joshua-a')!.tokens, b = v.find((x) => x.layer === 'septuagint-joshua-b')!.tokens;
    expect(a.map((t) => (t as TokenTuple)[2])).not.toEqual(b.map((t) => (t as TokenTuple)[2]));
  });

  it('makes a token of each word: no text, the lemma, and the one Strong\'s number spelled so (or so but for Strong\'s conventions)', () => {
    const gen = verses().find((x) => x.label === 'gen.1.1')!.tokens as TokenTuple[];
    expect(gen).toHaveLength(10);
    expect(gen[1]).toEqual([2, null, 'ἀρχή', 'G746', null, STATUSES.indexOf('lexicon-aligned'), 1]);
    expect(gen.map((t) => t[3])).toEqual(['G1722', 'G746', 'G4160', 'G3588', 'G2316', 'G3588', 'G3772', 'G2532', 'G3588', 'G1093']);
    const all = verses().flatMap((x) => x.tokens as TokenTuple[]);
    expect(all.every((t) => t[1] === null && typeof t[2] === 'string' && t[4] === null)).toBe(true);
    // The enclitic μου, unaccented in the lemma list, is Strong's μοῦ.
    expect(all.find((t) => t[2] === 'μου')![3]).toBe('G3450');
    // μήν is two Strong's entries (G3375 "verily", G3376 "month"): no number, the dataset's own lemma.
    expect(all.find((t) => t[2] === 'μήν')!.slice(3, 7)).toEqual([null, null, STATUSES.indexOf('imported'), 0]);
    // A Word List key that is not the bare lemma (a numbered homograph) is kept.
    expect(all.find((t) => t[2] === 'Ἰσραήλ')![7]).toEqual({ word_list_key: 'ισραηλ.1' });
    expect(gen[0][7]).toBeUndefined();
  });

  it('places its verses through the numbering Brenton\'s English has: Greek psalm 9:22 is the KJV\'s 10:1, Greek 50:3 the KJV\'s 51:1', () => {
    expect(kjvKeys('septuagint', 'ps.9.22')).toEqual(['ps.10.1']);
    expect(kjvKeys('septuagint', 'ps.50.3')).toEqual(['ps.51.1']);
    expect(kjvKeys('septuagint', 'gen.1.1')).toEqual(['gen.1.1']);
  });
});
