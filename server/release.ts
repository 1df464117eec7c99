/**
 * The live release as the server sees it: the manifest, loaded once, and the files it
 * lists. A path that is not in the manifest cannot be read — the request path never
 * becomes a filesystem path, so traversal is impossible by construction.
 *
 * Hot files (packs, key buckets, filter and search indexes) are kept in memory in an
 * LRU bounded by ALMANAC_CACHE_MB (default 256; 0 reads from disk on every request,
 * which bench/serve.ts uses to measure what the cache buys).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { ApiError } from './errors.ts';
import { verifyReleaseFiles } from './release-check.ts';
import path from 'node:path';
import MiniSearch, { type SearchOptions } from 'minisearch';
import {
  MANIFEST, PACK_SIZE, aliasKey, bucketOf, columnPath, filterPath, termsPath, keyBucketPath, packOf, packPath, releaseDir, searchPartPath, searchPath,
} from '../pipeline/paths.ts';
import { searchOptions, type DatasetInfo } from '../pipeline/shards.ts';
import { postings, searchWords, termPrefix, termSearchBounded, type TermShard } from '../pipeline/term-index.ts';
import { indexEntries, keepTypoPrefix, matchRanked, searchSplit } from './search-index.ts';
import { partOf } from '../pipeline/search-parts.ts';
import {
  runSync, runYielding, BOUNDED_MATCH, MAX_CANDIDATES, MAX_POSTINGS, MAX_RANKED_POSTINGS, MAX_TERM_POSTINGS, PREFIX_MIN_LETTERS, boundWords, deadline, fitBudget, type SearchResult,
} from './search-bounds.ts';
import type { Manifest, FileEntry } from '../pipeline/writer.ts';
import { readCurrent } from '../pipeline/writer.ts';

/** A byte-budgeted LRU; Map iteration order is insertion order, so the first entry is the oldest. */
export class Lru<V> {
  /** Bytes held; exposed for tests. */
  get bytes() {
    return this.used;
  }
  private map = new Map<string, { v: V; size: number }>();
  private used = 0;
  constructor(private budget: number) {}
  /** Keys and counted sizes, least recently used first (tests, benches). */
  entries(): { key: string; size: number }[] {
    return [...this.map].map(([key, e]) => ({ key, size: e.size }));
  }
  get(k: string): V | undefined {
    const e = this.map.get(k);
    if (!e) return undefined;
    this.map.delete(k);
    this.map.set(k, e);
    return e.v;
  }
  set(k: string, v: V, size: number) {
    const old = this.map.get(k);
    if (old) {
      // Replacing an entry must not count its old size twice.
      this.map.delete(k);
      this.used -= old.size;
    }
    if (size > this.budget) return;
    this.map.set(k, { v, size });
    this.used += size;
    for (const [key, e] of this.map) {
      if (this.used <= this.budget) break;
      this.map.delete(key);
      this.used -= e.size;
    }
  }
}

/**
 * What a loaded minisearch index holds on the V8 heap. Measured with --expose-gc on 12
 * indexes of the full release (heap growth of loadJSON after GC; 15–139 MiB each, 4.6–11
 * times the JSON's size): ~570 bytes per term, ~70 per document and ~4 per byte of the
 * JSON fit every one within 5 %. The earlier 4 × JSON size counted places and aviation
 * at 40 % of what they hold, so the cache held far more than ALMANAC_CACHE_MB.
 */
export const indexHeapBytes = (ms: MiniSearch, jsonLength: number) =>
  // The documents it holds, not documentCount: a part of a split index keeps the whole
  // shard's count for scoring but holds only the documents its words name.
  600 * ms.termCount + 70 * (ms as unknown as { _documentIds: Map<number, number> })._documentIds.size + 4 * jsonLength;
/** The smallest heap-to-JSON ratio measured: an index file is never smaller than this in memory. */
const MIN_HEAP_RATIO = 4.5;

const corruptError = (rel: string) =>
  new ApiError('release_corrupt', 'a file of the live release is damaged; the operator has been told', { file: rel.slice(0, 200) });

export class Release {
  readonly id: string;
  readonly dir: string;
  readonly manifest: Manifest;
  readonly datasets = new Map<string, DatasetInfo>();
  readonly absent: Record<string, string>;
  private cache: Lru<unknown>;
  private readonly cacheBudget: number;

  /**
   * The live release of `dist`, or (`at`) a release whose files sit elsewhere: an
   * extracted offline bundle served by `npm run serve -- --bundle <dir>` (server/main.ts).
   */
  constructor(readonly dist: string, cacheBytes = Number(process.env.ALMANAC_CACHE_MB ?? 256) * 2 ** 20, at?: { id: string; dir: string; manifest: Manifest }) {
    const id = at?.id ?? readCurrent(dist);
    if (!id) throw new Error(`no release in ${dist}: run npm run build`);
    this.id = id;
    this.dir = at?.dir ?? releaseDir(dist, id);
    this.manifest = at?.manifest ?? JSON.parse(readFileSync(path.join(this.dir, MANIFEST), 'utf8'));
    for (const [k, v] of Object.entries(this.manifest.datasets as Record<string, DatasetInfo>)) this.datasets.set(k, v);
    this.absent = (this.manifest.absent as Record<string, string>) ?? {};
    this.cache = new Lru(cacheBytes);
    this.cacheBudget = cacheBytes;
    verifyReleaseFiles(this.id, this.dir, this.manifest);
  }

  /** What the shard cache holds and counts (tests, benches). */
  cacheStats() {
    return { bytes: this.cache.bytes, budget: this.cacheBudget, entries: this.cache.entries() };
  }

  /** Files whose bytes did not match the manifest when first read; /healthz lists them. */
  readonly corrupt = new Set<string>();
  /** Reports a corrupt file once (set by the app). */
  onCorrupt: (rel: string) => void = () => {};

  entry(rel: string): FileEntry | undefined {
    return Object.hasOwn(this.manifest.files, rel) ? this.manifest.files[rel] : undefined;
  }

  /** Bytes of a manifest-listed file (or its .br/.gz variant), through the cache. */
  file(rel: string, encoding: '' | 'br' | 'gzip' = ''): Buffer {
    const disk = rel + (encoding === 'br' ? '.br' : encoding === 'gzip' ? '.gz' : '');
    if (this.corrupt.has(rel)) throw corruptError(rel);
    return this.cached(`f:${disk}`, () => {
      const b = this.readChecked(rel, encoding);
      return [b, b.length];
    });
  }

  /**
   * A file's bytes from disk, checked (then cached by the caller, or not): identity bytes
   * against the build's sha256, compressed variants against their recorded size.
   */
  private readChecked(rel: string, encoding: '' | 'br' | 'gzip' = ''): Buffer {
    if (!this.entry(rel)) throw new Error(`not in manifest: ${rel}`);
    if (this.corrupt.has(rel)) throw corruptError(rel);
    const disk = rel + (encoding === 'br' ? '.br' : encoding === 'gzip' ? '.gz' : '');
    const b = readFileSync(path.join(this.dir, disk));
    const e = this.entry(rel)!;
    const ok = encoding ? b.length === (encoding === 'br' ? e.br : e.gzip) : b.length === e.size && createHash('sha256').update(b).digest('hex') === e.sha256;
    if (!ok) {
      this.corrupt.add(rel);
      this.onCorrupt(disk);
      throw corruptError(rel);
    }
    return b;
  }

  private cached<V>(key: string, load: () => [V, number]): V {
    let v = this.cache.get(key) as V | undefined;
    if (v === undefined) {
      const [value, size] = load();
      this.cache.set(key, value, size);
      v = value;
    }
    return v;
  }

  private json<V>(rel: string): V {
    return this.cached(`j:${rel}`, () => {
      const buf = this.file(rel);
      return [JSON.parse(buf.toString('utf8')) as V, buf.length * 3];
    });
  }

  /** The record lines of one pack, each a complete JSON object. */
  private pack(ds: string, n: number): Buffer[] {
    return this.cached(`p:${ds}/${n}`, () => {
      const buf = this.file(packPath(ds, n));
      const lines: Buffer[] = [];
      let start = 0;
      for (let i = buf.indexOf(10); i !== -1; i = buf.indexOf(10, start)) {
        lines.push(buf.subarray(start, i));
        start = i + 1;
      }
      return [lines, buf.length + lines.length * 16];
    });
  }

  record(ds: string, ordinal: number): Buffer {
    return this.pack(ds, packOf(ordinal))[ordinal % PACK_SIZE];
  }

  /** Records [offset, offset+limit) in list order: at most two packs for a page. */
  slice(ds: string, offset: number, limit: number): Buffer[] {
    const info = this.datasets.get(ds)!;
    const end = Math.min(info.records, offset + limit);
    const out: Buffer[] = [];
    for (let o = offset; o < end; o++) out.push(this.record(ds, o));
    return out;
  }

  private keyEntry(ds: string, k: string): number | string[] | undefined {
    const info = this.datasets.get(ds)!;
    const bucket = this.json<Record<string, number | string[]>>(keyBucketPath(ds, bucketOf(k, info.key_buckets)));
    return Object.hasOwn(bucket, k) ? bucket[k] : undefined;
  }

  /**
   * Ordinal of the record with this id, or else of the unique record with this alias (any case).
   * `foldedFirst` tries the case-folded key first: the same answer (an id owns its folded
   * form unless two ids fold alike, and then the exact id is tried next), but a lookup by
   * an alias in another case reads one key bucket, not two.
   */
  lookup(ds: string, key: string, foldedFirst = false): number | undefined {
    for (const k of foldedFirst ? [aliasKey(key), key] : [key, aliasKey(key)]) {
      const entry = this.keyEntry(ds, k);
      if (typeof entry === 'number') return entry;
    }
    return undefined;
  }

  /** The ids of the records that share this alias (any case), when several do; else undefined. */
  candidates(ds: string, key: string): string[] | undefined {
    const alias = this.keyEntry(ds, aliasKey(key));
    return Array.isArray(alias) ? alias : undefined;
  }

  /** Ordinals with this filter value, or undefined when the value does not occur. */
  filter(ds: string, param: string, value: string): number[] | undefined {
    const index = this.json<Record<string, number[]>>(filterPath(ds, param));
    return Object.hasOwn(index, value) ? index[value] : undefined;
  }

  filterValues(ds: string, param: string): string[] {
    return Object.keys(this.json<Record<string, number[]>>(filterPath(ds, param)));
  }

  /** A field's values in list order (numbers; dates as epoch ms), for bound, geo and expiry filters. */
  column(ds: string, field: string): (number | null)[] {
    return this.json<(number | null)[]>(columnPath(ds, field));
  }

  /** Ordinals matching `q`, best first (see searchWithin for the bounds that apply). */
  search(ds: string, q: string): number[] {
    return this.searchWithin(ds, q).ordinals;
  }

  /** searchWithin, run to completion at once (benches, tests). */
  searchWithin(ds: string, q: string): SearchResult {
    return runSync(this.searchSteps(ds, q));
  }

  /**
   * searchWithin for the server: the long part (ranking a broad query from its postings)
   * gives the event loop back every SEARCH_SLICE_MS, so /healthz and other requests are
   * answered while it runs.
   */
  async searchAsync(ds: string, q: string): Promise<SearchResult> {
    const info = this.datasets.get(ds)!;
    if (info.search_kind !== 'terms') {
      // The files this query reads: each shard's index, or the parts of its words.
      const words = boundWords(q).words;
      for (let n = 0; n < (info.search_shards ?? 1); n++) {
        for (const file of new Map(words.map((w) => this.indexFile(info, n, w)).map((f) => [f.key, f])).values()) await this.loadIndex(info, file);
      }
    }
    return runYielding(this.searchSteps(ds, q));
  }

  private loading = new Map<string, Promise<unknown>>();

  /**
   * Loads every minisearch index while the cache has room, so no client waits for a cold
   * index (the server calls it before listening and after a release switch).
   */
  async warmSearch(): Promise<void> {
    // Whole (unsplit) indexes only: they are under PART_BYTES of JSON and load in
    // milliseconds; a split index's parts load on first use in about as long.
    const all = [...this.datasets.values()]
      .filter((info) => info.search_fields?.length && info.search_kind !== 'terms')
      .flatMap((info) => Array.from({ length: info.search_shards ?? 1 }, (_, n) => ({ info, file: this.indexFile(info, n) })))
      .filter(({ file }) => !file.part)
      .map((x) => ({ ...x, size: this.entry(x.file.rel)?.size ?? 0 }))
      .sort((a, b) => b.size - a.size);
    for (const { info, file, size } of all) {
      // MIN_HEAP_RATIO first: an index that cannot fit is not loaded at all; one that
      // turns out larger than the room left is loaded and dropped, never evicting those
      // warmed before it.
      if (size && this.cache.bytes + size * MIN_HEAP_RATIO <= this.cacheBudget) await this.loadIndex(info, file, true);
    }
  }

  /** Shard n's index file for `word`: its part when the shard is split, else the whole file. */
  private indexFile(info: DatasetInfo, n: number, word = '') {
    const parts = info.search_parts?.[n] ?? 1;
    if (parts <= 1) return { key: `s:${info.id}:${n}`, rel: searchPath(info.id, n), part: false };
    const b = partOf(word, parts);
    return { key: `s:${info.id}:${n}:${b}`, rel: searchPartPath(info.id, n, b), part: true };
  }

  private async loadIndex(info: DatasetInfo, file: { key: string; rel: string }, onlyIfRoom = false) {
    const { key } = file;
    if (this.cache.get(key) !== undefined) return;
    let p = this.loading.get(key);
    if (!p) {
      p = (async () => {
        // Read past the cache: the JSON text is only needed to build the index, and
        // cached it held as much again as the index file's size.
        const text = this.readChecked(file.rel).toString('utf8');
        const ms = keepTypoPrefix(await MiniSearch.loadJSONAsync(text, searchOptions(info.search_fields, info.search_rank, info.search_tuning?.stopWords)));
        const bytes = indexHeapBytes(ms, text.length);
        if (!onlyIfRoom || this.cache.bytes + bytes <= this.cacheBudget) this.cache.set(key, ms, bytes);
      })().finally(() => this.loading.delete(key));
      this.loading.set(key, p);
    }
    await p;
  }

  /**
   * Ordinals matching `q`, best first, within the cost bound of server/search-bounds.ts;
   * a sharded index is searched shard by shard and merged by score.
   */
  private *searchSteps(ds: string, q: string): Generator<void, SearchResult> {
    const info = this.datasets.get(ds)!;
    const expired = deadline();
    if (info.search_kind === 'terms') {
      const capped = boundWords(q, searchWords);
      const terms = (prefix: string) => (this.entry(termsPath(ds, prefix)) ? this.json<TermShard>(termsPath(ds, prefix)) : undefined);
      const expands = (w: string) => w.length >= PREFIX_MIN_LETTERS;
      const fit = fitBudget(capped.words, (w, expand) => postings(w, terms(termPrefix(w)) ?? [], expand && expands(w)).size, MAX_TERM_POSTINGS);
      const narrow = new Set(fit.unexpanded);
      const r = termSearchBounded(fit.keep, terms, { prefix: (w) => expands(w) && !narrow.has(w), maxCandidates: MAX_CANDIDATES, expired });
      const ignored = [...capped.ignored, ...fit.ignored];
      return { ordinals: r.ordinals, ignored, unexpanded: fit.unexpanded, partial: r.truncated || ignored.length > 0 || narrow.size > 0 };
    }
    const capped = boundWords(q);
    // Per shard, the index that holds a word: the shard's whole index, or the word's part.
    const shards = Array.from({ length: info.search_shards ?? 1 }, (_, n) => (w: string) => this.miniSearch(info, this.indexFile(info, n, w)));
    const fit = fitBudget(capped.words, (w, expand) => shards.reduce((n, msFor) => n + indexEntries(msFor(w), w, expand), 0), MAX_POSTINGS);
    yield;
    const ignored = [...capped.ignored, ...fit.ignored];
    const narrow = new Set(fit.unexpanded);
    let partial = ignored.length > 0 || narrow.size > 0;
    if (fit.total > MAX_RANKED_POSTINGS) {
      // Scores are small integers: each shard gives its ordinals per score in list order;
      // several shards are merged per score.
      const buckets = new Map<number, number[][]>();
      for (const msFor of shards) {
        const found = yield* matchRanked(msFor, fit.keep, narrow);
        for (const [score, list] of found) (buckets.get(score) ?? buckets.set(score, []).get(score)!).push(list);
      }
      yield;
      const ordinals: number[] = [];
      for (const score of [...buckets.keys()].sort((a, b) => b - a)) {
        const lists = buckets.get(score)!;
        const merged = lists.length === 1 ? lists[0] : Array.from(Float64Array.from(lists.flat()).sort());
        for (let i = 0; i < merged.length; i++) ordinals.push(merged[i]);
        yield;
      }
      return { ordinals, ignored, unexpanded: fit.unexpanded, partial, ranked: false };
    }
    const all = [];
    for (let n = 0; n < shards.length; n++) {
      if (n && expired()) {
        partial = true;
        break;
      }
      all.push(...this.searchShard(info, n, fit.keep, narrow));
    }
    const ordinals = shards.length === 1
      ? all.map((r) => r.id as number)
      : all.sort((a, b) => b.score - a.score || (a.id as number) - (b.id as number)).map((r) => r.id as number);
    return { ordinals, ignored, unexpanded: fit.unexpanded, partial };
  }

  private miniSearch(info: DatasetInfo, file: { key: string; rel: string }): MiniSearch {
    return this.cached(file.key, () => {
      const text = this.readChecked(file.rel).toString('utf8');
      const ms = keepTypoPrefix(MiniSearch.loadJSON(text, searchOptions(info.search_fields, info.search_rank, info.search_tuning?.stopWords)));
      return [ms, indexHeapBytes(ms, text.length)];
    });
  }

  private searchShard(info: DatasetInfo, n: number, words: string[], narrow: Set<string>): { id: number; score: number }[] {
    const tuning = info.search_tuning;
    const options: SearchOptions = {
      // A dataset's own tuning (aviation: prefixes from 3 letters, one typo) narrows the bounds further.
      prefix: (term) => BOUNDED_MATCH.prefix(term) && !narrow.has(term) && term.length >= (tuning?.prefixMinLength ?? 0),
      fuzzy: (term) => (narrow.has(term) ? false : BOUNDED_MATCH.fuzzy(term)),
      maxFuzzy: Math.min(BOUNDED_MATCH.maxFuzzy, tuning?.maxTypos ?? Infinity),
      combineWith: 'AND',
      ...(info.search_boost ? { boost: info.search_boost } : {}),
      ...(info.search_rank ? { boostDocument: (_id, _term, stored) => 1 + Math.log10(1 + Number(stored?.__rank ?? 0)) } : {}),
    };
    const file = this.indexFile(info, n);
    if (!file.part) return this.miniSearch(info, file).search(words.join(' '), options) as { id: number; score: number }[];
    // A split index: each word from its part (the index's processTerm first: stop words go).
    const opts = searchOptions(info.search_fields, info.search_rank, info.search_tuning?.stopWords) as { processTerm?: (t: string) => string | null };
    const terms = words.map((w) => (opts.processTerm ? opts.processTerm(w) : w.toLowerCase())).filter((t): t is string => !!t);
    return searchSplit((t) => this.miniSearch(info, this.indexFile(info, n, t)), terms, options);
  }
}
