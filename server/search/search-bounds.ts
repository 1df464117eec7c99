/**
 * The cost bound of every search (issue 9, fault 1). A query's cost must not depend on
 * how it is written: 100 one-letter words once took 22 s, because each one was expanded
 * by prefix to every indexed word starting with that letter and the expansions were
 * intersected. The rule (README "Query rules"):
 *
 * - at most MAX_SEARCH_WORDS distinct words are searched; the rest are named in
 *   `meta.ignored_words` and the result is flagged `meta.partial: true`;
 * - words shorter than PREFIX_MIN_LETTERS match whole words only (no prefix expansion);
 * - words of FUZZY_MIN_LETTERS or more also match with at most MAX_FUZZY_EDITS typos;
 * - the index entries a query touches (every matching word's postings, after prefix and
 *   typo expansion) are counted before searching, which is cheap: a word whose expansion
 *   alone passes the budget is matched as a whole word only (`meta.unexpanded_words`),
 *   then the most common words are left out until the rest fit (`meta.ignored_words`);
 *   if even the rarest word alone is over budget the answer is 400 invalid_parameter.
 *   Budgets: MAX_POSTINGS for minisearch indexes and MAX_TERM_POSTINGS for the term
 *   index of streamed datasets (plain arrays). A minisearch query over
 *   MAX_RANKED_POSTINGS is not scored by minisearch (its scoring costs ~10 µs an entry
 *   on a busy machine) but ranked by match kind — whole word, prefix, typo — then list
 *   order, as the term index does: `meta.order: "match"`;
 * - a sharded or term-index search stops at SEARCH_BUDGET_MS and returns what it has,
 *   flagged `meta.partial: true`; a term index ranks at most MAX_CANDIDATES records;
 * - when no record matches every word, the records matching the most words come instead
 *   (`meta.match: "partial"`, `meta.unmatched_words`), and English stems add records after
 *   the whole-word ones (server/search/match-tiers.ts): both read only the postings of the
 *   words already within budget, and the stems' own postings only while they fit the
 *   budget left (else `meta.unstemmed_words`).
 *
 * Measured with `npm run bench:worst-query` (README "Measured").
 */
import { searchTokenize } from '../../pipeline/shards.ts';
import { joinApostrophes } from '../../pipeline/term-index.ts';
import { ApiError } from '../http/errors.ts';
import { runInTurns } from './turns.ts';

export const MAX_SEARCH_WORDS = 8;
export const PREFIX_MIN_LETTERS = 3;
export const FUZZY_MIN_LETTERS = 5;
export const MAX_FUZZY_EDITS = 1;
export const SEARCH_BUDGET_MS = 150;
export const MAX_CANDIDATES = 50_000;
/** Up to this many index entries a query is ranked by minisearch (~2–8 µs an entry). */
export const MAX_RANKED_POSTINGS = 3_000;
/** Up to this many it is ranked by match kind from the index's postings (~0.1 µs an entry). */
export const MAX_POSTINGS = 300_000;
export const MAX_TERM_POSTINGS = 400_000;

export interface SearchResult {
  ordinals: number[];
  /** Words not searched: beyond MAX_SEARCH_WORDS, or too common to fit the budget. */
  ignored: string[];
  /** Words matched as whole words only because their expansion was over budget. */
  unexpanded?: string[];
  /** False when the matches were too many to score and are ranked by match kind, then list order. */
  ranked?: boolean;
  /** True when words were ignored, the time budget ran out or the candidates were capped. */
  partial: boolean;
  /** 'partial' when no record matched every word: the records matching the most words, best first (match-tiers.ts). */
  match?: 'partial';
  /** With match 'partial': the searched words that matched no record at all. */
  unmatched?: string[];
  /** Words searched without their stems: the stems' postings were over the budget left. */
  unstemmed?: string[];
}


/** The distinct words of `q` in order (as `split` tokenizes), capped at MAX_SEARCH_WORDS. */
export function boundWords(q: string, split: (q: string) => string[] = (s) => searchTokenize(s).map((w) => w.toLowerCase())): { words: string[]; ignored: string[] } {
  const all = [...new Set(split(q).filter(Boolean))];
  return { words: all.slice(0, MAX_SEARCH_WORDS), ignored: all.slice(MAX_SEARCH_WORDS) };
}

/** minisearch options that apply the prefix and typo rules per word. */
export const BOUNDED_MATCH = {
  prefix: (term: string) => term.length >= PREFIX_MIN_LETTERS,
  fuzzy: (term: string) => (term.length >= FUZZY_MIN_LETTERS ? MAX_FUZZY_EDITS : false),
  maxFuzzy: MAX_FUZZY_EDITS,
} as const;

/** A deadline checked between units of work (shards, words). */
export function deadline(ms = SEARCH_BUDGET_MS) {
  const end = performance.now() + ms;
  return () => performance.now() > end;
}

/** The partial/ignored flags for a response's meta, empty when the search was complete. */
export function searchMeta(r: SearchResult): Record<string, unknown> {
  const flags = {
    ...(r.ranked === false ? { order: 'match' } : {}),
    // Not every word matched: say so, naming the words no record has (a misspelling, a word the data spells otherwise).
    ...(r.match === 'partial' ? { match: 'partial', unmatched_words: r.unmatched ?? [] } : {}),
  };
  if (!r.partial) return flags;
  return {
    ...flags, partial: true, ...(r.ignored.length ? { ignored_words: r.ignored } : {}), ...(r.unexpanded?.length ? { unexpanded_words: r.unexpanded } : {}),
    ...(r.unstemmed?.length ? { unstemmed_words: r.unstemmed } : {}),
  };
}

/**
 * The words to search within `budget` index entries. `cost(word, expand)` counts the
 * entries a word touches with or without prefix/typo expansion.
 */
export function fitBudget(words: string[], cost: (w: string, expand: boolean) => number, budget: number): { keep: string[]; ignored: string[]; unexpanded: string[]; total: number } {
  const unexpanded: string[] = [];
  const costs = new Map<string, number>();
  for (const w of words) {
    let c = cost(w, true);
    if (c > budget) {
      const exact = cost(w, false);
      if (exact < c) {
        unexpanded.push(w);
        c = exact;
      }
    }
    costs.set(w, c);
  }
  const byCost = [...words].sort((a, b) => costs.get(a)! - costs.get(b)!);
  if (byCost.length && costs.get(byCost[0])! > budget) {
    throw new ApiError('invalid_parameter', `parameter 'q': the word '${byCost[0].slice(0, 40)}' matches too many index entries (${costs.get(byCost[0])}, at most ${budget}); use a rarer word`, {
      parameter: 'q', word: byCost[0].slice(0, 40), entries: costs.get(byCost[0]), max_entries: budget,
    });
  }
  const kept = new Set<string>();
  let total = 0;
  for (const w of byCost) {
    if (total + costs.get(w)! > budget) continue;
    total += costs.get(w)!;
    kept.add(w);
  }
  return { keep: words.filter((w) => kept.has(w)), ignored: words.filter((w) => !kept.has(w)), unexpanded: unexpanded.filter((w) => kept.has(w)), total };
}

/** Longest stretch a search holds the event loop before giving it back. */
export const SEARCH_SLICE_MS = 5;

/** Runs a stepwise computation to completion at once. */
export function runSync<T>(steps: Generator<void, T>): T {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/**
 * Runs a stepwise computation, giving the event loop back every SEARCH_SLICE_MS; its
 * slices share the turns with index loads and other rankings, one slice per turn (turns.ts).
 */
export function runYielding<T>(steps: Generator<void, T>): Promise<T> {
  return runInTurns(steps, SEARCH_SLICE_MS);
}

/** How many of the best-scored hits phraseFirst looks at: a constant, so the cost bound above holds. */
export const PHRASE_WINDOW = 200;

/** Runs of letters and digits: the words phraseFirst compares. */
const WORD_RUNS = /[\p{L}\p{N}]+/gu;
/** Case folded for comparison: lower case, and final sigma as sigma (as a case-insensitive pattern matches them). */
const fold = (s: string) => s.toLowerCase().replace(/ς/g, 'σ');
const ALNUM = /^[\p{L}\p{N}]+$/u;

/** The hits whose text phraseFirst reads for `q` (none for a one-word query): the caller reads them first. */
export const phraseWindow = (ordinals: number[], q: string): number[] =>
  searchTokenize(q).length < 2 || ordinals.length < 2 ? [] : ordinals.slice(0, PHRASE_WINDOW);

/**
 * Word order, for searches of running text (/api/v1/search; issue 13: KJV `In the
 * beginning` must find Gen 1:1 first, not verses that merely contain the three words).
 * Among the PHRASE_WINDOW best hits, those whose text has the query's words as a phrase
 * (consecutive, in order) come first — those where the phrase opens the text before the
 * others — keeping the scored order within each group. Stop words are not dropped: "in"
 * and "the" are what makes the phrase. Reads at most PHRASE_WINDOW texts.
 */
export function phraseFirst(ordinals: number[], text: (ordinal: number) => string, q: string): number[] {
  const words = searchTokenize(q);
  if (words.length < 2 || ordinals.length < 2) return ordinals;
  const head = ordinals.slice(0, PHRASE_WINDOW);
  // The words as whole words, separated by anything that is not a letter or digit: a run
  // of the text's words equal to the query's, read with one regex compiled once. A
  // pattern built per query cost ~1 ms to compile (issue 27: most of a translation
  // search's time), ~20 times the matching. Words with other characters (the tokenizer
  // keeps symbols: `US$`) still get that pattern.
  const want = words.map(fold);
  const group = want.every((w) => ALNUM.test(w)) ? (o: number) => {
    const runs = fold(joinApostrophes(text(o))).match(WORD_RUNS) ?? [];
    for (let i = 0; i + want.length <= runs.length; i++) {
      let k = 0;
      while (k < want.length && runs[i + k] === want[k]) k++;
      if (k === want.length) return i === 0 ? 0 : 1;
    }
    return 2;
  } : phrasePattern(words);
  if (!group) return ordinals; // a word no pattern can hold (a lone surrogate): keep the scored order
  const groups = new Map(head.map((o) => [o, group(o, text)]));
  const ranked = head.map((o, i) => [o, i] as const).sort((a, b) => groups.get(a[0])! - groups.get(b[0])! || a[1] - b[1]).map(([o]) => o);
  // One copy of the hits, the window's new order written over its head (a broad query has tens of thousands).
  const out = ordinals.slice();
  for (let i = 0; i < ranked.length; i++) out[i] = ranked[i];
  return out;
}

/** phraseFirst's grouping by a pattern built for the query (0 the phrase opens the text, 1 elsewhere, 2 absent); null when none can be built. */
function phrasePattern(words: string[]): ((o: number, text: (o: number) => string) => number) | null {
  const escape = (w: string) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  let phrase: RegExp;
  try {
    phrase = new RegExp(`(?<![\\p{L}\\p{N}])${words.map(escape).join('[^\\p{L}\\p{N}]+')}(?![\\p{L}\\p{N}])`, 'iu');
  } catch {
    return null;
  }
  return (o, text) => {
    const t = joinApostrophes(text(o));
    const m = phrase.exec(t);
    return !m ? 2 : /^[^\p{L}\p{N}]*$/u.test(t.slice(0, m.index)) ? 0 : 1;
  };
}
