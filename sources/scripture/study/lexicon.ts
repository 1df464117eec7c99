/**
 * Strong's Hebrew and Greek dictionaries (npm `strongs@1.0.2`, Open Scriptures' JSON of
 * Strong's 1890/1894 dictionaries, CC BY-SA) as a gloss lookup, and a Greek lemma index
 * for linking MorphGNT lemmas (which carry no Strong's number) to an entry.
 *
 * The package ships each dictionary as a JS file `var x = {...}; module.exports = x;`:
 * read as text, the object literal is JSON, so nothing is executed.
 */
import type { Provenance, InputSpec } from '../../contract.ts';

export interface Entry { lemma?: string; strongs_def?: string; kjv_def?: string }
export type Dictionary = Record<string, Entry>;

export const LEXICON_INPUTS: Record<string, InputSpec> = {
  strongsHebrew: { kind: 'npm-file', package: 'strongs', file: 'hebrew/strongs-hebrew-dictionary.js', format: 'text' },
  strongsGreek: { kind: 'npm-file', package: 'strongs', file: 'greek/strongs-greek-dictionary.js', format: 'text' },
};

export const LEXICON_PROVENANCE: Provenance = {
  name: "Strong's Hebrew and Greek dictionaries (npm strongs@1.0.2, Open Scriptures)",
  url: 'https://github.com/openscriptures/strongs',
  licence: { spdx: 'CC-BY-SA-4.0', name: 'Creative Commons Attribution-ShareAlike (Open Scriptures JSON edition)', url: 'https://github.com/openscriptures/strongs' },
  attribution: "Strong's dictionaries (1890, 1894) as JSON by Open Scriptures; Hebrew XML by David Troidl, Greek XML by Ulrik Petersen. CC BY-SA.",
};

export function parseDictionary(js: string, file: string): Dictionary {
  const start = js.indexOf('{'), end = js.lastIndexOf('}');
  if (start < 0 || end < start) throw new Error(`${file}: no object literal`);
  const d = JSON.parse(js.slice(start, end + 1)) as Dictionary;
  if (!Object.keys(d).every((k) => /^[HG]\d+$/.test(k))) throw new Error(`${file}: keys are not Strong's numbers`);
  return d;
}

/** NFC without an iota subscript and without the breathing Strong's puts on a double rho. */
const spelling = (s: string) => s.normalize('NFD').replace(/\u0345/g, '').replace(/ρ[\u0313\u0314]/g, 'ρ').normalize('NFC');
const withoutAccents = (s: string) => s.normalize('NFD').replace(/[\u0300\u0301\u0342]/g, '').normalize('NFC');

export class Lexicon {
  private readonly greekByLemma = new Map<string, string[]>();
  /** Glosses by number: a record asks once per number it carries (1.1 million asks), and each would be a new string. */
  private readonly glosses = new Map<string, string | null>();
  constructor(private readonly dict: Dictionary) {
    for (const [k, e] of Object.entries(dict)) {
      if (k[0] !== 'G' || !e.lemma) continue;
      const l = e.lemma.normalize('NFC');
      (this.greekByLemma.get(l) ?? this.greekByLemma.set(l, []).get(l)!).push(k);
    }
  }
  static from(raw: Record<string, unknown>): Lexicon {
    const d: Dictionary = {};
    for (const name of Object.keys(LEXICON_INPUTS)) {
      if (typeof raw[name] === 'string') Object.assign(d, parseDictionary(raw[name] as string, name));
    }
    return new Lexicon(d);
  }
  has(strong: string) { return Object.hasOwn(this.dict, strong); }
  /** A short English gloss: Strong's definition up to its first semicolon. */
  gloss(strong: string | null): string | null {
    if (!strong) return null;
    let g = this.glosses.get(strong);
    if (g === undefined) this.glosses.set(strong, (g = this.shortGloss(strong)));
    return g;
  }
  private shortGloss(strong: string): string | null {
    const e = this.dict[strong.replace(/[a-z]$/, '')];
    const def = (e?.strongs_def ?? e?.kjv_def)?.trim();
    if (!def) return null;
    const short = def.split(';')[0].trim();
    return short.length > 120 ? `${short.slice(0, 117)}…` : short;
  }
  /** The lexicon's own lemma spelling for a number (the Byzantine files give numbers, not lemmas). */
  lemma(strong: string | null): string | null { return (strong && this.dict[strong]?.lemma) || null; }
  /** Strong's numbers whose Greek lemma is spelled exactly so (NFC). */
  greekLemma(lemma: string): string[] { return this.greekByLemma.get(lemma.normalize('NFC')) ?? []; }
  private spellings?: [Map<string, string[]>, Map<string, string[]>];
  /**
   * Strong's numbers for a Greek lemma spelled exactly so, else spelled so but for the
   * dictionary's own conventions: its 1890 orthography writes ῤῥ for ρρ (βοῤῥᾶς for
   * βορρᾶς) and sometimes drops an iota subscript (ζῶον for ζῷον), and it accents
   * enclitics (μοῦ, μοί, τέ) that a lemma list leaves unaccented. Only lemmas without
   * accents are compared without accents, so ὅρος never meets ὄρος; breathings and
   * capitals always count (Λίβανος, the mountain, is not λίβανος, frankincense).
   */
  greekLemmaVariant(lemma: string): string[] {
    const exact = this.greekLemma(lemma);
    if (exact.length) return exact;
    if (!this.spellings) {
      const bySpelling = new Map<string, string[]>(), unaccented = new Map<string, string[]>();
      for (const [l, nums] of this.greekByLemma) {
        for (const [m, k] of [[bySpelling, spelling(l)], [unaccented, withoutAccents(spelling(l))]] as const) {
          (m.get(k) ?? m.set(k, []).get(k)!).push(...nums);
        }
      }
      this.spellings = [bySpelling, unaccented];
    }
    const s = spelling(lemma.normalize('NFC'));
    const hits = this.spellings[0].get(s);
    if (hits) return hits;
    return s === withoutAccents(s) ? this.spellings[1].get(s) ?? [] : [];
  }
  get size() { return Object.keys(this.dict).length; }
}
