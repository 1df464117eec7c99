/**
 * Reading a loaded minisearch index directly, for the search cost bound
 * (server/search-bounds.ts): how many index entries a word touches, and the ranking by
 * match kind used when a query touches too many entries for minisearch to score. Both
 * read minisearch's radix tree (`_index`) and id map (`_documentIds`), which it does not
 * export as API: minisearch is pinned at 7.2.0, and test/hardening.test.ts checks the
 * results against minisearch's own.
 */
import MiniSearch, { type SearchOptions } from 'minisearch';
import { typoKeepsPrefix } from '../../pipeline/search-parts.ts';
import { STEM_FIELD } from '../../pipeline/stemming.ts';
import type { TermData } from './index-loader.ts';
import { BOUNDED_MATCH, MAX_POSTINGS } from './search-bounds.ts';
import { Postings } from './binary-index.ts';

export type { TermData };
export { loadIndexSliced, termCountOf } from './index-loader.ts';
/** What one expanded word costs minisearch, in postings (measured with bench/worst-query.ts). */
const TERM_COST = 20;
/**
 * Index entries (document postings, all fields) a word touches in a minisearch index,
 * counted the way minisearch expands it: the word itself, its prefix matches, its typo
 * matches. Reads minisearch's radix tree (`_index`), which it does not export as API;
 * pinned minisearch 7.2.0, and test/hardening.test.ts checks the count against results.
 */
type RadixIndex = { get(t: string): TermData | undefined; atPrefix(t: string): Iterable<[string, TermData]>; fuzzyGet(t: string, d: number): Map<string, [TermData, number]> };
const radix = (ms: MiniSearch) => (ms as unknown as { _index: RadixIndex })._index;
/** The field id of an index's hidden stems (pipeline/stemming.ts), -1 when it has none. */
const stemFieldId = (ms: MiniSearch) => (ms as unknown as { _fieldIds: Record<string, number> })._fieldIds[STEM_FIELD] ?? -1;
/** A word's postings per field, without the hidden stems: what a search of the record's own fields reads. */
const ownFields = (d: TermData, stem: number) => [...d].filter(([field]) => field !== stem).map(([, docs]) => docs);

/**
 * Every indexed word `w` matches the way minisearch expands it, as the postings of the
 * record's own fields (never the hidden stems: a word found only there is skipped, so an
 * index with stems counts and matches as the same index without them), with its kind:
 * 3 itself, 2 by prefix, 1 with a typo.
 */
export function* matchingTerms(ms: MiniSearch, w: string, expand: boolean): Generator<[Map<number, number>[], number]> {
  const index = radix(ms);
  const stem = stemFieldId(ms);
  const own = (d: TermData) => (stem < 0 ? [...d.values()] : ownFields(d, stem));
  let lists: Map<number, number>[];
  if (!expand || !BOUNDED_MATCH.prefix(w)) {
    const d = index.get(w);
    if (d && (lists = own(d)).length) yield [lists, 3];
    return;
  }
  for (const [t, d] of index.atPrefix(w)) if ((lists = own(d)).length) yield [lists, t === w ? 3 : 2];
  const edits = BOUNDED_MATCH.fuzzy(w);
  if (edits) for (const [t, [d]] of index.fuzzyGet(w, edits)) if (!t.startsWith(w) && (lists = own(d)).length) yield [lists, 1];
}

/**
 * The postings a stem `s` of a query word adds (server/search/match-tiers.ts): the
 * records whose words stem to it — in the hidden stem field, and as a whole word of their
 * own fields when the query word is not already `s` (then the word's own match has them).
 */
export function stemPostings(ms: MiniSearch, s: string, word: string): Map<number, number>[] {
  const stem = stemFieldId(ms);
  const d = stem < 0 ? undefined : radix(ms).get(s);
  if (!d) return [];
  return [...d].filter(([field]) => field === stem || s !== word).map(([, docs]) => docs);
}

/**
 * One field's postings' document ids as an array to index: a binary index's decoded ids
 * themselves, a JSON index's Map keys copied. Read through `keys()` in matchRanked and
 * kindHits, generators whose iterator results V8 does not optimize away, a broad Bible
 * search allocated ~0.9 MB of them: a third of all it allocated, each young-generation
 * collection a few ms of the search tail (docs/benchmarks.md, "Search allocations, fourteenth pass").
 */
export const docIds = (byDoc: Map<number, number>): Int32Array => (byDoc instanceof Postings ? byDoc.ids : Int32Array.from(byDoc.keys()));

export function indexEntries(ms: MiniSearch, w: string, expand: boolean, limit = MAX_POSTINGS + 1): number {
  let n = 0;
  // Each matching word costs minisearch a pass of its own besides its postings. Stop
  // counting once over the limit: counting a huge expansion must stay cheap too.
  for (const [lists] of matchingTerms(ms, w, expand)) {
    n += TERM_COST;
    for (const docs of lists) n += docs.size;
    if (n > limit) return n;
  }
  return n;
}

/**
 * Per index, minisearch's internal id → the record's ordinal, and whether ordinals rise
 * with internal ids (they do when records were added in list order). Built once per
 * loaded index: a Map lookup per hit cost more than the match. Where every ordinal is its
 * id plus one constant (records added in list order, none skipped) that constant is all
 * that is kept, so a part of a split index (pipeline/search-parts.ts) does not carry a
 * table the size of its whole shard.
 */
type Ordinals = { ord: Float64Array | null; base: number; rising: boolean; size: number };
const ordinalTables = new WeakMap<MiniSearch, Ordinals>();
export function ordinalTable(ms: MiniSearch): Ordinals {
  let t = ordinalTables.get(ms);
  if (!t) {
    const ids = (ms as unknown as { _documentIds: Map<number, number>; _nextId: number });
    let base: number | null = null;
    for (const [id, ordinal] of ids._documentIds) {
      if (base === null) base = ordinal - id;
      else if (ordinal - id !== base) {
        base = null;
        break;
      }
    }
    if (base !== null) t = { ord: null, base, rising: true, size: ids._nextId };
    else {
      const ord = new Float64Array(ids._nextId).fill(-1);
      for (const [id, ordinal] of ids._documentIds) ord[id] = ordinal;
      let rising = true;
      for (let i = 1, last = -1; i < ord.length && rising; i++) if (ord[i] >= 0) (rising = ord[i] > last), (last = ord[i]);
      t = { ord, base: 0, rising, size: ids._nextId };
    }
    ordinalTables.set(ms, t);
  }
  return t;
}

/**
 * The documents matching every word (AND), from the postings alone, ranked by match kind
 * (whole word 3, prefix 2, typo 1, summed over the words), then list order: the term
 * index's rule, at a fraction of minisearch's cost per entry. Returns the ordinals per
 * score, each list ascending. Scores live in a byte per document (at most 8 words × 3),
 * not a Map: a common word touches tens of thousands of documents (issue 14: holidays
 * "day", 61k hits, went from 30–40 ms to a few ms).
 */
export function* matchRanked(msFor: (word: string) => MiniSearch, words: string[], narrow: Set<string>): Generator<void, Map<number, number[]>> {
  // Rarest word first (by its counted entries), then each later word only filters the
  // candidates: a lookup per posting, never a full map of a common word. A split index
  // gives each word its own part, all numbering documents alike; every document left at
  // the end has the rarest word, so that word's part knows all their ordinals.
  // Each word counted once (the sort's comparisons asked again for each pair).
  const cost = new Map(words.map((w) => [w, indexEntries(msFor(w), w, !narrow.has(w))]));
  const byCost = [...words].sort((a, b) => cost.get(a)! - cost.get(b)!);
  if (!byCost.length) return new Map();
  const { ord, base, rising, size } = ordinalTable(msFor(byCost[0]));
  let scores: Uint8Array | null = null;
  let steps = 0;
  for (const w of byCost) {
    yield;
    const next: Uint8Array = new Uint8Array(size);
    let any = false;
    for (const [lists, mark] of matchingTerms(msFor(w), w, !narrow.has(w))) {
      for (const byDoc of lists) {
        const ids = docIds(byDoc);
        for (let k = 0; k < ids.length; k++) {
          // A pause point every 1024 postings; the driver decides whether to yield.
          if ((++steps & 1023) === 0) yield;
          const id = ids[k];
          const prev: number = scores === null ? 0 : scores[id];
          if (scores !== null && prev === 0) continue;
          if (next[id] < prev + mark) (next[id] = prev + mark), (any = true);
        }
      }
    }
    if (!any) return new Map();
    scores = next;
  }
  const buckets = new Map<number, number[]>();
  if (!scores) return buckets;
  // Counted first, so that each score's list is made at its size: pushed one by one, the
  // lists' growth copies were a tenth of what a broad search allocated.
  const counts = new Uint32Array(256);
  for (let id = 0; id < scores.length; id++) counts[scores[id]]++;
  for (let score = 255; score > 0; score--) if (counts[score]) buckets.set(score, new Array<number>(counts[score]));
  counts.fill(0);
  // A ranked index (stored __rank: population, prominence) orders ties by rank, then list
  // order, as the scored search weights them (issue 26, item 2: three NAICS vintages of
  // "Offices of Dentists" tie on match kind; the current one comes first).
  const stored = (msFor(byCost[0]) as unknown as { _storedFields?: Map<number, { __rank?: number }> })._storedFields;
  const ranks = new Map<number, number>();
  for (let id = 0; id < scores.length; id++) {
    const score = scores[id];
    if (score === 0) continue;
    const o = ord ? ord[id] : id + base;
    const rank = stored?.get(id)?.__rank;
    if (rank) ranks.set(o, rank);
    buckets.get(score)![counts[score]++] = o;
    if ((id & 16383) === 16383) yield;
  }
  if (!rising) for (const list of buckets.values()) list.sort((a, b) => a - b);
  if (ranks.size) for (const list of buckets.values()) list.sort((a, b) => (ranks.get(b) ?? 0) - (ranks.get(a) ?? 0) || a - b);
  return buckets;
}

/** The ordinals of several shards' matchRanked lists of one score in one ascending list (as a Float64Array sorts them). */
export function ascending(lists: number[][]): Float64Array {
  let n = 0;
  for (const l of lists) n += l.length;
  const all = new Float64Array(n);
  let at = 0;
  for (const l of lists) all.set(l, at), (at += l.length);
  return all.sort();
}

/**
 * The typo rule of split indexes, applied to every loaded index so that split and whole
 * ones answer alike: a typo match must start with the word's first TYPO_FREE_PREFIX
 * letters (pipeline/search-parts.ts). Both minisearch's search and matchingTerms above
 * find typo matches through the radix tree's fuzzyGet, so that is where it is applied.
 */
export function keepTypoPrefix(ms: MiniSearch): MiniSearch {
  const index = radix(ms);
  const fuzzyGet = index.fuzzyGet.bind(index);
  index.fuzzyGet = (term, distance) => {
    const found = fuzzyGet(term, distance);
    for (const t of found.keys()) if (!typoKeepsPrefix(term, t)) found.delete(t);
    return found;
  };
  return ms;
}

export type RawResult = Map<number, { score: number; terms: string[] }>;
/** minisearch's executeQuery of one term on an index, with one search's options. */
export type TermQuery = (ms: MiniSearch, term: string) => RawResult;
type Internals = {
  executeQuery(q: string, options: SearchOptions): RawResult;
  combineResults(results: RawResult[], combineWith: string): RawResult;
  _documentIds: Map<number, number>;
};

/**
 * minisearch's search (AND of the words) word by word: each word is looked up in its own
 * part of a split index (or in the whole index, for every word), then the per-word results
 * are combined and finished exactly as MiniSearch#search does (sum of the words' scores ×
 * the number of query words matched, best first, ties in minisearch's order), so the
 * answer equals the whole index's. `terms` are the query's words after the index's
 * processTerm (stop words removed); `query` may remember each word's result (termQueries).
 */
export function searchSplit(msFor: (term: string) => MiniSearch, terms: string[], options: SearchOptions, query: TermQuery = (ms, t) => (ms as unknown as Internals).executeQuery(t, options)): { id: number; score: number }[] {
  if (!terms.length) return [];
  const raws = terms.map((t) => query(msFor(t), t));
  const last = msFor(terms[terms.length - 1]) as unknown as Internals;
  const combined = last.combineResults(raws, 'and');
  const out: { id: number; score: number }[] = [];
  for (const [shortId, r] of combined) out.push({ id: last._documentIds.get(shortId)!, score: r.score * (r.terms.length || 1) });
  return out.sort((a, b) => b.score - a.score);
}

/**
 * executeQuery of each term, remembered for one search (`options` its whole-word options):
 * tier 1 (searchSplit) and tier 2 (word-matches.ts scoredHits) ask for each word with the
 * same options, and minisearch's scoring of a word's postings is most of a scored search's
 * time and allocation. Only scores and ids are read from a result after tier 1 combined it
 * (minisearch's AND adds to the first result's `terms` lists, never to a score).
 */
export function termQueries(options: SearchOptions): TermQuery {
  const memo = new Map<MiniSearch, Map<string, RawResult>>();
  return (ms, term) => {
    let byTerm = memo.get(ms);
    if (!byTerm) memo.set(ms, (byTerm = new Map()));
    let r = byTerm.get(term);
    if (!r) byTerm.set(term, (r = (ms as unknown as Internals).executeQuery(term, options)));
    return r;
  };
}
