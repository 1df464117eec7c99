/** What every study layer module provides (one module per layer, like sources/contract.ts for datasets). */
import type { InputSpec, Provenance } from '../../contract.ts';
import type { Lexicon } from './lexicon.ts';
import type { Ref } from './versification.ts';
import type { TokenTuple } from './tokens.ts';

export const SOURCE_ROLES = ['Original Language', 'Greek Tradition', 'Latin Tradition', 'Aramaic/Syriac Tradition', 'Generated Alignment'] as const;
export type SourceRole = (typeof SOURCE_ROLES)[number];

export interface LayerMeta {
  id: string;
  name: string;
  /** BCP 47 / ISO 639-3 language: hbo, arc, grc, la, syc, en. */
  language: string;
  role: SourceRole;
  kind: string;
  version: string;
  /** Canon groups the layer covers (old, new, apocrypha). */
  canon: string[];
  /** True when this project's rules produced the tokens (English alignment). */
  generated: boolean;
  provenance: Provenance[];
  /** Numbering of the layer's own references, as served: WLC, Vulg, KJV, NA… */
  versification: string;
  /** The numbering table that places its verses under KJV study keys (versification/numbering.ts), when not `versification` itself. */
  numbering?: string;
  /** What a reader must know about the layer's tokens that its kind does not say (the Septuagint: lemmas only, and why). */
  note?: string;
}

export interface LayerVerse {
  layer: string;
  ref: Ref;
  /** The layer's own reference when its numbers alone cannot say it (the Septuagint's `1kgs.2.35a`, `jer.7.27-28`); else `ref`'s. */
  label?: string;
  tokens: (TokenTuple | string)[];
  /** Glosses the tokens refer to by key (Latin: `la:<dictionary line>` → Whitaker's meaning), merged into the record's. */
  glosses?: Record<string, string>;
}

export interface StudyLayer {
  /** The layers this module produces (OSHB: Hebrew and Aramaic). */
  layers: LayerMeta[];
  inputs: Record<string, InputSpec>;
  /** Pure. Returns null when its inputs are missing (layer absent with `missingReason`). */
  read(raw: Record<string, unknown>, lexicon: Lexicon, context: ReadContext): LayerVerse[] | null;
}

export interface ReadContext {
  /** Source tokens (OSHB, Byzantine) by study key, for the English alignment; filled in order. */
  sourceTokens: Map<string, { layer: string; ref: string; tokens: TokenTuple[] }[]>;
  studyKeys(system: string, ref: Ref): string[];
  /**
   * Why a layer has no verse where its translation has one (the ASV module's Exod 8:29
   * carries no Strong's markup): the placement check gives it as the reason a KJV verse
   * is uncovered, instead of leaving it unexplained (issue 36).
   */
  untagged?(layer: string, system: string, ref: Ref, reason: string): void;
}

/** Layers no free, reachable source exists for: listed with the reason, never served. */
export interface AbsentLayer { id: string; name: string; language: string; role: SourceRole; kind: string; canon: string[]; reason: string }

export const ABSENT_LAYERS: AbsentLayer[] = [
  { id: 'targums', name: 'Aramaic targums', language: 'arc', role: 'Aramaic/Syriac Tradition', kind: 'Aramaic targums', canon: ['old'],
    reason: 'No freely licensed copy exists: the only complete digital targums (CAL, Hebrew Union College) are licensed for non-commercial use only, '
      + 'which a service sold on paid plans cannot serve.' },
  { id: 'peshitta-ot', name: 'Syriac Peshitta Old Testament', language: 'syc', role: 'Aramaic/Syriac Tradition', kind: 'Syriac Old Testament', canon: ['old', 'apocrypha'],
    reason: 'No freely licensed copy exists: the only digital Peshitta Old Testament (Leiden/ETCBC) is CC BY-NC, non-commercial, which a service '
      + 'sold on paid plans cannot serve; the CrossWire Peshitta module (served) holds the New Testament only.' },
  { id: 'editorial-notes', name: 'Editorial alignment notes (English)', language: 'en', role: 'Generated Alignment', kind: 'editorial alignment notes', canon: ['old', 'new', 'apocrypha'],
    reason: 'No freely licensed editorial notes for Hebrew/Aramaic, Greek, Latin, Syriac or targum alignment were found; this project does not write its own.' },
];
