/**
 * Reads the output of William Whitaker's WORDS (Debian package `whitakers-words`, "free
 * for any use"), the Latin morphological analyser, run in its file mode
 * (`whitakers-words <in> <out>`: no screen paging, no prompts).
 *
 * The output has no per-word delimiter that survives every case (single letters print
 * nothing; meanings may contain "=>"), so each input word is followed by a sentinel
 * that is no Latin word; its UNKNOWN line splits the output into one block per word.
 *
 * A block holds, per dictionary entry, the inflection lines that matched (the stem and
 * ending, then fixed columns: `principi.o           N      2 4 ABL S N`), the entry's
 * dictionary line (`principium, principi(i)  N (2nd) N   [XXXAX]`, the bracket being
 * Whitaker's age/area/geography/frequency/source codes) and its meaning lines.
 * Several entries may share one meaning. `TACKON`, `PREFIX` and `SUFFIX` lines are
 * affixes Whitaker split off (`-que`), each with its own meaning line. "Two words"
 * guesses (`ab+ana`) are not taken as analyses; "Syncope" notes are skipped.
 */

export const WHITAKER_SENTINEL = 'zzzqxzz';

export interface WhitakerEntry {
  /** The dictionary line without its bracketed codes, spaces collapsed: "principium, principi(i) N (2nd) N". */
  entry: string;
  /** The inflection codes that matched, columns after the stem: "N 2 4 ABL S N". */
  codes: string[];
  /** Meaning lines joined. */
  meaning: string;
}
export interface WhitakerWord {
  entries: WhitakerEntry[];
  /** Affixes split off: "que (TACKON)". */
  affixes: string[];
}

const POS = new Set(['N', 'PRON', 'ADJ', 'NUM', 'V', 'VPAR', 'SUPINE', 'ADV', 'PREP', 'CONJ', 'INTERJ', 'X', 'PACK']);
const AFFIX = new Set(['TACKON', 'PREFIX', 'SUFFIX']);
const INFLECTION = /^(\S+) +([A-Z]+)(?: +(.*?))? *$/;
const DICTIONARY = /^(.*?)\s+\[[A-Z]{5}\]/;
/** The part of speech starts in column 22 (the stem is padded to 21); meanings with a capital word earlier are not inflections. */
const POS_COLUMN = 21;

/** The words' input file: each word, then the sentinel. */
export const whitakerInput = (words: string[]) => words.map((w) => `${w}\n${WHITAKER_SENTINEL}\n`).join('');

/** Splits the file-mode output into one block per input word and parses each. */
export function readWhitakerOutput(out: string, words: string[]): Map<string, WhitakerWord> {
  const blocks = out.split(new RegExp(`^${WHITAKER_SENTINEL}\\s+=+\\s+UNKNOWN.*$`, 'm'));
  // One block per word, plus whatever follows the last sentinel (nothing but blank lines).
  if (blocks.length !== words.length + 1 || blocks[words.length].trim()) {
    throw new Error(`whitakers-words: expected ${words.length} answers, found ${blocks.length - 1}; the output is not in the expected format`);
  }
  const result = new Map<string, WhitakerWord>();
  words.forEach((w, i) => result.set(w, parseBlock(blocks[i])));
  return result;
}

export function parseBlock(block: string): WhitakerWord {
  const entries: WhitakerEntry[] = [];
  const affixes: string[] = [];
  let pending: string[] = [];
  /** Where meaning lines go: the entries since the last meaning, or the last affix (which keeps its own). */
  let open: WhitakerEntry[] = [];
  let inAffix = false;
  for (const raw of block.split('\n')) {
    const line = raw.replace(/\s+$/, '');
    if (!line || line === '*' || /========\s+UNKNOWN/.test(line) || /^Syncop/.test(line)) continue;
    // WORDS' guess that the word is two words run together ("If not obvious, probably
    // incorrect", it says): not an analysis of this word.
    if (/^Two words\b/.test(line)) return { entries: [], affixes: [] };
    const dict = DICTIONARY.exec(line);
    if (dict) {
      const e: WhitakerEntry = { entry: dict[1].trim().replace(/\s+/g, ' '), codes: pending, meaning: '' };
      pending = [];
      if (!open.length || open.some((x) => x.meaning)) open = [];
      open.push(e);
      entries.push(e);
      inAffix = false;
      continue;
    }
    const m = INFLECTION.exec(line);
    if (m && line.indexOf(m[2], m[1].length) >= Math.min(POS_COLUMN, m[1].length + 1) && (POS.has(m[2]) || AFFIX.has(m[2]))) {
      if (AFFIX.has(m[2])) {
        affixes.push(`${m[1]} (${m[2]})`);
        inAffix = true;
      } else {
        // The code is the upper-case columns; an age or frequency flag may follow ("Late", "uncommon").
        const cols = (m[3] ?? '').split(/\s+/).filter(Boolean);
        const end = cols.findIndex((c) => !/^[A-Z0-9]+$/.test(c));
        pending.push([m[2], ...(end < 0 ? cols : cols.slice(0, end))].join(' '));
        inAffix = false;
        if (open.some((x) => x.meaning)) open = [];
      }
      continue;
    }
    // A meaning line (or a note such as "Syncope ..."): it belongs to the open entries.
    if (inAffix) continue;
    for (const e of open) e.meaning = e.meaning ? `${e.meaning} ${line.trim()}` : line.trim();
  }
  // Inflections with no dictionary line after them are not analyses this reader can name.
  return { entries: entries.filter((e) => e.codes.length), affixes };
}
