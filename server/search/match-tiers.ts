/**
 * What a search answers besides the records matching every word as written (issue 26,
 * "Search" items 1 and 3), in tiers, each ranked within itself:
 *
 * 1. records matching every word — whole, by prefix or with a typo — exactly as before
 *    (release-search.ts: same records, same scores, same order);
 * 2. records matching every word when English stems count (pipeline/stemming.ts; only for
 *    datasets whose manifest names stemmed fields): `assassinated` finds "assassination".
 *    They come after every tier-1 record, so a whole-word match always ranks at least as
 *    high as a stem-only one;
 * 3. only when tiers 1 and 2 are empty and the query has two words or more: the records
 *    matching the most words (stems counting), then the best score, flagged
 *    `match: 'partial'` with the words that matched no record at all (`GDP current US`:
 *    the data says "US$", so `us` matches nothing, and the GDP series still come first).
 *    A query none of whose words matches anything still answers nothing.
 *
 * Cost: tiers 2 and 3 read the postings of the words that passed the budget (fitBudget,
 * so at most MAX_POSTINGS) plus their stems' postings, admitted rarest first while the
 * total stays within MAX_POSTINGS (a stem left out is named in `unstemmed`). They are
 * scored by minisearch when that total is within MAX_RANKED_POSTINGS and the whole-word
 * tier was scored, else ranked by match kind (`ranked: false`, meta.order "match").
 */
import type MiniSearch from 'minisearch';
import type { SearchOptions } from 'minisearch';
import { stemWord } from '../../pipeline/stemming.ts';
import { MAX_POSTINGS, MAX_RANKED_POSTINGS } from './search-bounds.ts';
import { stemPostings, type TermQuery } from './search-index.ts';
import { kindHits, popcount, scoredHits, type KindBuckets, type ScoredHit, type WordQuery } from './word-matches.ts';

export interface TierSearch {
  /** Per shard, the loaded index holding a term (its part, or the whole index). */
  shards: ((term: string) => MiniSearch)[];
  /** The words searched (within budget, stop words dropped), in query order. */
  words: string[];
  /** Words matched whole only (fitBudget's unexpanded). */
  narrow: Set<string>;
  /** Whether the dataset's indexes hold stems (DatasetInfo.search_stem). */
  stems: boolean;
  fields: string[];
  /** The whole-word search's minisearch options. */
  options: SearchOptions;
  /** Each word's minisearch query with those options, as tier 1 made it (search-index.ts termQueries). */
  query?: TermQuery;
  /** Index entries the whole-word search read (fitBudget's total). */
  spent: number;
  expired: () => boolean;
}

export interface Tiers {
  /** Records to append after tier 1 (tier 2), or, with match 'partial', the whole answer (tier 3). */
  ordinals: number[];
  match?: 'partial';
  unmatched?: string[];
  unstemmed: string[];
  /** False when these tiers were ranked by match kind. */
  ranked: boolean;
  /** True when the time budget stopped the shards early. */
  truncated: boolean;
}

/** Tiers 2 and 3 for a search whose tier 1 found `found` records; null when there is nothing to add. */
export function* moreTiers(s: TierSearch, found: number): Generator<void, Tiers | null> {
  const partial = found === 0 && s.words.length >= 2;
  if (!s.stems && !partial) return null;
  const { queries, unstemmed, cost } = admitStems(s);
  if (!partial && !queries.some((q) => q.stem !== undefined)) return unstemmed.length ? { ordinals: [], unstemmed, ranked: true, truncated: false } : null;
  const scored = s.spent + cost <= MAX_RANKED_POSTINGS;
  const every = (1 << queries.length) - 1;
  const hits: ScoredHit[] = [];
  const full: KindBuckets[] = [];
  const some: KindBuckets[] = [];
  let matched = 0;
  let truncated = false;
  for (let n = 0; n < s.shards.length; n++) {
    if (n && s.expired()) {
      truncated = true;
      break;
    }
    yield;
    if (scored) hits.push(...scoredHits(s.shards[n], queries, s.options, s.fields, s.query));
    else {
      const k = yield* kindHits(s.shards[n], queries, s.narrow);
      full.push(k.full);
      some.push(k.some);
      matched |= k.matched;
    }
  }
  for (const h of hits) matched |= h.all;
  const byScore = (a: ScoredHit, b: ScoredHit) => b.score - a.score || a.ord - b.ord;
  const tier2 = scored ? hits.filter((h) => h.all === every && h.own !== every).sort(byScore).map((h) => h.ord) : merge(full);
  if (found || tier2.length || !partial) return { ordinals: tier2, unstemmed, ranked: scored, truncated };
  const tier3 = scored
    ? hits.sort((a, b) => popcount(b.all) - popcount(a.all) || byScore(a, b)).map((h) => h.ord)
    : merge(some);
  if (!tier3.length) return { ordinals: [], unstemmed, ranked: scored, truncated };
  const unmatched = s.words.filter((_, i) => !(matched & (1 << i)));
  return { ordinals: tier3, match: 'partial', unmatched, unstemmed, ranked: scored, truncated };
}

/**
 * The words with the stems searched for them: a stem is searched when the dataset has
 * stems and its postings fit in what MAX_POSTINGS leaves after the words' own, rarest stem
 * first; `cost` is the stems' postings.
 */
function admitStems(s: TierSearch): { queries: WordQuery[]; unstemmed: string[]; cost: number } {
  const queries: WordQuery[] = s.words.map((word) => ({ word }));
  if (!s.stems) return { queries, unstemmed: [], cost: 0 };
  const costs = queries.map((q) => {
    const stem = stemWord(q.word);
    const entries = s.shards.reduce((n, msFor) => n + stemPostings(msFor(stem), stem, q.word).reduce((k, docs) => k + docs.size, 0), 0);
    return { q, stem, entries };
  }).filter((c) => c.entries > 0).sort((a, b) => a.entries - b.entries);
  const unstemmed: string[] = [];
  let cost = 0;
  for (const c of costs) {
    if (s.spent + cost + c.entries > MAX_POSTINGS) unstemmed.push(c.q.word);
    else (cost += c.entries), (c.q.stem = c.stem);
  }
  return { queries, unstemmed, cost };
}

/** One list from per-shard buckets: higher keys first, list order within a key. */
function merge(shards: KindBuckets[]): number[] {
  const keys = [...new Set(shards.flatMap((b) => [...b.keys()]))].sort((a, b) => b - a);
  const out: number[] = [];
  for (const key of keys) {
    const lists = shards.map((b) => b.get(key)).filter((l): l is number[] => !!l);
    const merged = lists.length === 1 ? lists[0] : lists.flat().sort((a, b) => a - b);
    for (const o of merged) out.push(o);
  }
  return out;
}
