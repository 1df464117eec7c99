/**
 * Six public-domain English Bibles from CrossWire SWORD zText modules (rawzip packages,
 * one pinned zip each): ASV, Darby, Webster, YLT, Douay-Rheims (DRC) and Geneva 1599.
 *
 * What is static here (name, edition, versification, licence) is copied from each
 * module's mods.d/*.conf and checked against the conf again at read time, so a changed
 * upstream zip fails the build instead of shipping under stale metadata.
 *
 * Verse rules, shared by all six:
 * - A verse slot with zero bytes in the module is "not in this edition" and is omitted
 *   (DRC: the Vulg-only books 1–2 Esdras, Prayer of Manasseh, Psalm 151, Laodiceans,
 *   plus 12 slots where the edition divides verses differently; Darby: Matt 23:14,
 *   Acts 8:37, 15:34; Geneva1599: 40 slots, see below).
 * - A slot holding only markup (ASV: 16 NT verses whose entry is just a footnote such as
 *   "Many authorities … insert v. 21") is kept with text "", as the contract asks.
 * - Text and Strong's come from sources/readers/sword-markup.ts (notes, headings,
 *   psalm superscriptions marked as <title> and epistle subscriptions are dropped).
 *
 * Per-module quirks are on the module entries below.
 */
import type { Provenance } from '../contract.ts';
import type { TranslationSource, Verse } from './contract.ts';
import type { SystemName } from './books.ts';
import { readSwordModule } from '../readers/sword.ts';
import { cleanVerse, type Markup } from '../readers/sword-markup.ts';

const RAWZIP = 'https://www.crosswire.org/ftpmirror/pub/sword/packages/rawzip/';

interface ModuleSpec {
  slug: string;
  /** SWORD module name: the conf's [section] and the zip's file name. */
  module: string;
  abbreviation: string;
  sha256: string;
  /** The conf's Description, Version, SwordVersionDate, Versification, as checked at read. */
  description: string;
  version: string;
  date: string;
  versification: SystemName;
  /** Markup the verse text is in, when it differs from the conf's SourceType. */
  markup?: Markup;
  /** Square brackets mark the print's italics (supplied words): drop them, keep the words. */
  italicBrackets?: boolean;
  /** A reading-text normalisation of the cleaned verse, and what it does (appended to the edition string). */
  normalise?: { apply: (text: string) => string; says: string };
}

/** YLT: the module leaves a space where an italic span met punctuation ("where thou art ,"): 658 verses. */
const YLT_PUNCTUATION = { apply: (t: string) => t.replace(/\s+([,.;:?!])/g, '$1'), says: 'spaces before punctuation (658 verses) removed' };
/**
 * ASV: the 1901 print sets Selah (and Higgaion. Selah, Ps 9:16) apart with an opening
 * bracket it never closes; in running text that reads as a stray "[" (76 places in 73
 * psalm verses ending in it, two mid-verse). The bracket goes, the word stays. The matched
 * brackets of John 7:53–8:11 are the print's own and stay.
 */
const ASV_SELAH = { apply: (t: string) => t.replace(/\[(?=(?:Higgaion\. )?Selah\b)/g, ''), says: 'the unmatched "[" before Selah removed' };

const MODULES: ModuleSpec[] = [
  // OSIS with Strong's on <w lemma>; <transChange> edges lost their spaces in this build
  // (the cleaner restores them). "[Selah" with one bracket is the 1901 print's own (see ASV_SELAH).
  { slug: 'asv', module: 'ASV', abbreviation: 'ASV', sha256: '8f3d708510f7122a947a1c3eaa775a03c8ef5b1d456833abf506b78e689fcf18',
    description: 'American Standard Version (1901)', version: '2.0', date: '2021-02-18', versification: 'KJV', normalise: ASV_SELAH },
  // OSIS with Strong's and ~4,300 footnotes (dropped). Square brackets and the asterisks
  // in Ps 119 ("thy *word") are Darby's own printed marks and stay.
  { slug: 'darby', module: 'Darby', abbreviation: 'Darby', sha256: '5b9a8041f75a6189fc2d8cbe5f25204ff0d5cd237d7e1c842f2963fc7d04ab75',
    description: 'Darby Bible (1889)', version: '2.0', date: '2020-12-21', versification: 'KJV' },
  // No SourceType (Plaintext) and no markup; [brackets] are the KJV-style italics of the
  // electronic text (21,352 spans; 1 John 2:23 nests them), removed as for the KJV.
  { slug: 'webster', module: 'Webster', abbreviation: 'Webster', sha256: '57644076c5e060adee8dc2481e4cce26ad891464e4b2ef47bc7f688a0da87c3b',
    description: 'Webster Bible', version: '1.2', date: '2003-05-08', versification: 'KJV', italicBrackets: true },
  // GBF: only <FI>…<Fi> (italics, text kept) and <CM> (paragraph); no Strong's. The text
  // opens quotations with a backtick (`…'), as the electronic edition does: kept as is.
  { slug: 'ylt', module: 'YLT', abbreviation: 'YLT', sha256: 'd29610d52efb1979e106dfc21337e8f331e5d421c20836a183ea8656684e0892',
    description: "Young's Literal Translation (1898)", version: '1.1', date: '2006-10-25', versification: 'KJV', normalise: YLT_PUNCTUATION },
  // The conf has no SourceType (Plaintext), but osis2mod left OSIS <chapter>/<div>
  // milestones in the verses, so it is read as OSIS. Vulg versification, 73 books.
  { slug: 'douay-rheims', module: 'DRC', abbreviation: 'DRA', sha256: '1a7a01a07c6e15d66037aaf97a01877638cc8ba78b8369c39897d979a1bc83fe',
    description: 'Douay-Rheims Bible, Challoner Revision', version: '2.0', date: '2009-10-24', versification: 'Vulg', markup: 'OSIS' },
  // OSIS, NRSV versification. The source text follows a Hebrew-like division in places
  // (e.g. Num 12:16 → 13:1, Job 40:25–32): the module appends such overflow verses to a
  // chapter's last verse and leaves the slots they would fill empty (40 slots). We keep
  // the module's numbering rather than guess a remapping. <closer> subscriptions dropped.
  { slug: 'geneva', module: 'Geneva1599', abbreviation: 'Geneva', sha256: '8eac71cd05fd8decced99609833cc492fa63fcaf957c1580f5b526ed7c08446c',
    description: 'Geneva Bible (1599)', version: '2.0', date: '2012-08-30', versification: 'NRSV' },
];

function provenance(m: ModuleSpec): Provenance {
  const page = `https://www.crosswire.org/sword/modules/ModInfo.jsp?modName=${m.module}`;
  return {
    name: `CrossWire SWORD module ${m.module} ${m.version}`,
    url: page,
    // Same identifier as the other public-domain translations (kjv.ts, web.ts).
    licence: { spdx: 'LicenseRef-Public-Domain', name: 'Public Domain', url: page },
    attribution: `${m.description}, public domain. Text from the CrossWire Bible Society SWORD module ${m.module} ${m.version} (${m.date}).`,
  };
}

function reader(m: ModuleSpec) {
  return function read(raw: Record<string, unknown>): Verse[] {
    const zip = raw.module;
    const file = `${m.module}.zip`;
    if (!(zip instanceof Uint8Array)) throw new Error(`${file}: expected the zip as a Buffer`);
    const mod = readSwordModule(zip, file);
    const c = mod.conf;
    const expect: [string, string | undefined, string][] = [
      ['module', c.module, m.module],
      ['Description', c.description, m.description],
      ['Version', c.version, m.version],
      ['SwordVersionDate', c.swordVersionDate, m.date],
      ['Versification', c.versification, m.versification],
      ['DistributionLicense', c.distributionLicense, 'Public Domain'],
    ];
    for (const [key, got, want] of expect) {
      if (got !== want) throw new Error(`${file}: conf ${key} is '${got}', expected '${want}'`);
    }
    const markup = m.markup ?? (c.sourceType as Markup);
    const out: Verse[] = [];
    for (const v of mod.verses()) {
      if (!v.raw) continue; // zero bytes: not in this edition
      const where = `${file} ${v.book} ${v.chapter}:${v.verse}`;
      const clean = cleanVerse(v.raw, markup, where);
      let text = clean.text;
      if (m.italicBrackets) text = text.replace(/[[\]]/g, '').replace(/\s+/g, ' ').trim();
      if (m.normalise) text = m.normalise.apply(text);
      const verse: Verse = { book: v.book, chapter: v.chapter, verse: v.verse, text };
      if (clean.strongs.length) verse.strongs = clean.strongs;
      out.push(verse);
    }
    return out;
  };
}

export const SWORD_TRANSLATIONS: TranslationSource[] = MODULES.map((m) => ({
  slug: m.slug,
  abbreviation: m.abbreviation,
  name: m.description,
  language: 'en',
  edition: `CrossWire SWORD module ${m.module} version ${m.version} (${m.date})${m.normalise ? `; normalised: ${m.normalise.says}` : ''}`,
  versification: m.versification,
  provenance: [provenance(m)],
  inputs: { module: { kind: 'url', url: `${RAWZIP}${m.module}.zip`, sha256: m.sha256, format: 'buffer' } },
  read: reader(m),
}));

export default SWORD_TRANSLATIONS;
