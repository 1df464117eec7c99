/**
 * Search over a release's indexes (split out of server/release.ts, which owns the files
 * and the cache): minisearch indexes, whole or split by word (pipeline/search-parts.ts),
 * and the streamed datasets' word index (pipeline/term-index.ts), all within the cost
 * bound of server/search-bounds.ts. The records matching every word come first, as they
 * always did; then stem-only matches, or, when none matches every word, the records
 * matching the most words (match-tiers.ts). Index files are read through the release
 * (checked against the manifest) and held in its byte-budgeted cache, counted by
 * indexHeapBytes.
 */
import MiniSearch, { type SearchOptions } from 'minisearch';
import { searchBinaryPath, searchPartPath, searchPath, termsPath } from '../../pipeline/paths.ts';
import { partOf } from '../../pipeline/search-parts.ts';
import { searchOptions, type DatasetInfo } from '../../pipeline/shards.ts';
import { postings, searchWords, termPrefix, termSearchAny, termSearchBounded, type TermShard } from '../../pipeline/term-index.ts';
import type { FileEntry } from '../../pipeline/writer.ts';
import {
  runSync, runYielding, BOUNDED_MATCH, MAX_CANDIDATES, MAX_POSTINGS, MAX_RANKED_POSTINGS, MAX_TERM_POSTINGS, PREFIX_MIN_LETTERS, boundWords, deadline, fitBudget, type SearchResult,
} from './search-bounds.ts';
import { ascending, indexEntries, keepTypoPrefix, loadIndexSliced, matchRanked, searchSplit, termCountOf, termQueries, type TermQuery } from './search-index.ts';
import { stemWord } from '../../pipeline/stemming.ts';
import { rankWeight } from '../../pipeline/search-weight.ts';
import { moreTiers, type Tiers } from './match-tiers.ts';
import { addStopWordScores, splitStopWords } from './stop-words.ts';
import { binaryIndexBytes, freshPostings, openBinaryIndex } from './binary-index.ts';
import { WHOLE_BELOW, openRemoteIndex, remoteOf, withPostings } from './remote-postings.ts';

/**
 * What a loaded minisearch index holds on the V8 heap. Measured with --expose-gc on 15
 * whole indexes of the full release (heap growth of a load after GC; 4–139 MiB each, 4.6–11
 * times the JSON's size): ~570 bytes per term, ~70 per document and ~4 per byte of the
 * JSON fit every one within 5 % (rounded up here). The earlier 4 × JSON size counted places and aviation
 * at 40 % of what they hold, so the cache held far more than ALMANAC_CACHE_MB.
 */
export const indexHeapBytes = (ms: MiniSearch, jsonLength: number) =>
  // A binary index holds its file's bytes (binary-index.ts) and a few objects.
  binaryIndexBytes(ms) !== undefined ? binaryIndexBytes(ms)! + 4096 :
  // The documents it holds, not documentCount: a part of a split index keeps the whole
  // shard's count for scoring but holds only the documents its words name. The terms as
  // counted while loading (minisearch's termCount walks the whole tree).
  600 * termCountOf(ms) + 70 * (ms as unknown as { _documentIds: Map<number, number> })._documentIds.size + 4 * jsonLength;
/** The smallest heap-to-JSON ratio measured: an index file is never smaller than this in memory. */
const MIN_HEAP_RATIO = 4.5;

/** What the search needs of its release: the datasets, checked file reads and the cache. */
export interface ReleaseFiles {
  datasets: Map<string, DatasetInfo>;
  cache: { bytes: number; get(key: string): unknown; set(key: string, value: unknown, size: number): void };
  budget: number;
  entry(rel: string): FileEntry | undefined;
  json<V>(rel: string): Promise<V>;
  read(rel: string): Promise<Buffer>;
  cached<V>(key: string, load: () => Promise<[V, number]>): Promise<V>;
  /** Synchronous reads by offset of a file just read and checked, where the store allows (Node); else undefined. */
  readAt?(rel: string): ((from: number, to: number) => Uint8Array) | undefined;
  /** Bytes [from, to) of a file read alone, where each read is costly and whole files are not held (the Worker). */
  readRange?(rel: string, from: number, to: number): Promise<Uint8Array>;
  /** A load is not to be awaited by another request (the Worker: release/reader.ts `isolated`). */
  isolated?: boolean;
}

/** Index files and term shards a search reads, loaded before it runs (every read is async; the search itself is not). */
interface Held {
  indexes: Map<string, MiniSearch>;
  terms: Map<string, TermShard | undefined>;
}

export class ReleaseSearch {
  constructor(private readonly r: ReleaseFiles) {}

  /**
   * Ordinals matching `q`, best first, within the cost bound of search/search-bounds.ts.
   * The files it needs are read first; then the search runs, at once or (`yielding`, the
   * server) giving the event loop back every SEARCH_SLICE_MS while it ranks a broad query.
   */
  async search(ds: string, q: string, yielding: boolean): Promise<SearchResult> {
    const info = this.r.datasets.get(ds)!;
    const held: Held = { indexes: new Map(), terms: new Map() };
    if (info.search_kind === 'terms') {
      for (const w of boundWords(q, searchWords).words) {
        const prefix = termPrefix(w);
        if (held.terms.has(prefix)) continue;
        const rel = termsPath(ds, prefix);
        held.terms.set(prefix, this.r.entry(rel) ? await this.r.json<TermShard>(rel) : undefined);
      }
    } else {
      // The files this query reads: each shard's index, or the parts of its words (and of
      // their stems, match-tiers.ts). Held for the whole search, so an eviction by another
      // request meanwhile cannot unload them.
      const bound = boundWords(q).words;
      const words = info.search_stem?.length ? [...new Set(bound.flatMap((w) => [w, stemWord(w)]))] : bound;
      const files = new Map<string, { key: string; rel: string }>();
      for (let n = 0; n < (info.search_shards ?? 1); n++) {
        // A query with no words searches an unsplit shard's whole index, and no part of a split one.
        const whole = this.indexFile(info, n);
        for (const file of words.length ? words.map((w) => this.indexFile(info, n, w)) : whole.part ? [] : [whole]) files.set(file.key, file);
      }
      // Loaded together: their slices queue side by side (search/turns.ts), not each behind
      // every load that arrived while the one before it was loading.
      const loaded = await Promise.all([...files.values()].map((file) => this.loadIndex(info, file)));
      [...files.keys()].forEach((key, k) => held.indexes.set(key, loaded[k]));
      // Indexes read by ranges (the Worker): their postings for these words first, then the
      // search at once, never in slices (the postings are installed for its duration only).
      if (loaded.some((ms) => remoteOf(ms))) return withPostings(loaded, words, () => runSync(this.searchSteps(ds, q, held)));
    }
    // Postings blocks read from disk last this search (binary-index.ts PostingsBlocks).
    for (const ms of held.indexes.values()) freshPostings(ms);
    const steps = this.searchSteps(ds, q, held);
    return yielding ? runYielding(steps) : runSync(steps);
  }

  private loading = new Map<string, Promise<MiniSearch>>();

  /**
   * Loads every minisearch index while the cache has room, so few clients wait for a cold
   * index (the server calls it once it listens, and after a release switch; its loads
   * share the event loop with requests, search/turns.ts).
   */
  async warmSearch(): Promise<void> {
    // Binary and whole (unsplit) JSON indexes: they load in milliseconds; a split JSON
    // index's parts load on first use in about as long.
    const all = [...this.r.datasets.values()]
      .filter((info) => info.search_fields?.length && info.search_kind !== 'terms')
      .flatMap((info) => Array.from({ length: info.search_shards ?? 1 }, (_, n) => ({ info, file: this.indexFile(info, n) })))
      .filter(({ file }) => !file.part)
      .map((x) => ({ ...x, size: this.r.entry(x.file.rel)?.size ?? 0 }))
      .sort((a, b) => b.size - a.size);
    for (const { info, file, size } of all) {
      // MIN_HEAP_RATIO first: an index that cannot fit is not loaded at all; one that
      // turns out larger than the room left is loaded and dropped, never evicting those
      // warmed before it.
      const ratio = file.binary ? 1 : MIN_HEAP_RATIO;
      if (size && this.r.cache.bytes + size * ratio <= this.r.budget) await this.loadIndex(info, file, true);
    }
  }

  /** Shard n's index file for `word`: its binary file, its part when a JSON shard is split, else the whole file. */
  private indexFile(info: DatasetInfo, n: number, word = '') {
    if (info.search_format === 'binary') return { key: `s:${info.id}:${n}`, rel: searchBinaryPath(info.id, n), part: false, binary: true };
    const parts = info.search_parts?.[n] ?? 1;
    if (parts <= 1) return { key: `s:${info.id}:${n}`, rel: searchPath(info.id, n), part: false };
    const b = partOf(word, parts);
    return { key: `s:${info.id}:${n}:${b}`, rel: searchPartPath(info.id, n, b), part: true };
  }

  /** An index file as a loaded MiniSearch: from the cache, else read and loaded in time slices (and cached). */
  private async loadIndex(info: DatasetInfo, file: { key: string; rel: string; binary?: boolean }, onlyIfRoom = false): Promise<MiniSearch> {
    const { key } = file;
    const hit = this.r.cache.get(key) as MiniSearch | undefined;
    if (hit !== undefined) return hit;
    let p = this.loading.get(key);
    if (p && this.r.isolated) {
      // The Worker: another request's load is waited for by looking, as release.ts afterOther says why.
      for (let waited = 0; waited < 2000 && this.loading.get(key) === p; waited += 4) {
        await new Promise((r) => setTimeout(r, 4));
        const v = this.r.cache.get(key) as MiniSearch | undefined;
        if (v !== undefined) return v;
      }
      if (this.loading.get(key) === p) this.loading.delete(key);
      const done = this.r.cache.get(key) as MiniSearch | undefined;
      if (done !== undefined) return done;
      p = undefined;
    }
    if (!p) {
      p = (async () => {
        // Read past the cache: the index holds what it needs of the file (all of a binary
        // file; none of a JSON text, which cached held as much again as the index).
        const options = searchOptions(info.search_fields, storesWeights(info), info.search_tuning?.stopWords);
        const size = this.r.entry(file.rel)?.size ?? 0;
        const readRange = this.r.readRange;
        if (file.binary && readRange && size > WHOLE_BELOW) {
          // The Worker: the bytes before the postings held, the postings read per query (remote-postings.ts).
          const ms = await openRemoteIndex(size, options, (from, to) => readRange.call(this.r, file.rel, from, to));
          this.r.cache.set(key, ms, indexHeapBytes(ms, 0));
          return ms;
        }
        const buf = await this.r.read(file.rel);
        // A binary index keeps its postings on disk where the store can read them by offset
        // (binary-index.ts): half its bytes, read a word at a time from the page cache.
        const ms = file.binary ? openBinaryIndex(buf, options, this.r.readAt?.(file.rel)) : keepTypoPrefix(await loadIndexSliced(buf.toString('utf8'), options));
        const bytes = indexHeapBytes(ms, buf.length);
        if (!onlyIfRoom || this.r.cache.bytes + bytes <= this.r.budget) this.r.cache.set(key, ms, bytes);
        return ms;
      })().finally(() => {
        if (this.loading.get(key) === p) this.loading.delete(key);
      });
      this.loading.set(key, p);
    }
    return p;
  }

  /**
   * Ordinals matching `q`, best first, within the cost bound of server/search-bounds.ts;
   * a sharded index is searched shard by shard and merged by score.
   */
  private *searchSteps(ds: string, q: string, held: Held): Generator<void, SearchResult> {
    const info = this.r.datasets.get(ds)!;
    const expired = deadline();
    if (info.search_kind === 'terms') {
      const bounded = boundWords(q, searchWords);
      // Stop words need not match (stop-words.ts); the word index has no scores for them to add to.
      const capped = { ...bounded, words: splitStopWords(bounded.words).content };
      const terms = (prefix: string) => held.terms.get(prefix);
      const expands = (w: string) => w.length >= PREFIX_MIN_LETTERS;
      const fit = fitBudget(capped.words, (w, expand) => postings(w, terms(termPrefix(w)) ?? [], expand && expands(w)).size, MAX_TERM_POSTINGS);
      const narrow = new Set(fit.unexpanded);
      const bounds = { prefix: (w: string) => expands(w) && !narrow.has(w), maxCandidates: MAX_CANDIDATES, expired };
      const r = termSearchBounded(fit.keep, terms, bounds);
      const ignored = [...capped.ignored, ...fit.ignored];
      const result: SearchResult = { ordinals: r.ordinals, ignored, unexpanded: fit.unexpanded, partial: r.truncated || ignored.length > 0 || narrow.size > 0 };
      // No record has every word: the ones with the most (match-tiers.ts tier 3; the word index has no stems).
      if (r.ordinals.length || r.truncated || fit.keep.length < 2) return result;
      const any = termSearchAny(fit.keep, terms, bounds);
      if (!any.ordinals.length) return result;
      return { ...result, ordinals: any.ordinals, match: 'partial', unmatched: any.unmatched, partial: result.partial || any.truncated };
    }
    const bounded = boundWords(q);
    // The words every match must have; stop words only add to scores (stop-words.ts).
    const { content, stop } = splitStopWords(bounded.words);
    const capped = { ...bounded, words: content };
    // Per shard, the index that holds a word: the shard's whole index, or the word's part
    // (all loaded before the search began).
    const shards = Array.from({ length: info.search_shards ?? 1 }, (_, n) => (w: string) => {
      const ms = held.indexes.get(this.indexFile(info, n, w).key);
      if (!ms) throw new Error(`search of ${ds}: the index for '${w}' was not loaded first`);
      return ms;
    });
    const fit = fitBudget(capped.words, (w, expand) => shards.reduce((n, msFor) => n + indexEntries(msFor(w), w, expand), 0), MAX_POSTINGS);
    yield;
    const ignored = [...capped.ignored, ...fit.ignored];
    const narrow = new Set(fit.unexpanded);
    // One search's options, and each word's minisearch query made once for tiers 1 and 2.
    const options = this.shardOptions(info, narrow);
    const query = termQueries(options);
    const tier1 = yield* this.wholeWords(info, shards, fit, narrow, stop, expired, options, query);
    const result: SearchResult = { ...tier1, ignored, unexpanded: fit.unexpanded, partial: tier1.partial || ignored.length > 0 || narrow.size > 0 };
    // The words as the index has them (its processTerm: stop words go), for the tiers after tier 1.
    const processTerm = (searchOptions(info.search_fields, storesWeights(info), info.search_tuning?.stopWords) as { processTerm?: (t: string) => string | null }).processTerm;
    const words = processTerm ? fit.keep.map((w) => processTerm(w)).filter((t): t is string => !!t) : fit.keep;
    const more = yield* moreTiers({
      shards, words, narrow, stems: !!info.search_stem?.length, fields: info.search_fields, options, query, spent: fit.total, expired,
    }, result.ordinals.length);
    return more ? withTiers(result, more) : result;
  }

  /**
   * Tier 1 (match-tiers.ts): the records matching every word, ranked by minisearch, or by
   * match kind when the words touch more than MAX_RANKED_POSTINGS entries.
   */
  private *wholeWords(info: DatasetInfo, shards: ((w: string) => MiniSearch)[], fit: { keep: string[]; total: number }, narrow: Set<string>, stop: string[], expired: () => boolean, options: SearchOptions, query: TermQuery): Generator<void, { ordinals: number[]; partial: boolean; ranked?: boolean }> {
    let partial = false;
    if (fit.total > MAX_RANKED_POSTINGS) {
      // Scores are small integers: each shard gives its ordinals per score in list order;
      // several shards are merged per score.
      const buckets = new Map<number, number[][]>();
      for (const msFor of shards) {
        const found = yield* matchRanked(msFor, fit.keep, narrow);
        for (const [score, list] of found) (buckets.get(score) ?? buckets.set(score, []).get(score)!).push(list);
      }
      yield;
      // Made at its size, not pushed (matchRanked says why).
      let total = 0;
      for (const lists of buckets.values()) for (const l of lists) total += l.length;
      const ordinals = new Array<number>(total);
      let at = 0;
      for (const score of [...buckets.keys()].sort((a, b) => b - a)) {
        const lists = buckets.get(score)!;
        // Several shards' lists merged in ascending order: copied into one typed array, sorted
        // there (flat(), then from() and back through iterators, was 4.3 of a 5 ms search
        // of population "texas", 19,500 hits; the same order, 1.8 ms).
        const merged = lists.length === 1 ? lists[0] : ascending(lists);
        for (let i = 0; i < merged.length; i++) ordinals[at++] = merged[i];
        yield;
      }
      return { ordinals, partial, ranked: false };
    }
    const all = [];
    for (let n = 0; n < shards.length; n++) {
      if (n && expired()) {
        partial = true;
        break;
      }
      all.push(...this.searchShard(info, shards[n], fit.keep, options, query));
    }
    const merged = shards.length === 1 ? all : all.sort((a, b) => b.score - a.score || (a.id as number) - (b.id as number));
    yield;
    const ordinals = addStopWordScores(merged, stop, shards, options, info.search_fields, fit.total).map((r) => r.id);
    return { ordinals, partial };
  }

  /** The minisearch options of a search of `info`'s indexes (`narrow`: words matched whole only). */
  private shardOptions(info: DatasetInfo, narrow: Set<string>): SearchOptions {
    const tuning = info.search_tuning;
    return {
      // A dataset's own tuning (aviation: prefixes from 3 letters, one typo) narrows the bounds further.
      prefix: (term) => BOUNDED_MATCH.prefix(term) && !narrow.has(term) && term.length >= (tuning?.prefixMinLength ?? 0),
      fuzzy: (term) => (narrow.has(term) ? false : BOUNDED_MATCH.fuzzy(term)),
      maxFuzzy: Math.min(BOUNDED_MATCH.maxFuzzy, tuning?.maxTypos ?? Infinity),
      combineWith: 'AND',
      ...(info.search_boost ? { boost: info.search_boost } : {}),
      // The index stores each record's weight (pipeline/search-weight.ts); a release before issue 36 its rank.
      ...(info.search_weights ? { boostDocument: (_id, _term, stored) => Number(stored?.__rank ?? 1) }
        : info.search_rank ? { boostDocument: (_id, _term, stored) => rankWeight(Number(stored?.__rank ?? 0), info.search_rank_scale) } : {}),
    };
  }

  /**
   * Tier 1 on one shard: minisearch's AND of the words, word by word (searchSplit): each
   * from its part where the index is split, and each word's query kept for tier 2. Whole
   * indexes were searched with minisearch's own search of the joined words, which scores
   * the same words the same way (test/search-parts.test.ts compares the two).
   */
  private searchShard(info: DatasetInfo, msFor: (w: string) => MiniSearch, words: string[], options: SearchOptions, query: TermQuery): { id: number; score: number }[] {
    // The index's processTerm first: stop words go.
    const opts = searchOptions(info.search_fields, storesWeights(info), info.search_tuning?.stopWords) as { processTerm?: (t: string) => string | null };
    const terms = words.map((w) => (opts.processTerm ? opts.processTerm(w) : w.toLowerCase())).filter((t): t is string => !!t);
    return searchSplit(msFor, terms, options, query);
  }
}

/** Tier 1's result with tiers 2 and 3 (match-tiers.ts): stem matches appended, or the partial matches instead. */
function withTiers(r: SearchResult, more: Tiers): SearchResult {
  const ordinals = more.match ? more.ordinals : more.ordinals.length ? r.ordinals.concat(more.ordinals) : r.ordinals;
  // Match-kind order for the answer as soon as any part of it was ranked so (meta.order "match").
  const ranked = r.ranked === false || (!more.ranked && more.ordinals.length > 0) ? false : r.ranked;
  return {
    ...r, ordinals, ...(ranked === false ? { ranked } : {}),
    ...(more.match ? { match: more.match, unmatched: more.unmatched } : {}),
    ...(more.unstemmed.length ? { unstemmed: more.unstemmed } : {}),
    partial: r.partial || more.truncated || more.unstemmed.length > 0,
  };
}

/** Whether an index of `info` stores a __rank per record (its weight, or in older releases its rank). */
const storesWeights = (info: DatasetInfo) => !!(info.search_weights || info.search_rank);
