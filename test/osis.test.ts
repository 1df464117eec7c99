import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readOsis, readOsisFragment, strongsOf } from '../sources/readers/osis.ts';

const fixture = (name: string) => readFileSync(new URL(`./fixtures/osis/${name}`, import.meta.url), 'utf8');
const ref = (v: { book: string; chapter: number; verse: number }) => `${v.book}.${v.chapter}.${v.verse}`;
const doc = (body: string) => `<osis><osisText><div type="book" osisID="Gen">${body}</div></osisText></osis>`;

describe('OSIS reader: container verses (SWORD style)', () => {
  const verses = readOsis(fixture('container.osis.xml'), { file: 'container.osis.xml' });
  const get = (id: string) => verses.find((v) => ref(v) === id)!;

  it('reads every verse in document order, merged verses included', () => {
    expect(verses.map(ref)).toEqual(['Gen.1.1', 'Gen.1.2', 'Ps.3.1', 'Ps.3.2', 'Rom.16.27', 'John.3.16', 'John.3.17', 'John.3.18']);
  });
  it('keeps <w> and <transChange> words, drops headings, notes and the pilcrow milestone', () => {
    expect(get('Gen.1.1').text).toBe('In the beginning God created the heaven and the earth.');
    expect(get('Gen.1.2').text).toBe('And the earth was without form, and void; and darkness was upon the face of the deep.');
  });
  it("collects Strong's numbers in order, without leading zeros, ignoring other lemma schemes", () => {
    expect(get('Gen.1.1').strongs).toEqual(['H7225', 'H430', 'H853', 'H1254', 'H853', 'H8064', 'H853', 'H776']);
    expect(get('John.3.16').strongs).toEqual(['G2316']);
    expect(get('Ps.3.1').strongs).toBeUndefined();
  });
  it('drops canonical psalm titles and colophons, keeps divineName and q text', () => {
    expect(get('Ps.3.1').text).toBe('Lord, how are they increased that trouble me! many are they that rise up against me.');
    expect(get('Ps.3.2').text).toBe('Many there be which say of my soul, There is no help for him in God. Selah.');
    expect(get('Rom.16.27').text).toBe('To God only wise, be glory through Jesus Christ for ever. Amen.');
    expect(get('John.3.16').text).toMatch(/^For God so loved the world, .* everlasting life\.$/);
  });
  it('decodes XML, numeric and common HTML entities; a merged verse gives the rest empty text', () => {
    expect(get('John.3.17').text).toBe('Fish & chips <3 \u2014 don\u2019t \u2018panic\u2019\u00a0now.');
    expect(get('John.3.18').text).toBe('');
  });
});

describe('OSIS reader: milestone verses (open-bibles OEB style)', () => {
  const verses = readOsis(fixture('milestone.osis.xml'), { file: 'milestone.osis.xml' });
  const get = (id: string) => verses.find((v) => ref(v) === id)!;

  it('reads milestones, ignoring header, book titles and section titles between verses', () => {
    expect(verses.map(ref)).toEqual(['Ruth.1.9', 'Ruth.1.20', 'Ps.3.2', 'Ps.41.13', 'Matt.17.20', 'Matt.17.21']);
  });
  it('follows a verse across a paragraph break up to its eID', () => {
    expect(get('Ruth.1.9').text).toBe(
      'The Lord grant that each of you may find peace and happiness in the house of a new husband.” Then she kissed them; but they began to weep aloud',
    );
  });
  it('removes an inline footnote without leaving a gap', () => {
    expect(get('Ruth.1.20').text).toBe('“Do not call me Naomi,” she said to them, “call me Mara, for the Almighty has given me a bitter lot.');
  });
  it('separates poetry lines even without whitespace between them', () => {
    expect(get('Ps.3.2').text).toBe('Many are those who say of me, “There is no help for him in his God.” Selah');
    expect(get('Ps.41.13').text).toBe('Blessed be the Lord, the God of Israel, from everlasting to everlasting, Amen and Amen.');
  });
  it('gives a verse whose only content is a footnote empty text', () => {
    expect(get('Matt.17.20').text).toBe('Because you have so little faith, he answered.');
    expect(get('Matt.17.21')).toEqual({ book: 'Matt', chapter: 17, verse: 21, text: '' });
  });
});

describe('OSIS reader: edge cases and errors', () => {
  it('closes a milestone verse at the next sID when the exporter left out eIDs', () => {
    const v = readOsis(doc('<verse sID="Gen.1.1" osisID="Gen.1.1"/>One. <verse sID="Gen.1.2" osisID="Gen.1.2"/>Two.'), { file: 't' });
    expect(v.map((x) => x.text)).toEqual(['One.', 'Two.']);
  });
  it('renders q markers when the file leaves quotation marks to the renderer', () => {
    const v = readOsis(doc('<verse osisID="Gen.1.3">God said, <q sID="q1" marker="“"/>Let there be light<q eID="q1" marker="”"/>.</verse>'), { file: 't' });
    expect(v[0].text).toBe('God said, “Let there be light”.');
  });
  it('throws naming the file and line', () => {
    expect(() => readOsis(doc('\n<verse osisID="Gen.1.1"><blink>x</blink></verse>'), { file: 'bad.xml' })).toThrow(/bad\.xml:2: OSIS element <blink> not understood/);
    expect(() => readOsis(doc('<verse osisID="Xyz.1.1">x</verse>'), { file: 'bad.xml' })).toThrow(/unknown OSIS book id 'Xyz'/);
    expect(() => readOsis(doc('<verse sID="Gen.1.1" osisID="Gen.1.1"/>x<verse eID="Gen.1.2"/>'), { file: 'bad.xml' })).toThrow(/closes Gen\.1\.1/);
    expect(() => readOsis(doc('<p>stray words</p>'), { file: 'bad.xml' })).toThrow(/text outside any verse: 'stray words'/);
    expect(() => readOsis(doc('<verse osisID="Gen.1.1">a</verse><verse osisID="Gen.1.1">b</verse>'), { file: 'bad.xml' })).toThrow(/Gen\.1\.1 occurs twice/);
    expect(() => readOsis(doc('<verse osisID="Gen.1.1">a &bogus; b</verse>'), { file: 'bad.xml' })).toThrow(/bad\.xml/);
  });
  it("parses Strong's lemmas and verse fragments", () => {
    expect(strongsOf('strong:H0430 lemma.TR:θεος strong:g2316a', 'x')).toEqual(['H430', 'G2316a']);
    expect(() => strongsOf('strong:X12', 'x')).toThrow(/not understood/);
    expect(readOsisFragment('<w lemma="strong:H0430">God</w> <transChange type="added">is</transChange> good<note>n</note>.', 'KJV Gen.1.1')).toEqual({
      text: 'God is good.',
      strongs: ['H430'],
    });
  });
});
