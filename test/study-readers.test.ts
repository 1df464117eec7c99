/**
 * Study layers on small fixtures in the upstreams' own formats (test/fixtures/study/:
 * OSHB OSIS books and VerseMap.xml cut from morphhb@2.0.2, MorphGNT lines, byztxt CSV
 * rows), the three morphology decoders, and the versification mapping.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readOshbBook, readVerseMap } from '../sources/readers/oshb.ts';
import { readByzantineCsv, readMorphGnt } from '../sources/readers/greek-nt.ts';
import { osisStrongWords, usfmStrongWords } from '../sources/readers/strong-words.ts';
import { decodeOshb } from '../sources/scripture/study/morph-oshb.ts';
import { decodeRobinson } from '../sources/scripture/study/morph-robinson.ts';
import { decodeMorphGnt } from '../sources/scripture/study/morph-morphgnt.ts';
import { oshbLayer, oshbStrong } from '../sources/scripture/study/oshb.ts';
import { Lexicon } from '../sources/scripture/study/lexicon.ts';
import { HebrewMap, studyKeys, vulgatePsalmToHebrew } from '../sources/scripture/study/versification.ts';

const fixture = (f: string) => readFileSync(new URL(`./fixtures/study/${f}`, import.meta.url), 'utf8');

describe('OSHB reader and layer', () => {
  it('reads Gen 1:1 as seven words with lemma, morph and id, separators removed', () => {
    const [v] = readOshbBook(fixture('Gen.xml'), 'Gen.xml');
    expect(v).toMatchObject({ book: 'Gen', chapter: 1, verse: 1 });
    expect(v.words).toHaveLength(7);
    expect(v.words[0]).toMatchObject({ lemma: 'b/7225', morph: 'HR/Ncfsa', id: '01xeN' });
    // The fixture's text, with the morpheme separator removed (NFC: the file's mark order is not canonical).
    expect(v.words[0].text.normalize('NFC')).toBe('בְּרֵאשִׁ֖ית'.normalize('NFC'));
    expect(v.words.some((w) => w.text.includes('/'))).toBe(false);
    expect(v.words.map((w) => oshbStrong(w.lemma))).toEqual(['H7225', 'H1254', 'H430', 'H853', 'H8064', 'H853', 'H776']);
  });
  it('keeps a qere reading on its ketiv word and drops the variant note from the word list', () => {
    const v = readOshbBook(fixture('Gen.xml'), 'Gen.xml').find((x) => x.chapter === 8 && x.verse === 17)!;
    const ketiv = v.words.find((w) => w.text === 'הוצא')!;
    expect(ketiv.qere).toBe('הַיְצֵ֣א');
    expect(v.words.filter((w) => w.id === '01S7t')).toHaveLength(0);
  });
  it('splits Dan 2:4 into a Hebrew panel (positions 1-4) and an Aramaic panel (5-12)', () => {
    const lex = Lexicon.from({});
    const raw = Object.fromEntries(Object.keys(oshbLayer.inputs).map((k) => [k, k === 'oshb:Dan' ? fixture('Dan.xml') : '<verse osisID="X.1.1"></verse>']));
    const verses = oshbLayer.read(raw, lex, null as never)!.filter((v) => v.ref.book === 'Dan');
    expect(verses.map((v) => v.layer)).toEqual(['oshb-hebrew', 'oshb-aramaic']);
    expect(verses[0].tokens.map((t) => (t as unknown[])[0])).toEqual([1, 2, 3, 4]);
    expect(verses[1].tokens.map((t) => (t as unknown[])[0])).toEqual([5, 6, 7, 8, 9, 10, 11, 12]);
    // No lexicon given: numbers are kept off and the status says so.
    expect(verses[1].tokens.every((t) => (t as unknown[])[5] === 0)).toBe(true);
  });
  it('throws on markup it does not know inside a verse', () => {
    expect(() => readOshbBook('<verse osisID="Gen.1.1"><foo/></verse>', 'bad.xml')).toThrow(/bad.xml Gen.1.1: unexpected <foo/);
  });
});

describe('OSHB morphology decoder', () => {
  it('decodes prefixes, nouns, verbs and suffixes', () => {
    expect(decodeOshb('HR/Ncfsa')).toEqual({ language: 'hbo', segments: [
      { part_of_speech: 'preposition' }, { part_of_speech: 'noun', type: 'common', gender: 'feminine', number: 'singular', state: 'absolute' }] });
    expect(decodeOshb('HVqp3ms').segments[0]).toEqual({ part_of_speech: 'verb', stem: 'qal', tense: 'perfect', person: 'third', gender: 'masculine', number: 'singular' });
    expect(decodeOshb('HVqrmpa').segments[0]).toEqual({ part_of_speech: 'verb', stem: 'qal', tense: 'participle active', gender: 'masculine', number: 'plural', state: 'absolute' });
    expect(decodeOshb('HTd/Ncmpa').segments[0]).toEqual({ part_of_speech: 'particle', type: 'definite article' });
    expect(decodeOshb('HNcmsc/Sp3ms').segments[1]).toEqual({ part_of_speech: 'suffix', type: 'pronominal', person: 'third', gender: 'masculine', number: 'singular' });
  });
  it('uses the Aramaic stem names for A codes and the determined state', () => {
    const d = decodeOshb('AVhi2mp/Sp1cs');
    expect(d.language).toBe('arc');
    expect(d.segments[0]).toMatchObject({ stem: 'haphel', tense: 'imperfect', person: 'second' });
    expect(decodeOshb('ANcmsd/Td').segments[0].state).toBe('determined');
  });
  it('ignores the stray trailing slash upstream has twice, and refuses unknown letters', () => {
    expect(decodeOshb('HVtv2fs/').segments).toHaveLength(1);
    expect(() => decodeOshb('HZx')).toThrow(/unknown part of speech 'Z'/);
    expect(() => decodeOshb('HVqp3ys')).toThrow(/unknown gender 'y'/);
  });
});

describe('Robinson parsing decoder (Byzantine)', () => {
  it('decodes verbs with tense, voice, mood, person and number', () => {
    expect(decodeRobinson('V-IAI-3S')).toEqual({ part_of_speech: 'verb', tense: 'imperfect', voice: 'active', mood: 'indicative', person: 'third', number: 'singular' });
    expect(decodeRobinson('V-2ADI-3S')).toMatchObject({ tense: 'second aorist', voice: 'middle deponent' });
    expect(decodeRobinson('V-RPP-NSM')).toMatchObject({ tense: 'perfect', voice: 'passive', mood: 'participle', case: 'nominative', number: 'singular', gender: 'masculine' });
  });
  it('decodes nouns, pronouns with person, possessives and indeclinables', () => {
    expect(decodeRobinson('N-DSF')).toEqual({ part_of_speech: 'noun', case: 'dative', number: 'singular', gender: 'feminine' });
    expect(decodeRobinson('P-1GP')).toEqual({ part_of_speech: 'personal pronoun', person: 'first', case: 'genitive', number: 'plural' });
    expect(decodeRobinson('S-1SNSM')).toMatchObject({ person: 'first', possessor_number: 'singular', case: 'nominative', gender: 'masculine' });
    expect(decodeRobinson('CONJ-N')).toEqual({ part_of_speech: 'conjunction', particle: 'negative' });
    expect(decodeRobinson('N-PRI')).toMatchObject({ part_of_speech: 'noun', form: 'proper indeclinable' });
    expect(() => decodeRobinson('Z-NSM')).toThrow(/unknown part of speech 'Z'/);
  });
});

describe('MorphGNT decoder', () => {
  it('decodes the eight parse positions', () => {
    expect(decodeMorphGnt('V-', '3IAI-S--')).toEqual({ part_of_speech: 'verb', person: 'third', tense: 'imperfect', voice: 'active', mood: 'indicative', number: 'singular' });
    expect(decodeMorphGnt('N-', '----DSF-')).toEqual({ part_of_speech: 'noun', case: 'dative', number: 'singular', gender: 'feminine' });
    expect(decodeMorphGnt('A-', '----NSMS')).toMatchObject({ degree: 'superlative' });
    expect(() => decodeMorphGnt('V-', '3IAI-S-')).toThrow(/not 8 positions/);
    expect(() => decodeMorphGnt('Q-', '--------')).toThrow(/part of speech 'Q-'/);
  });
});

describe('Greek readers', () => {
  it('reads MorphGNT John 1:1 (17 words) with lemma and codes', () => {
    const [v] = readMorphGnt(fixture('64-Jn-morphgnt.txt'));
    expect(v).toMatchObject({ chapter: 1, verse: 1 });
    expect(v.words).toHaveLength(17);
    expect(v.words[2]).toMatchObject({ pos: 'V-', parse: '3IAI-S--', text: 'ἦν', lemma: 'εἰμί' });
  });
  it('reads byztxt rows: word, Strong\'s, parsing, and alternative analyses', () => {
    const [v] = readByzantineCsv(fixture('JOH.csv'));
    expect(v.words[0]).toEqual({ text: 'εν', strongs: ['G1722'], parse: 'PREP' });
    expect(v.words[2]).toEqual({ text: 'ην', strongs: ['G1510'], parse: 'V-IAI-3S' });
    const [m] = readByzantineCsv(fixture('MAT.csv'));
    expect(m.words[0]).toEqual({ text: 'γη', strongs: ['G1093'], parse: 'N-NSF', alternatives: [{ strongs: ['G1093'], parse: 'N-VSF' }] });
    expect(() => readByzantineCsv('chapter,verse,text\n1,1,λογος 3056\n')).toThrow(/has no parsing code/);
  });
});

describe('English words with Strong\'s numbers', () => {
  it('reads OSIS <w lemma> words and leaves footnote words out', () => {
    const raw = '<w lemma="strong:H7225">beginning</w><note placement="foot"><w lemma="strong:H430">Elohim</w></note><w lemma="strong:H430">God</w>';
    expect(osisStrongWords(raw)).toEqual([{ word: 'beginning', strongs: ['H7225'] }, { word: 'God', strongs: ['H430'] }]);
  });
  it('reads USFM \\w and \\+w words and leaves footnotes out', () => {
    const usfm = '\\v 1 \\w In|strong="H7225"\\w* \\f + \\ft \\+w God|strong="H430"\\+w*\\f* \\wj \\+w said|strong="G2036"\\+w*\\wj*';
    expect(usfmStrongWords(usfm)).toEqual([{ word: 'In', strongs: ['H7225'] }, { word: 'said', strongs: ['G2036'] }]);
  });
});

describe('versification mapping', () => {
  const map = new HebrewMap(readVerseMap(fixture('VerseMap.xml')), (r) => ['Ps.3.1', 'Ps.3.2', 'Ps.3.3'].includes(r));
  it('maps Hebrew Mal 3:19 to KJV Mal 4:1 and Joel 3:1 to Joel 2:28', () => {
    expect(map.toKjv({ book: 'Mal', chapter: 3, verse: 19 })).toEqual(['mal.4.1']);
    expect(map.toKjv({ book: 'Joel', chapter: 3, verse: 1 })).toEqual(['joel.2.28']);
    expect(map.toKjv({ book: 'Gen', chapter: 1, verse: 1 })).toEqual(['gen.1.1']);
  });
  it('counts a psalm title as Hebrew verse 1 and joins it to KJV verse 1', () => {
    expect(map.toKjv({ book: 'Ps', chapter: 3, verse: 1 })).toEqual(['ps.3.1']);
    expect(map.toKjv({ book: 'Ps', chapter: 3, verse: 2 })).toEqual(['ps.3.1']);
    expect(map.toKjv({ book: 'Ps', chapter: 3, verse: 3 })).toEqual(['ps.3.2']);
  });
  it('puts a partially mapped Hebrew verse under each KJV verse it is part of', () => {
    expect(map.toKjv({ book: 'Ps', chapter: 13, verse: 6 })).toEqual(['ps.13.5', 'ps.13.6']);
  });
  it('moves Vulgate psalms to their Hebrew numbers: Vulg Ps 22 = KJV Ps 23, 9:22 = 10:1, 113:9 = 115:1, 147:1 = 147:12', () => {
    expect(studyKeys('Vulg', { book: 'Ps', chapter: 22, verse: 1 }, map)).toEqual(['ps.23.1']);
    expect(vulgatePsalmToHebrew(9, 22)).toEqual({ chapter: 10, verse: 1 });
    expect(vulgatePsalmToHebrew(113, 9)).toEqual({ chapter: 115, verse: 1 });
    expect(vulgatePsalmToHebrew(115, 1)).toEqual({ chapter: 116, verse: 10 });
    expect(vulgatePsalmToHebrew(147, 1)).toEqual({ chapter: 147, verse: 12 });
    expect(studyKeys('Vulg', { book: 'John', chapter: 3, verse: 16 }, map)).toEqual(['john.3.16']);
  });
});
