/**
 * English stemming for search (issue 26, "Search" item 3): `assassinated` finds the record
 * that says "assassination", `kilometres` the unit named "kilometre". Applied alike at
 * build time (the index) and at query time (the server), for the fields that
 * pipeline/stem-fields.ts names — English text only.
 *
 * The stemmer is the npm package `stemmer` (wooorm, MIT): Martin Porter's algorithm, the
 * one Lucene's PorterStemFilter applies, deterministic (the same word gives the same stem
 * on every machine, so an index and a query always agree), ESM with its own types and no
 * dependencies, and kept by the author of the unified/words text packages. Chosen over
 * `porter2` (three versions, little use yet), `snowball-stemmers` (CommonJS, untyped,
 * unchanged for years) and `wink-porter2-stemmer` (CommonJS, untyped).
 *
 * How stems are indexed: each stemmed record gets one hidden minisearch field, STEM_FIELD,
 * holding the stems of its stemmed fields' words that differ from the word itself
 * ("assassination" → `assassin`; "the" is its own stem and is not repeated there). The
 * record's own fields are indexed exactly as before, so a search of those fields — every
 * search whose words all match — scores exactly as it did (server/search/match-tiers.ts
 * adds stem matches after them). A word that is its own stem is found through the
 * ordinary fields, so the hidden field needs only the changed ones: it stays small.
 */
import MiniSearch from 'minisearch';
import { stemmer } from 'stemmer';
import { joinApostrophes } from './term-index.ts';

/** The hidden minisearch field of a record's changed stems (never a record field: they do not start with `__`). */
export const STEM_FIELD = '__stem';

const defaultTokenize = MiniSearch.getDefault('tokenize') as (text: string) => string[];

/**
 * A lower-cased word's English stem. Only plain a–z words are stemmed: the Porter rules
 * are for English spelling, and a word with digits or diacritics ("1990s", "café") is left
 * as it is on both sides, so the index and the query still agree. A stem shorter than
 * three letters is not used: Porter cuts "using", "use" and "used" to `us` and "was" to
 * `wa`, which would make `US` find "using" (and `using` find "US").
 */
export function stemWord(word: string): string {
  if (!/^[a-z]{3,}$/.test(word)) return word;
  const s = stemmer(word);
  return s.length >= 3 ? s : word;
}

/**
 * The STEM_FIELD text of a record: the stems of `texts`' words that differ from the word,
 * each once, in first-seen order. Tokenized as the index tokenizes (shards.ts
 * searchTokenize: minisearch's tokenizer with apostrophes joining words), lower-cased.
 */
export function stemsOf(texts: string[]): string {
  const out = new Set<string>();
  for (const text of texts) {
    for (const token of defaultTokenize(joinApostrophes(text))) {
      const w = token.toLowerCase();
      const s = stemWord(w);
      if (s !== w) out.add(s);
    }
  }
  return [...out].join(' ');
}
