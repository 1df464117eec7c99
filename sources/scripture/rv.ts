/**
 * rv: the English Revised Version (New Testament 1881, Old Testament 1885), as the Free Use
 * Bible API (HelloAO) generates it from eBible.org's eng-rv: `eng_rv5`, one JSON file per
 * chapter plus books.json (sources/readers/helloao.ts reads them). 66 books, 1,189
 * chapters, 31,102 verses; HelloAO names it "Revised Version with Apocrypha (1895)", but
 * the copy known here has no Apocrypha.
 *
 * Inputs: every file from the publisher (https://bible.helloao.org/api/eng_rv5/…) first,
 * then from its copy in Uniqwrites1/bible-reader at 5400df82…, which the upstream mirror
 * holds; each pinned by sha256 (helloao-rv.json: 1,190 files, equal to the mirror's own
 * checksums). HelloAO regenerates its API now and then: bytes that differ from a pin are
 * reported by the fetch and the copy stands in.
 *
 * Text: headings (Psalm 119's letters), psalm titles (116 `hebrew_subtitle` blocks) and
 * footnotes are left out, as for the KJV; 16 New Testament verses the RV moves to the
 * margin (Matt 17:21, Acts 8:37, …) are numbered with text "". Versification: the KJV's
 * verse for verse (same 31,102 references); the numbering table
 * (versification/maps/rv.json) is made from the text like every other translation's.
 */
import type { InputSpec } from '../contract.ts';
import type { TranslationSource, Verse } from './contract.ts';
import { readHelloAoBooks, readHelloAoChapter } from '../readers/helloao.ts';
import { USFM_TO_OSIS } from '../readers/usfm.ts';
import PINS from './helloao-rv.json' with { type: 'json' };

const TRANSLATION = 'eng_rv5';
export const RV_BASE = `https://bible.helloao.org/api/${TRANSLATION}/`;
export const RV_COPY_BASE = `https://raw.githubusercontent.com/Uniqwrites1/bible-reader/5400df82aab004b610dae5a2a08fb8c9d7a20d0a/public/api/${TRANSLATION}/`;
/** File (books.json, GEN/1.json …) → sha256, in book and chapter order. */
export const RV_PINS: Readonly<Record<string, string>> = PINS;

const inputs: Record<string, InputSpec> = Object.fromEntries(Object.entries(RV_PINS).map(([file, sha256]) => [
  file, { kind: 'url', url: RV_BASE + file, sha256, format: 'json', copies: [RV_COPY_BASE + file] },
]));

/** Every verse, in books.json's order; a book or chapter missing from the inputs, or counts that disagree, throw. */
export function readRv(raw: Record<string, unknown>): Verse[] {
  const books = readHelloAoBooks(raw['books.json'], `${RV_BASE}books.json`, TRANSLATION);
  const out: Verse[] = [];
  for (const b of books) {
    const osis = USFM_TO_OSIS[b.id] ?? (() => { throw new Error(`rv: books.json: unknown book code ${b.id}`); })();
    let verses = 0;
    for (let n = 1; n <= b.chapters; n++) {
      const file = `${b.id}/${n}.json`;
      if (raw[file] === undefined) throw new Error(`rv: ${RV_BASE}${file} missing from the raw inputs`);
      const ch = readHelloAoChapter(raw[file], RV_BASE + file, TRANSLATION);
      if (ch.book !== b.id || ch.number !== n) throw new Error(`rv: ${RV_BASE}${file} holds ${ch.book} ${ch.number}`);
      for (const v of ch.verses) out.push({ book: osis, chapter: n, verse: v.number, text: v.text });
      verses += ch.verses.length;
    }
    if (verses !== b.verses) throw new Error(`rv: ${b.id} has ${verses} verses in its chapters, books.json says ${b.verses}`);
  }
  return out;
}

const rv: TranslationSource = {
  slug: 'rv',
  abbreviation: 'RV',
  name: 'Revised Version',
  language: 'en',
  edition: 'English Revised Version, New Testament 1881, Old Testament 1885, without the Apocrypha (eBible.org eng-rv as the '
    + 'Free Use Bible API eng_rv5 generated it); psalm titles, headings and footnotes left out',
  versification: 'KJV',
  provenance: [{
    name: 'English Revised Version (eBible.org eng-rv), as the Free Use Bible API (bible.helloao.org) JSON',
    url: 'https://ebible.org/Scriptures/details.php?id=eng-rv',
    licence: { spdx: 'LicenseRef-Public-Domain', name: 'Public Domain', url: 'https://ebible.org/Scriptures/details.php?id=eng-rv' },
    attribution: 'The English Revised Version (1881 New Testament, 1885 Old Testament), in the Public Domain; electronic text '
      + 'by eBible.org (https://eBible.org), in the JSON of the Free Use Bible API by HelloAO (https://bible.helloao.org, free to use). '
      + 'Files as copied in Uniqwrites1/bible-reader at commit 5400df82aab004b610dae5a2a08fb8c9d7a20d0a. Psalm titles, headings and '
      + 'footnotes are left out; the verse text is unchanged.',
  }],
  inputs,
  read: readRv,
};

export default rv;
