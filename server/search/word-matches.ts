/**
 * Which query words each record matches, word by word (not minisearch's AND of all of
 * them), for the tiers of server/search/match-tiers.ts: records matching every word only
 * through a stem, and records matching some of the words. Two engines, as for the
 * whole-word search (search-bounds.ts): `scoredHits` scores with minisearch's own BM25
 * (a query within MAX_RANKED_POSTINGS), `kindHits` ranks by match kind from the postings
 * (~0.1 µs an entry, bounded by MAX_POSTINGS). A word's stem (pipeline/stemming.ts)
 * matches as a whole word in the hidden stem field and in the record's own fields.
 *
 * Both read minisearch internals (executeQuery, the radix tree): minisearch is pinned at
 * 7.2.0, as search-index.ts explains.
 */
import type MiniSearch from 'minisearch';
import type { SearchOptions } from 'minisearch';
import { STEM_FIELD } from '../../pipeline/stemming.ts';
import { docIds, matchingTerms, ordinalTable, stemPostings, type RawResult, type TermQuery } from './search-index.ts';

/** A searched word, with its stem when stems are searched for it. */
export interface WordQuery { word: string; stem?: string }

/** One record's matches: bit i set when query word i matched it (`own`: through its own fields, not a stem). */
export interface ScoredHit { ord: number; all: number; own: number; score: number }

/** A stem match weighs half a whole-word match in a score (minisearch weighs a prefix match 0.375, a typo 0.45). */
export const STEM_WEIGHT = 0.5;
/** The match kind of a stem in `kindHits` (3 the word itself, 2 a prefix, 1 a typo). */
const STEM_KIND = 1;

type Raw = Map<number, { score: number }>;
type Internals = { executeQuery(q: string, o: SearchOptions): RawResult; _documentIds: Map<number, number> };
const internals = (ms: MiniSearch) => ms as unknown as Internals;

/**
 * Per record, the words it matches and the sum of their minisearch scores (stems at
 * STEM_WEIGHT). `options` are the whole-word search's own (prefix, typos, boosts, rank);
 * `fields` the dataset's search fields. Costs what minisearch's search of the same words
 * and stems costs: their postings.
 */
export function scoredHits(msFor: (term: string) => MiniSearch, queries: WordQuery[], options: SearchOptions, fields: string[], query: TermQuery = (ms, w) => internals(ms).executeQuery(w, options)): ScoredHit[] {
  // By minisearch's internal id: a split index's parts number documents alike.
  const hits = new Map<number, ScoredHit>();
  const add = (ms: MiniSearch, raw: Raw, bit: number, weight: number, own: boolean) => {
    for (const [id, r] of raw) {
      let h = hits.get(id);
      if (!h) hits.set(id, (h = { ord: internals(ms)._documentIds.get(id)!, all: 0, own: 0, score: 0 }));
      h.all |= bit;
      if (own) h.own |= bit;
      h.score += r.score * weight;
    }
  };
  queries.forEach(({ word, stem }, i) => {
    const ms = msFor(word);
    add(ms, query(ms, word), 1 << i, 1, true);
    if (stem === undefined) return;
    const sms = msFor(stem);
    // A stem that is the word itself was found in the own fields already: the stem field only.
    const stemOptions = { ...options, fields: stem === word ? [STEM_FIELD] : [...fields, STEM_FIELD], prefix: false, fuzzy: false };
    add(sms, internals(sms).executeQuery(stem, stemOptions), 1 << i, STEM_WEIGHT, false);
  });
  return [...hits.values()];
}

/** Records by rank key (higher first), each list in list order: the match-kind engine's answer for one tier. */
export type KindBuckets = Map<number, number[]>;

/**
 * Per record, the words it matches, from the postings: `full` holds the records matching
 * every word but not every one through its own fields (keyed by the sum of the words'
 * best match kinds), `some` those matching some but not all words (keyed by words matched
 * × 32 + that sum); `matched` has bit i set when word i matched any record. Records that
 * match every word through their own fields are the whole-word search's (matchRanked) and
 * are in neither. Reads each posting once, with a pause point every 1024.
 */
export function* kindHits(msFor: (term: string) => MiniSearch, queries: WordQuery[], narrow: Set<string>): Generator<void, { full: KindBuckets; some: KindBuckets; matched: number }> {
  const full: KindBuckets = new Map();
  const some: KindBuckets = new Map();
  if (!queries.length) return { full, some, matched: 0 };
  const size = ordinalTable(msFor(queries[0].word)).size;
  const all = new Uint8Array(size);
  const own = new Uint8Array(size);
  const sum = new Uint8Array(size);
  const ords = new Float64Array(size);
  let steps = 0;
  for (let i = 0; i < queries.length; i++) {
    const { word, stem } = queries[i];
    const bit = 1 << i;
    const best = new Uint8Array(size);
    const touched: number[] = [];
    const sources: [MiniSearch, Map<number, number>[], number, boolean][] = [];
    for (const [lists, kind] of matchingTerms(msFor(word), word, !narrow.has(word))) sources.push([msFor(word), lists, kind, true]);
    if (stem !== undefined) sources.push([msFor(stem), stemPostings(msFor(stem), stem, word), STEM_KIND, false]);
    for (const [ms, lists, kind, isOwn] of sources) {
      const t = ordinalTable(ms);
      for (const byDoc of lists) {
        const ids = docIds(byDoc);
        for (let k = 0; k < ids.length; k++) {
          if ((++steps & 1023) === 0) yield;
          const id = ids[k];
          if (best[id] === 0) {
            touched.push(id);
            ords[id] = t.ord ? t.ord[id] : id + t.base;
          }
          if (best[id] < kind) best[id] = kind;
          if (isOwn) own[id] |= bit;
        }
      }
    }
    for (const id of touched) (all[id] |= bit), (sum[id] += best[id]);
  }
  const every = (1 << queries.length) - 1;
  let matched = 0;
  const push = (b: KindBuckets, key: number, ord: number) => (b.get(key) ?? b.set(key, []).get(key)!).push(ord);
  for (let id = 0; id < size; id++) {
    const a = all[id];
    if (a !== 0) {
      matched |= a;
      if (a !== every) push(some, popcount(a) * 32 + sum[id], ords[id]);
      else if (own[id] !== every) push(full, sum[id], ords[id]);
    }
    if ((id & 16383) === 16383) yield;
  }
  // Ordinals rise with ids where records were added in list order (always, in a build); else sort.
  for (const b of [full, some]) for (const list of b.values()) if (list.some((o, k) => k > 0 && o < list[k - 1])) list.sort((x, y) => x - y);
  return { full, some, matched };
}

export const popcount = (mask: number) => {
  let n = 0;
  for (let m = mask; m; m &= m - 1) n++;
  return n;
};
