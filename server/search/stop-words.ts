/**
 * Stop words in ranking (issue 36, item 7). `hotels and motels` used to require "and" of
 * every match: "and" is in most NAICS descriptions, so its postings pushed the query over
 * MAX_RANKED_POSTINGS and the answer fell back to match-kind order, Community Housing
 * Services first; `hotels motels` ranks 721110 first. A stop word now neither decides
 * which records match nor switches the ranking:
 *
 * - when a query has other words, its stop words are left out of matching (every other
 *   word must still match, through every tier of match-tiers.ts) and out of the cost
 *   bound's count; a query of stop words only is searched as written (`the who`);
 * - where the records matching the other words are ranked by score, a stop word adds its
 *   own score (exact matches only) to the records that have it, if its postings fit the
 *   scoring budget left (MAX_RANKED_POSTINGS). A stop word is cheap exactly where it is
 *   rare in the dataset, and that is where it carries meaning: `vitamin a` still finds
 *   Vitamin A first among the vitamins, while "and" across the NAICS descriptions is
 *   over the budget and `hotels and motels` ranks exactly as `hotels motels`.
 *
 * The list is Lucene's English stop set (EnglishAnalyzer.ENGLISH_STOP_WORDS_SET, also
 * Elasticsearch's `_english_`), written here rather than taken from an npm stop-word
 * package: those lists (stopword, stopwords-iso, @orama/stopwords) run to 170–1,300 words
 * and include "us", "new", "first", "world", names and codes these datasets are searched
 * by. Lucene's 33 words are function words only.
 */
import type MiniSearch from 'minisearch';
import type { SearchOptions } from 'minisearch';
import { MAX_RANKED_POSTINGS } from './search-bounds.ts';
import { indexEntries } from './search-index.ts';

export const STOP_WORDS: ReadonlySet<string> = new Set([
  'a', 'an', 'and', 'are', 'as', 'at', 'be', 'but', 'by', 'for', 'if', 'in', 'into', 'is', 'it', 'no', 'not', 'of',
  'on', 'or', 'such', 'that', 'the', 'their', 'then', 'there', 'these', 'they', 'this', 'to', 'was', 'will', 'with',
]);

/** A query's words (lower case) as the words that must match and the stop words that need not: all must when all are stop words. */
export function splitStopWords(words: string[]): { content: string[]; stop: string[] } {
  const content = words.filter((w) => !STOP_WORDS.has(w));
  if (!content.length) return { content: words, stop: [] };
  return { content, stop: words.filter((w) => STOP_WORDS.has(w)) };
}

type Raw = Map<number, { score: number }>;
type Internals = { executeQuery(q: string, o: SearchOptions): Raw; _documentIds: { get(id: number): unknown } };

/**
 * Scored hits (`id` the record's ordinal) with the stop words' own scores added where a
 * record has them in its search `fields`, best first (ties keep their order). `spent` is what the scoring of the
 * other words read; a stop word whose postings would take the total over
 * MAX_RANKED_POSTINGS adds nothing. Reads each admitted stop word's postings once per shard.
 */
export function addStopWordScores(
  hits: { id: number; score: number }[], stop: string[], shards: ((w: string) => MiniSearch)[], options: SearchOptions, fields: string[], spent: number,
): { id: number; score: number }[] {
  if (!stop.length || hits.length < 2) return hits;
  const score = new Map(hits.map((h) => [h.id, h.score]));
  let total = spent;
  let added = false;
  // The record's own fields only, never the hidden stems (pipeline/stemming.ts).
  const exact = { ...options, fields, prefix: false, fuzzy: false };
  for (const w of stop) {
    const cost = shards.reduce((n, msFor) => n + indexEntries(msFor(w), w, false), 0);
    if (!cost || total + cost > MAX_RANKED_POSTINGS) continue;
    total += cost;
    for (const msFor of shards) {
      const ms = msFor(w) as unknown as Internals;
      for (const [shortId, r] of ms.executeQuery(w, exact)) {
        const id = ms._documentIds.get(shortId) as number;
        const s = score.get(id);
        if (s !== undefined) score.set(id, s + r.score), (added = true);
      }
    }
  }
  if (!added) return hits;
  return hits.map((h, i) => ({ id: h.id, score: score.get(h.id)!, i })).sort((a, b) => b.score - a.score || a.i - b.i).map(({ id, score: s }) => ({ id, score: s }));
}
