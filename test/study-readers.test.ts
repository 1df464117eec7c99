/**
 * Study layers on small fixtures in the upstreams' own formats (test/fixtures/study/:
 * OSHB OSIS books and VerseMap.xml cut from morphhb@2.0.2, MorphGNT lines, byztxt CSV
 * rows, Whitaker's WORDS output), the morphology decoders, and the versification mapping.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readOshbBook, readVerseMap } from '../sources/readers/oshb.ts';
import { readByzantineCsv, readMorphGnt } from '../sources/readers/greek-nt.ts';
import { osisStrongWords, usfmStrongWords } from '../sources/readers/strong-words.ts';
import { decodeOshb } from '../sources/scripture/study/morph-oshb.ts';
import { decodeRobinson } from '../sources/scripture/study/morph-robinson.ts';
import { decodeMorphGnt } from '../sources/scripture/study/morph-morphgnt.ts';
import { oshbLayer, oshbStrong } from '../sources/scripture/study/oshb.ts';
import { Lexicon } from '../sources/scripture/study/lexicon.ts';
import { readWhitakerOutput } from '../sources/readers/whitaker.ts';
import { analyseLatin, latinForm, latinToken } from '../sources/scripture/study/latin.ts';
import { decodeWhitaker } from '../sources/scripture/study/morph-whitaker.ts';
import { STATUSES, type TokenTuple } from '../sources/scripture/study/tokens.ts';
import { HebrewMap, studyKeys } from '../sources/scripture/study/versification.ts';
import { kjvKeys } from '../sources/scripture/versification/numbering.ts';

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
  it("places Vulgate psalms by the Vulgate's table: Vulg Ps 22 = KJV Ps 23, 9:22 = 10:1, 113:9 = 115:1, 115:1 = 116:10, 147:1 = 147:12", () => {
    expect(studyKeys('Vulg', { book: 'Ps', chapter: 22, verse: 1 }, map)).toEqual(['ps.23.1']);
    expect(kjvKeys('vulgate', 'ps.9.22')).toEqual(['ps.10.1']);
    expect(kjvKeys('vulgate', 'ps.113.9')).toEqual(['ps.115.1']);
    expect(kjvKeys('vulgate', 'ps.115.1')).toEqual(['ps.116.10']);
    expect(kjvKeys('vulgate', 'ps.147.1')).toEqual(['ps.147.12']);
    expect(studyKeys('Vulg', { book: 'John', chapter: 3, verse: 16 }, map)).toEqual(['john.3.16']);
  });
  it("maps Vulgate verses outside Psalms through the Vulgate's own table (sources/scripture/versification/maps/vulgate.json)", () => {
    const vulg = (book: string, chapter: number, verse: number) => studyKeys('Vulg', { book, chapter, verse }, map);
    expect(vulg('Num', 13, 1)).toEqual(['num.12.16']); // the Vulgate starts Num 13 one verse early
    expect(vulg('Num', 13, 2)).toEqual(['num.13.1']);
    expect(vulg('Job', 39, 31)).toEqual(['job.40.1']);
    expect(vulg('Jonah', 2, 1)).toEqual(['jonah.1.17']); // SWORD's rules had none for this
    expect(vulg('Dan', 3, 91)).toEqual(['dan.3.24']);
    expect(vulg('Dan', 3, 24)).toEqual([]); // the Greek additions: no KJV verse (the build keys them vulg:dan.3.24)
    // Malachi and Joel: the Vulgate numbers them as the KJV does (the Hebrew differs: Mal 3:19, Joel 3:1).
    expect(vulg('Mal', 4, 1)).toEqual(['mal.4.1']);
    expect(vulg('Joel', 2, 28)).toEqual(['joel.2.28']);
    expect(vulg('Tob', 1, 1)).toEqual(['tob.1.1']); // books the KJV lacks keep their numbers
  });
});

describe("Whitaker's WORDS reader, decoder and Latin tokens", () => {
  // Fixture: the analyser's own file-mode output (whitakers-words 0.2020.10.27, Debian) for words.txt, each followed by the sentinel.
  const words = fixture('whitaker/words.txt').split('\n').filter(Boolean);
  const parsed = readWhitakerOutput(fixture('whitaker/out.txt'), words);
  it('splits the output into one answer per word and groups inflections under their dictionary entry', () => {
    expect([...parsed.keys()]).toEqual(words);
    expect(parsed.get('principio')!.entries).toEqual([
      { entry: 'principium, principi(i) N (2nd) N', codes: ['N 2 4 DAT S N', 'N 2 4 ABL S N'], meaning: 'beginning;' },
      { entry: 'principio, principiare, principiavi, principiatus V (1st)', codes: ['V 1 1 PRES ACTIVE IND 1 S'], meaning: expect.stringMatching(/^begin to speak/) },
    ]);
    expect(parsed.get('in')!.entries.map((e) => e.entry)).toEqual(['in PREP ABL', 'in PREP ACC']);
    // An enclitic is an affix, not an analysis; its meaning does not leak into the entry's.
    expect(parsed.get('filiumque')).toEqual({ affixes: ['que (TACKON)'], entries: [{ entry: 'filius, fili N (2nd) M', codes: ['N 2 5 ACC S M'], meaning: 'son;' }] });
    // Unknown names and single letters have no analysis; a frequency flag is not part of the code.
    expect(parsed.get('aaron')!.entries).toEqual([]);
    expect(parsed.get('a')!.entries).toEqual([]);
    // "May be 2 words combined (ab+ana) If not obvious, probably incorrect": not an analysis.
    expect(parsed.get('abana')).toEqual({ entries: [], affixes: [] });
    expect(parsed.get('mortuus')!.entries.map((e) => e.codes[0])).toEqual(['VPAR 3 1 NOM S M PERF PPL', 'N 2 1 NOM S M', 'ADJ 1 1 NOM S M POS']);
  });
  it('refuses output whose answers do not line up with the words', () => {
    expect(() => readWhitakerOutput(fixture('whitaker/out.txt'), words.slice(1))).toThrow(/expected 12 answers, found 13/);
  });
  it('decodes inflection codes into the same named parts as the other decoders', () => {
    expect(decodeWhitaker('N 2 4 ABL S N')).toEqual({ part_of_speech: 'noun', declension: '2nd', case: 'ablative', number: 'singular', gender: 'neuter' });
    expect(decodeWhitaker('V 3 1 PERF ACTIVE IND 3 S')).toEqual({ part_of_speech: 'verb', conjugation: '3rd', tense: 'perfect', voice: 'active', mood: 'indicative', person: 'third', number: 'singular' });
    // A deponent participle has no voice column.
    expect(decodeWhitaker('VPAR 3 1 NOM S M PERF PPL')).toEqual({ part_of_speech: 'participle', conjugation: '3rd', case: 'nominative', number: 'singular', gender: 'masculine', tense: 'perfect', mood: 'participle' });
    expect(decodeWhitaker('V 1 1 PRES ACTIVE INF 0 X')).toEqual({ part_of_speech: 'verb', conjugation: '1st', tense: 'present', voice: 'active', mood: 'infinitive' });
    expect(decodeWhitaker('ADJ 1 1 NOM S M POS')).toMatchObject({ part_of_speech: 'adjective', degree: 'positive' });
    expect(decodeWhitaker('PREP ACC')).toEqual({ part_of_speech: 'preposition', case: 'accusative' });
    expect(decodeWhitaker('CONJ')).toEqual({ part_of_speech: 'conjunction' });
    expect(() => decodeWhitaker('N 2 4 QQQ S N')).toThrow(/unknown case 'QQQ'/);
    expect(() => decodeWhitaker('ZZ 1')).toThrow(/unknown part of speech/);
  });
  it('makes one analysis rule-aligned, several review-needed with every candidate, none pending', () => {
    const analyses = { analyser: 'fixture', words: new Map([...parsed].filter(([, a]) => a.entries.length).map(([w, a]) => [w, a.entries.map((e) => [e.entry, e.meaning, e.codes] as [string, string, string[]])])) };
    const glosses: Record<string, string> = {};
    expect(latinToken(4, 'Dilexit', analyses, glosses)).toEqual([4, 'Dilexit', 'diligo, diligere, dilexi, dilectus V (3rd) TRANS', null, 'V 3 1 PERF ACTIVE IND 3 S', STATUSES.indexOf('rule-aligned'), 1]);
    expect(glosses['la:diligo, diligere, dilexi, dilectus V (3rd) TRANS']).toBe('love, hold dear'); // the first senses, up to ';'
    const verbum = latinToken(4, 'verbum,', analyses, glosses) as TokenTuple;
    expect(verbum).toBe('verbum,'); // not a form WORDS is asked about (punctuation): stays pending
    const v = latinToken(4, 'Verbum', analyses, glosses) as TokenTuple;
    expect(v.slice(2, 7)).toEqual(['verbum, verbi N (2nd) N', null, null, STATUSES.indexOf('review-needed'), 2]);
    expect(v[7]).toEqual({ candidates: [['verbum, verbi N (2nd) N', 'N 2 2 NOM S N', 'N 2 2 VOC S N', 'N 2 2 ACC S N']] });
    expect((latinToken(1, 'principio', analyses, glosses) as TokenTuple)[2]).toBeNull(); // two headwords: no single lemma
    expect(latinToken(1, 'Aaron', analyses, glosses)).toBe('Aaron');
    expect(latinForm('cælum')).toBe('caelum');
    expect(latinForm('Israël')).toBe('israel');
    expect(latinForm('a')).toBeNull();
  });
});

const whitaker = spawnSync('sh', ['-c', 'command -v whitakers-words']).status === 0;
describe.skipIf(!whitaker)('whitakers-words, the program (skipped when it is not installed: apt-get install whitakers-words)', () => {
  it('runs once over the forms, then answers from its cache', () => {
    const cache = mkdtempSync(path.join(os.tmpdir(), 'almanac-words-test-'));
    const env = { ...process.env, ALMANAC_WHITAKER_CACHE: cache };
    const a = analyseLatin(['dilexit', 'mundum', 'aaron', 'dilexit'], env)!;
    expect(a.words.get('dilexit')).toEqual([['diligo, diligere, dilexi, dilectus V (3rd) TRANS', expect.stringMatching(/^love/), ['V 3 1 PERF ACTIVE IND 3 S']]]);
    expect(a.words.has('aaron')).toBe(false);
    expect(readdirSync(cache)).toHaveLength(1);
    const again = analyseLatin(['mundum', 'dilexit', 'aaron'], { ...env, PATH: '/nonexistent' });
    expect(again).toBeNull(); // without the program: pending, whatever the cache holds
    expect(analyseLatin(['aaron', 'mundum', 'dilexit'], env)!.words).toEqual(a.words);
    rmSync(cache, { recursive: true, force: true });
  });
});
