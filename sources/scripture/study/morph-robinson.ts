/**
 * Decodes Robinson's Greek parsing codes as the Byzantine (Robinson–Pierpont) files use
 * them, e.g. "N-DSF", "V-IAI-3S", "V-2ADI-3S", "P-1GP", "S-1SNSM", "CONJ-N".
 * Reference: Maurice A. Robinson's parsing code list, as distributed with the byztxt
 * repository and used by BibleWorks/Online Bible. Unknown letters throw naming the code.
 */
import type { Features } from './morph-oshb.ts';

const CASE: Record<string, string> = { N: 'nominative', G: 'genitive', D: 'dative', A: 'accusative', V: 'vocative' };
const NUMBER: Record<string, string> = { S: 'singular', P: 'plural' };
const GENDER: Record<string, string> = { M: 'masculine', F: 'feminine', N: 'neuter' };
const PERSON: Record<string, string> = { '1': 'first', '2': 'second', '3': 'third' };
const TENSE: Record<string, string> = { P: 'present', I: 'imperfect', F: 'future', A: 'aorist', R: 'perfect', L: 'pluperfect', X: 'no tense stated' };
const VOICE: Record<string, string> = {
  A: 'active', M: 'middle', P: 'passive', E: 'middle or passive', D: 'middle deponent', O: 'passive deponent',
  N: 'middle or passive deponent', Q: 'impersonal active', X: 'no voice stated',
};
const MOOD: Record<string, string> = {
  I: 'indicative', S: 'subjunctive', O: 'optative', M: 'imperative', N: 'infinitive', P: 'participle', R: 'imperative participle',
};
const DECLINED: Record<string, string> = {
  N: 'noun', A: 'adjective', T: 'article', P: 'personal pronoun', R: 'relative pronoun', C: 'reciprocal pronoun',
  D: 'demonstrative pronoun', K: 'correlative pronoun', I: 'interrogative pronoun', X: 'indefinite pronoun',
  Q: 'correlative or interrogative pronoun', F: 'reflexive pronoun', S: 'possessive pronoun',
};
const INDECLINABLE: Record<string, string> = {
  ADV: 'adverb', CONJ: 'conjunction', COND: 'conditional particle', PRT: 'particle', PREP: 'preposition', INJ: 'interjection',
  ARAM: 'Aramaic word', HEB: 'Hebrew word',
};
const SUFFIX: Record<string, string> = {
  N: 'negative', I: 'interrogative', S: 'superlative', C: 'comparative', K: 'crasis', ATT: 'Attic form', ABB: 'abbreviated',
  LI: 'letter (indeclinable)', OI: 'other indeclinable', PRI: 'proper indeclinable', NUI: 'numeral indeclinable',
  P: 'particle attached', M: 'middle significance', L: 'letter',
};

function pick(code: string, table: Record<string, string>, ch: string | undefined, name: string, out: Features) {
  if (ch === undefined || ch === '') return;
  const v = table[ch];
  if (v === undefined) throw new Error(`Robinson code '${code}': unknown ${name} '${ch}'`);
  out[name] = v;
}

/** Case, number, gender (e.g. "DSF"), optionally preceded by a person digit ("1GP"). */
function cng(code: string, s: string, out: Features) {
  let i = 0;
  if (/[123]/.test(s[0])) pick(code, PERSON, s[i++], 'person', out);
  pick(code, CASE, s[i++], 'case', out);
  pick(code, NUMBER, s[i++], 'number', out);
  pick(code, GENDER, s[i++], 'gender', out);
  if (i < s.length) throw new Error(`Robinson code '${code}': unexpected '${s.slice(i)}'`);
}

export function decodeRobinson(code: string): Features {
  const parts = code.split('-');
  const head = parts[0];
  const out: Features = {};
  const suffixes = (from: number) => {
    for (const s of parts.slice(from)) {
      if (!SUFFIX[s]) throw new Error(`Robinson code '${code}': unknown suffix '${s}'`);
      out[SUFFIX[s] === 'negative' || SUFFIX[s] === 'interrogative' ? 'particle' : 'form'] = SUFFIX[s];
    }
  };
  if (INDECLINABLE[head]) {
    out.part_of_speech = INDECLINABLE[head];
    suffixes(1);
    return out;
  }
  if (head === 'V') {
    out.part_of_speech = 'verb';
    const tvm = parts[1] ?? '';
    const m = /^(2?)([A-Z])([A-Z])([A-Z])$/.exec(tvm);
    if (!m) throw new Error(`Robinson code '${code}': bad tense-voice-mood '${tvm}'`);
    pick(code, TENSE, m[2], 'tense', out);
    if (m[1]) out.tense = `second ${out.tense}`;
    pick(code, VOICE, m[3], 'voice', out);
    pick(code, MOOD, m[4], 'mood', out);
    const next = parts[2];
    if (next && /^[123][SP]$/.test(next)) {
      pick(code, PERSON, next[0], 'person', out);
      pick(code, NUMBER, next[1], 'number', out);
      suffixes(3);
    } else if (next && /^[NGDAV][SP][MFN]$/.test(next)) {
      cng(code, next, out);
      suffixes(3);
    } else suffixes(2);
    return out;
  }
  const pos = DECLINED[head];
  if (!pos) throw new Error(`Robinson code '${code}': unknown part of speech '${head}'`);
  out.part_of_speech = pos;
  const rest = parts[1];
  if (rest === undefined) return out;
  if (SUFFIX[rest]) { suffixes(1); return out; }
  if (head === 'S') {
    // Possessive: possessor person and number, then the possessed word's case/number/gender.
    const m = /^([123])([SP])([NGDAV][SP][MFN]?)$/.exec(rest);
    if (!m) throw new Error(`Robinson code '${code}': bad possessive '${rest}'`);
    pick(code, PERSON, m[1], 'person', out);
    pick(code, NUMBER, m[2], 'possessor_number', out);
    cng(code, m[3], out);
  } else cng(code, rest, out);
  suffixes(2);
  return out;
}
