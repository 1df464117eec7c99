/**
 * The Revised Version (issue 37, item 4): the reader of the Free Use Bible API's JSON on
 * files of the real copy (test/fixtures/helloao-rv/README.md), and, with the mirror, the
 * whole translation checked against its own counts and against the KJV verse by verse:
 * the numbering table (versification/maps/rv.json) must put every verse under the KJV
 * verse whose words it shares, which fails at once if a verse were under the wrong number.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readHelloAoBooks, readHelloAoChapter } from '../sources/readers/helloao.ts';
import rv, { RV_BASE, RV_COPY_BASE, RV_PINS, readRv } from '../sources/scripture/rv.ts';
import kjv from '../sources/scripture/kjv.ts';
import { translationDataset } from '../sources/scripture/dataset.ts';
import { kjvKeys } from '../sources/scripture/versification/numbering.ts';
import { dice, words } from '../sources/scripture/versification/verse-align.ts';
import { resolveInputs, sha256 } from '../pipeline/inputs.ts';
import { mirrorLocation } from '../pipeline/paths.ts';
import { MIRROR_ROOT, NEEDS_MIRROR } from './helpers.ts';

const dir = new URL('./fixtures/helloao-rv/', import.meta.url);
const json = (file: string) => JSON.parse(fs.readFileSync(new URL(file, dir), 'utf8'));
const T = 'eng_rv5';

describe('the Free Use Bible API reader', () => {
  it('reads a chapter: verse parts and poetry lines joined by a space, the psalm title left out', () => {
    const ch = readHelloAoChapter(json('PSA/3.json'), 'PSA/3.json', T);
    expect(ch).toMatchObject({ book: 'PSA', number: 3, headings: 1 });
    expect(ch.verses).toHaveLength(8);
    expect(ch.verses[0]).toEqual({ number: 1, text: 'LORD, how are mine adversaries increased! many are they that rise up against me.' });
    expect(ch.verses.every((v) => v.text === v.text.trim() && !/\s{2}/.test(v.text))).toBe(true);
    expect(ch.verses.map((v) => v.text).join(' ')).not.toContain('A Psalm of David');
  });

  it('leaves headings out (Psalm 119\'s letters) and keeps a verse the RV puts in the margin, empty', () => {
    const ps = readHelloAoChapter(json('PSA/119.json'), 'PSA/119.json', T);
    expect(ps).toMatchObject({ headings: 2 });
    expect(ps.verses.map((v) => v.number)).toEqual(Array.from({ length: 16 }, (_, i) => i + 1));
    expect(ps.verses.some((v) => /ALEPH|BETH/.test(v.text))).toBe(false);
    const acts = readHelloAoChapter(json('ACT/8.json'), 'ACT/8.json', T);
    expect(acts.verses[36]).toEqual({ number: 37, text: '' });
    expect(acts.verses).toHaveLength(40);
  });

  it('refuses another translation, verses out of order, a count that differs from the file\'s, and parts it does not know', () => {
    expect(() => readHelloAoChapter(json('OBA/1.json'), 'OBA/1.json', 'eng_kjv')).toThrow(/OBA\/1\.json: field translation\.id: unexpected "eng_rv5"/);
    const skip = json('OBA/1.json');
    skip.chapter.content.splice(2, 1);
    expect(() => readHelloAoChapter(skip, 'OBA/1.json', T)).toThrow(/field number \(after verse 2\): unexpected 4/);
    const count = json('3JN/1.json');
    count.numberOfVerses = 15;
    expect(() => readHelloAoChapter(count, '3JN/1.json', T)).toThrow(/field numberOfVerses \(the file holds 14\): unexpected 15/);
    const odd = json('3JN/1.json');
    odd.chapter.content[0].content.push({ wordsOfJesus: true, text: 'x' });
    expect(() => readHelloAoChapter(odd, '3JN/1.json', T)).toThrow(/chapter\.content\[\d+\] \(verse 1\): field content\[1\]/);
    const block = json('3JN/1.json');
    block.chapter.content.push({ type: 'table' });
    expect(() => readHelloAoChapter(block, '3JN/1.json', T)).toThrow(/field type: unexpected "table"/);
  });

  it('reads books.json: the books in order with their chapter and verse counts', () => {
    expect(readHelloAoBooks(json('books.json'), 'books.json', T)).toEqual([
      { id: 'OBA', order: 1, chapters: 1, verses: 21 }, { id: '3JN', order: 2, chapters: 1, verses: 14 },
    ]);
  });
});

describe('the rv translation', () => {
  const raw = () => ({ 'books.json': json('books.json'), 'OBA/1.json': json('OBA/1.json'), '3JN/1.json': json('3JN/1.json') });

  it('declares every file from HelloAO first, its copy as the fallback, each pinned', () => {
    expect(Object.keys(rv.inputs)).toHaveLength(1190);
    expect(rv.inputs['JHN/3.json']).toEqual({ kind: 'url', url: `${RV_BASE}JHN/3.json`, sha256: RV_PINS['JHN/3.json'], format: 'json', copies: [`${RV_COPY_BASE}JHN/3.json`] });
    expect(RV_BASE).toBe('https://bible.helloao.org/api/eng_rv5/');
    expect(rv.provenance[0].licence.name).toBe('Public Domain');
  });

  it('reads the books in books.json\'s order into OSIS-keyed verses', () => {
    const verses = readRv(raw());
    expect(verses).toHaveLength(21 + 14);
    expect(verses[0]).toMatchObject({ book: 'Obad', chapter: 1, verse: 1 });
    expect(verses[21]).toMatchObject({ book: '3John', chapter: 1, verse: 1 });
    expect(translationDataset(rv).normalise(raw()).map((v) => v.id).slice(20, 22)).toEqual(['obad.1.21', '3john.1.1']);
  });

  it('fails when a chapter is missing or a book\'s verses differ from books.json', () => {
    const missing = raw() as Record<string, unknown>;
    delete missing['3JN/1.json'];
    expect(() => readRv(missing)).toThrow(/rv: https:\/\/bible\.helloao\.org\/api\/eng_rv5\/3JN\/1\.json missing from the raw inputs/);
    const books = json('books.json');
    books.books[1].totalNumberOfVerses = 15;
    expect(() => readRv({ ...raw(), 'books.json': books })).toThrow(/rv: 3JN has 14 verses in its chapters, books\.json says 15/);
  });
});

describe.skipIf(!MIRROR_ROOT)(`the whole rv against its counts and the KJV ${NEEDS_MIRROR}`, () => {
  const read = () => Object.fromEntries(Object.entries(RV_PINS).map(([file, pin]) => {
    const buf = fs.readFileSync(mirrorLocation(RV_COPY_BASE + file, MIRROR_ROOT!));
    if (sha256(buf) !== pin) throw new Error(`${file}: not the pinned bytes`);
    return [file, JSON.parse(buf.toString('utf8'))];
  }));

  it('has the 31,102 verses books.json counts, the KJV\'s references exactly; placed by its table, each shares its words with the KJV verse it is under', async () => {
    const raw = read();
    expect(raw['books.json'].translation.totalNumberOfVerses).toBe(31_102);
    const records = translationDataset(rv).normalise(raw);
    expect(records).toHaveLength(31_102);
    const k = translationDataset(kjv);
    const kjvVerses = k.normalise((await resolveInputs(k)).raw);
    expect(records.map((r) => r.id).sort()).toEqual(kjvVerses.map((r) => r.id).sort());
    // 16 verses the RV moves to the margin (Matt 17:21, Acts 8:37 …): numbered, empty.
    expect(records.filter((r) => r.text === '').map((r) => r.id)).toEqual([
      'matt.17.21', 'matt.18.11', 'matt.23.14', 'mark.7.16', 'mark.9.44', 'mark.9.46', 'mark.11.26', 'mark.15.28',
      'luke.17.36', 'luke.23.17', 'john.5.4', 'acts.8.37', 'acts.15.34', 'acts.24.7', 'acts.28.29', 'rom.16.24',
    ]);
    // The table moves only what the text moves: Phil 1:16–17 in the critical order, and 1 John 5:7
    // (the RV has no Comma Johanneum: its verse 7 is the end of the KJV's verse 6).
    expect(records.filter((r) => kjvKeys('rv', r.id).join() !== r.id).map((r) => `${r.id}→${kjvKeys('rv', r.id).join()}`))
      .toEqual(['phil.1.16→phil.1.17', 'phil.1.17→phil.1.16', '1john.5.7→1john.5.6']);
    // Every verse with text against the KJV verse it is placed under and that verse's neighbours.
    const kw = new Map(kjvVerses.map((v) => [v.id, words(v.text)]));
    const scores: number[] = [];
    const beaten: string[] = [];
    for (const r of records) {
      if (!r.text) continue;
      const w = words(r.text);
      const under = kjvKeys('rv', r.id);
      const own = Math.max(...under.map((u) => dice(w, kw.get(u)!)));
      const [b, c, n] = r.id.split('.');
      const near = [+n - 1, +n + 1].map((x) => `${b}.${c}.${x}`).filter((x) => kw.has(x) && !under.includes(x));
      const rival = Math.max(0, ...near.map((x) => dice(w, kw.get(x)!)));
      scores.push(own);
      // A verse under the wrong number shares far fewer words with it than with the right one
      // (Phil 1:16 without the table: 0.13 against 0.83); rewordings move a score a little.
      if (rival > own + 0.25) beaten.push(`${r.id} ${own.toFixed(2)} < ${rival.toFixed(2)}`);
    }
    scores.sort((a, b) => a - b);
    expect(scores).toHaveLength(31_086);
    expect(beaten).toEqual([]);
    expect(scores[scores.length >> 1]).toBeGreaterThan(0.9);
  }, 120_000);
});
