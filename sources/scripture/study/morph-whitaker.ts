/**
 * Decodes Whitaker's WORDS inflection codes (the columns after the stem on an inflection
 * line, e.g. "N 2 4 ABL S N", "V 1 1 PRES ACTIVE IND 1 S", "VPAR 3 1 NOM S M PERF
 * PASSIVE PPL") into the same named parts as the Hebrew and Greek decoders.
 * Reference: Whitaker's WORDS documentation (inflection line layout per part of
 * speech). "X" in any column means "not stated" and is left out; unknown values throw
 * naming the code, as the other decoders do.
 */
import type { Features } from './morph-oshb.ts';

const PART: Record<string, string> = {
  N: 'noun', PRON: 'pronoun', ADJ: 'adjective', NUM: 'numeral', V: 'verb', VPAR: 'participle', SUPINE: 'supine',
  ADV: 'adverb', PREP: 'preposition', CONJ: 'conjunction', INTERJ: 'interjection', X: 'unknown', PACK: 'pronoun with enclitic',
};
const CASE: Record<string, string> = { NOM: 'nominative', GEN: 'genitive', DAT: 'dative', ACC: 'accusative', ABL: 'ablative', VOC: 'vocative', LOC: 'locative' };
const NUMBER: Record<string, string> = { S: 'singular', P: 'plural' };
const GENDER: Record<string, string> = { M: 'masculine', F: 'feminine', N: 'neuter', C: 'common' };
const TENSE: Record<string, string> = { PRES: 'present', IMPF: 'imperfect', FUT: 'future', PERF: 'perfect', PLUP: 'pluperfect', FUTP: 'future perfect' };
const VOICE: Record<string, string> = { ACTIVE: 'active', PASSIVE: 'passive' };
const MOOD: Record<string, string> = { IND: 'indicative', SUB: 'subjunctive', IMP: 'imperative', INF: 'infinitive', PPL: 'participle' };
const PERSON: Record<string, string> = { '0': '', '1': 'first', '2': 'second', '3': 'third' };
const DEGREE: Record<string, string> = { POS: 'positive', COMP: 'comparative', SUPER: 'superlative' };
const NUMERAL: Record<string, string> = { CARD: 'cardinal', ORD: 'ordinal', DIST: 'distributive', ADVERB: 'numeral adverb' };
const ORDINAL = ['', '1st', '2nd', '3rd', '4th', '5th'];

/** Which named part each column after the part of speech is. */
const LAYOUT: Record<string, [string, Record<string, string> | null][]> = {
  N: [['declension', null], ['variant', null], ['case', CASE], ['number', NUMBER], ['gender', GENDER]],
  PRON: [['declension', null], ['variant', null], ['case', CASE], ['number', NUMBER], ['gender', GENDER]],
  SUPINE: [['conjugation', null], ['variant', null], ['case', CASE], ['number', NUMBER], ['gender', GENDER]],
  ADJ: [['declension', null], ['variant', null], ['case', CASE], ['number', NUMBER], ['gender', GENDER], ['degree', DEGREE]],
  NUM: [['declension', null], ['variant', null], ['case', CASE], ['number', NUMBER], ['gender', GENDER], ['numeral_type', NUMERAL]],
  V: [['conjugation', null], ['variant', null], ['tense', TENSE], ['voice', VOICE], ['mood', MOOD], ['person', PERSON], ['number', NUMBER]],
  VPAR: [['conjugation', null], ['variant', null], ['case', CASE], ['number', NUMBER], ['gender', GENDER], ['tense', TENSE], ['voice', VOICE], ['mood', MOOD]],
  ADV: [['degree', DEGREE]],
  PREP: [['case', CASE]],
  CONJ: [], INTERJ: [], X: [], PACK: [['declension', null], ['variant', null], ['case', CASE], ['number', NUMBER], ['gender', GENDER]],
};

export function decodeWhitaker(code: string): Features {
  const [head, ...cols] = code.split(' ');
  const layout = LAYOUT[head];
  if (!layout) throw new Error(`Whitaker code '${code}': unknown part of speech '${head}'`);
  const out: Features = { part_of_speech: PART[head] };
  if (cols.length > layout.length) throw new Error(`Whitaker code '${code}': ${cols.length} columns, ${head} has ${layout.length}`);
  let i = 0;
  for (const v of cols) {
    // Deponent verbs leave the voice column blank (`VPAR … PERF PPL`): skip to the mood.
    if (layout[i]?.[0] === 'voice' && !VOICE[v] && v !== 'X') i++;
    const [name, table] = layout[i++];
    if (v === 'X') continue;
    if (!table) {
      // Declension/conjugation number: 1–5 are the classical ones; higher are Whitaker's own groups (irregular, indeclinable…).
      if (name !== 'variant' && ORDINAL[Number(v)]) out[name] = ORDINAL[Number(v)];
      continue;
    }
    const named = table[v];
    if (named === undefined) throw new Error(`Whitaker code '${code}': unknown ${name} '${v}'`);
    if (named) out[name] = named;
  }
  return out;
}
