/**
 * The contract every scripture translation follows. A translation says where its text
 * comes from and under what licence, and reads its raw inputs into verses in its own
 * canon order and versification. sources/scripture/dataset.ts turns it into a dataset
 * the generic pipeline builds (packs, keys, search index) like any other.
 */
import type { InputSpec, Provenance, RawInputs } from '../contract.ts';

export interface Verse {
  /** OSIS book id, e.g. "Gen", "1Sam", "Matt", "Tob", "EsthGr" (see books.ts). */
  book: string;
  chapter: number;
  verse: number;
  /** Clean readable text: no markup, notes or headings; single spaces. Empty when the edition omits the verse. */
  text: string;
  /** Strong's numbers the source attaches to words of this verse, in order, e.g. ["H7225", "H1254"]; omitted when none. */
  strongs?: string[];
}

export interface TranslationSource {
  /** URL slug from the spec: kjv, asv, darby, webster, ylt, douay-rheims, geneva, web, oeb, web-catholic, brenton, rv. */
  slug: string;
  abbreviation: string;
  name: string;
  /** BCP 47 language tag of the text. */
  language: string;
  /** Edition/version of the text as its source states it (module version, text date). */
  edition: string;
  /** Versification the verse numbering follows: a SWORD system name or "own" (the edition's own numbering). */
  versification: string;
  provenance: Provenance[];
  inputs: Record<string, InputSpec>;
  /** Pure: the verses of the translation in canon order. Throws naming the file and place on markup it does not understand. */
  read(raw: RawInputs): Verse[];
}

/** A spec slug with no reachable source: listed with the reason, never served. */
export interface UnavailableTranslation {
  slug: string;
  abbreviation: string;
  name: string;
  language: string;
  reason: string;
}
