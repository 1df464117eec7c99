/**
 * Decodes OpenScriptures Hebrew Bible morphology codes (https://hb.openscriptures.org/
 * parsing/HebrewMorphologyCodes.html), e.g. "HR/Ncfsa", "HVqp3ms", "AVqp3ms".
 *
 * A code is a language letter (H Hebrew, A Aramaic) followed by one segment per
 * morpheme, separated by "/": prefixes (conjunction, preposition, article), the word,
 * and suffixes. Each segment starts with its part-of-speech letter; the letters after it
 * are positional and differ per part of speech, as in the tables below. An unknown
 * letter throws, naming the code, so a changed upstream fails the build, not a reader.
 */
export type Features = Record<string, string>;
export interface OshbDecoded {
  language: 'hbo' | 'arc';
  /** One decoded segment per morpheme, in code order. */
  segments: Features[];
}

const POS: Record<string, string> = {
  A: 'adjective', C: 'conjunction', D: 'adverb', N: 'noun', P: 'pronoun', R: 'preposition', S: 'suffix', T: 'particle', V: 'verb',
};
const HEBREW_STEM: Record<string, string> = {
  q: 'qal', N: 'niphal', p: 'piel', P: 'pual', h: 'hiphil', H: 'hophal', t: 'hithpael', o: 'polel', O: 'polal', r: 'hithpolel',
  m: 'poel', M: 'poal', k: 'palel', K: 'pulal', Q: 'qal passive', l: 'pilpel', L: 'polpal', f: 'hithpalpel', D: 'nithpael',
  j: 'pealal', i: 'pilel', u: 'hothpaal', c: 'tiphil', v: 'hishtaphel', w: 'nithpalel', y: 'nithpoel', z: 'hithpoel',
};
const ARAMAIC_STEM: Record<string, string> = {
  q: 'peal', Q: 'peil', u: 'hithpeel', p: 'pael', P: 'ithpaal', M: 'hithpaal', a: 'aphel', h: 'haphel', s: 'saphel',
  e: 'shaphel', H: 'hophal', i: 'ithpeel', t: 'hishtaphel', v: 'ishtaphel', w: 'hithaphel', o: 'polel', z: 'ithpoel',
  r: 'hithpolel', f: 'hithpalpel', b: 'hephal', c: 'tiphel', m: 'poel', l: 'palpel', L: 'ithpalpel', O: 'ithpolel', G: 'ittaphal',
};
const VERB_TYPE: Record<string, string> = {
  p: 'perfect', q: 'sequential perfect', i: 'imperfect', w: 'sequential imperfect', h: 'cohortative', j: 'jussive',
  v: 'imperative', r: 'participle active', s: 'participle passive', a: 'infinitive absolute', c: 'infinitive construct',
};
const PERSON: Record<string, string> = { '1': 'first', '2': 'second', '3': 'third', x: 'unknown' };
const GENDER: Record<string, string> = { m: 'masculine', f: 'feminine', c: 'common', b: 'both', x: 'unknown' };
const NUMBER: Record<string, string> = { s: 'singular', p: 'plural', d: 'dual', x: 'unknown' };
const STATE: Record<string, string> = { a: 'absolute', c: 'construct', d: 'determined' };
const NOUN_TYPE: Record<string, string> = { c: 'common', g: 'gentilic', p: 'proper name', x: 'unknown' };
const ADJ_TYPE: Record<string, string> = { a: 'adjective', c: 'cardinal number', g: 'gentilic', o: 'ordinal number' };
const PRONOUN_TYPE: Record<string, string> = { d: 'demonstrative', f: 'indefinite', i: 'interrogative', p: 'personal', r: 'relative' };
const SUFFIX_TYPE: Record<string, string> = { d: 'directional he', h: 'paragogic he', n: 'paragogic nun', p: 'pronominal' };
const PARTICLE_TYPE: Record<string, string> = {
  a: 'affirmation', d: 'definite article', e: 'exhortation', i: 'interrogative', j: 'interjection', m: 'demonstrative',
  n: 'negative', o: 'direct object marker', r: 'relative',
};
// Proper names may carry a kind instead of gender: person, location, title…
const PROPER_KIND: Record<string, string> = { m: 'masculine', f: 'feminine', l: 'location', t: 'title', g: 'gentilic', x: 'unknown' };

function take(code: string, letters: string, at: number, table: Record<string, string>, name: string, out: Features) {
  const ch = letters[at];
  if (ch === undefined) return;
  const v = table[ch];
  if (v === undefined) throw new Error(`OSHB morph '${code}': unknown ${name} '${ch}'`);
  out[name] = v;
}

function segment(code: string, seg: string, aramaic: boolean): Features {
  const pos = POS[seg[0]];
  if (!pos) throw new Error(`OSHB morph '${code}': unknown part of speech '${seg[0]}'`);
  const out: Features = { part_of_speech: pos };
  const rest = seg.slice(1);
  const t = (at: number, table: Record<string, string>, name: string) => take(code, rest, at, table, name, out);
  switch (seg[0]) {
    case 'V': {
      t(0, aramaic ? ARAMAIC_STEM : HEBREW_STEM, 'stem');
      t(1, VERB_TYPE, 'tense');
      const type = rest[1];
      if (type === 'r' || type === 's') { t(2, GENDER, 'gender'); t(3, NUMBER, 'number'); t(4, STATE, 'state'); }
      else if (type !== 'a' && type !== 'c') { t(2, PERSON, 'person'); t(3, GENDER, 'gender'); t(4, NUMBER, 'number'); }
      break;
    }
    case 'N':
      t(0, NOUN_TYPE, 'type');
      if (rest[0] === 'p') t(1, PROPER_KIND, 'gender');
      else { t(1, GENDER, 'gender'); t(2, NUMBER, 'number'); t(3, STATE, 'state'); }
      break;
    case 'A': t(0, ADJ_TYPE, 'type'); t(1, GENDER, 'gender'); t(2, NUMBER, 'number'); t(3, STATE, 'state'); break;
    case 'P': t(0, PRONOUN_TYPE, 'type'); t(1, PERSON, 'person'); t(2, GENDER, 'gender'); t(3, NUMBER, 'number'); break;
    case 'S': t(0, SUFFIX_TYPE, 'type'); t(1, PERSON, 'person'); t(2, GENDER, 'gender'); t(3, NUMBER, 'number'); break;
    case 'T': t(0, PARTICLE_TYPE, 'type'); break;
    case 'R': if (rest) t(0, { d: 'definite article' }, 'type'); break;
    default: if (rest) throw new Error(`OSHB morph '${code}': unexpected letters after '${seg[0]}'`);
  }
  return out;
}

export function decodeOshb(code: string): OshbDecoded {
  const lang = code[0];
  if (lang !== 'H' && lang !== 'A') throw new Error(`OSHB morph '${code}': language must be H or A`);
  // A trailing slash occurs twice upstream ('AC/Ncmpc/', 'HVtv2fs/'): a stray separator, ignored.
  const segs = code.slice(1).replace(/\/$/, '').split('/');
  if (segs.some((s) => !s)) throw new Error(`OSHB morph '${code}': empty segment`);
  return { language: lang === 'A' ? 'arc' : 'hbo', segments: segs.map((s) => segment(code, s, lang === 'A')) };
}
