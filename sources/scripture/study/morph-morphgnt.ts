/**
 * Decodes MorphGNT's part-of-speech and CCAT-style parse codes (README of
 * morphgnt/sblgnt): part of speech is two characters ("N-", "V-", "RA"), the parse code
 * eight positions, "-" where a position does not apply:
 *   person, tense, voice, mood, case, number, gender, degree.
 * e.g. "V-" "3IAI-S--" = third person imperfect active indicative singular.
 */
import type { Features } from './morph-oshb.ts';

const POS: Record<string, string> = {
  'A-': 'adjective', 'C-': 'conjunction', 'D-': 'adverb', 'I-': 'interjection', 'N-': 'noun', 'P-': 'preposition',
  RA: 'definite article', RD: 'demonstrative pronoun', RI: 'interrogative or indefinite pronoun', RP: 'personal pronoun',
  RR: 'relative pronoun', 'V-': 'verb', 'X-': 'particle',
};
const POSITIONS: [string, Record<string, string>][] = [
  ['person', { '1': 'first', '2': 'second', '3': 'third' }],
  ['tense', { P: 'present', I: 'imperfect', F: 'future', A: 'aorist', X: 'perfect', Y: 'pluperfect' }],
  ['voice', { A: 'active', M: 'middle', P: 'passive' }],
  ['mood', { I: 'indicative', D: 'imperative', S: 'subjunctive', O: 'optative', N: 'infinitive', P: 'participle' }],
  ['case', { N: 'nominative', G: 'genitive', D: 'dative', A: 'accusative', V: 'vocative' }],
  ['number', { S: 'singular', P: 'plural' }],
  ['gender', { M: 'masculine', F: 'feminine', N: 'neuter' }],
  ['degree', { C: 'comparative', S: 'superlative' }],
];

export function decodeMorphGnt(pos: string, parse: string): Features {
  const p = POS[pos];
  if (!p) throw new Error(`MorphGNT part of speech '${pos}' is unknown`);
  if (parse.length !== 8) throw new Error(`MorphGNT parse code '${parse}' is not 8 positions`);
  const out: Features = { part_of_speech: p };
  POSITIONS.forEach(([name, table], i) => {
    const ch = parse[i];
    if (ch === '-') return;
    const v = table[ch];
    if (v === undefined) throw new Error(`MorphGNT parse code '${parse}': unknown ${name} '${ch}'`);
    out[name] = v;
  });
  return out;
}
