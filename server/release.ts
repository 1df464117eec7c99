/**
 * The live release as the server sees it: the manifest, loaded once, and the files it
 * lists. A path that is not in the manifest cannot be read — the request path never
 * becomes a filesystem path, so traversal is impossible by construction.
 *
 * Hot files (packs, key buckets, filter and search indexes) are kept in memory in an
 * LRU bounded by ALMANAC_CACHE_MB (default 256; 0 reads from disk on every request,
 * which bench/serve.ts uses to measure what the cache buys). A record read alone (a
 * search hit, a lookup) does not load its pack into the cache: after the pack's first
 * read, single lines are read at their offsets (`record`).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { lineStartsOf, readRange, readWhole, scanLines } from './release-files.ts';
import { ApiError } from './errors.ts';
import { verifyReleaseFiles } from './release-check.ts';
import path from 'node:path';
import { MANIFEST, PACK_SIZE, aliasKey, bucketOf, columnPath, filterPath, keyBucketPath, packOf, packPath, releaseDir } from '../pipeline/paths.ts';
import type { DatasetInfo } from '../pipeline/shards.ts';
import type { SearchResult } from './search-bounds.ts';
import { ReleaseSearch } from './release-search.ts';
import type { Manifest, FileEntry } from '../pipeline/writer.ts';
import { readCurrent } from '../pipeline/writer.ts';
import { Lru } from './lru.ts';

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
  /** Search over the minisearch indexes and word indexes of this release (server/release-search.ts). */
  private readonly searching: ReleaseSearch;

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
    this.searching = new ReleaseSearch({
      datasets: this.datasets, cache: this.cache, budget: cacheBytes,
      entry: (rel) => this.entry(rel), json: (rel) => this.json(rel), read: (rel) => this.readChecked(rel), cached: (key, load) => this.cached(key, load),
    });
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
    const { bytes: b, sig } = readWhole(path.join(this.dir, disk));
    const e = this.entry(rel)!;
    // A file verified once is not hashed again on a re-read (after the cache evicted it)
    // while its inode, size and mtime are unchanged: a 1 MB pack took ~2 ms to hash, on
    // every reload (issue 14). Any write to the file changes its mtime and re-checks it.
    const ok = encoding
      ? b.length === (encoding === 'br' ? e.br : e.gzip)
      : b.length === e.size && (this.verified.get(rel) === sig || createHash('sha256').update(b).digest('hex') === e.sha256);
    if (!ok) {
      this.corrupt.add(rel);
      this.onCorrupt(disk);
      throw corruptError(rel);
    }
    if (!encoding) this.verified.set(rel, sig);
    return b;
  }

  /** Identity files whose sha256 matched, with the stat signature they had then. */
  private readonly verified = new Map<string, string>();

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
    // Read past the file cache: the parsed value is what is kept (and counted), not the bytes too.
    return this.cached(`j:${rel}`, () => {
      const buf = this.readChecked(rel);
      return [JSON.parse(buf.toString('utf8')) as V, buf.length * 3];
    });
  }

  /** The record lines of one pack, each a complete JSON object (cached: list pages read whole packs). */
  private pack(ds: string, n: number): Buffer[] {
    // Read past the file cache: the lines hold the pack's buffer, counted once here
    // (through file() each pack was counted twice, and aviation's 134 packs filled the cache).
    return this.cached(`p:${ds}/${n}`, () => {
      const { buf, starts } = this.packBytes(ds, n);
      const lines: Buffer[] = new Array(starts.length - 1);
      for (let k = 0; k + 1 < starts.length; k++) lines[k] = buf.subarray(starts[k], starts[k + 1] - 1);
      return [lines, buf.length + lines.length * 16];
    });
  }

  /** A pack's bytes, checked, and where its lines start (remembered for record). */
  private packBytes(ds: string, n: number): { buf: Buffer; starts: Uint32Array } {
    const rel = packPath(ds, n);
    const buf = this.readChecked(rel);
    const starts = lineStartsOf(buf);
    this.lineStarts.set(rel, starts);
    return { buf, starts };
  }

  /**
   * Where each line of a pack read once starts (4 bytes a line), so that one record is
   * read alone: a search answer's 20 records from anywhere in a large dataset read 20
   * lines, not 20 packs of ~1 MB, and do not push the search index parts out of the cache
   * (issue 14: aviation's answers took 20–70 ms, most of it reloading the parts its own
   * pack reads had evicted).
   */
  private readonly lineStarts = new Map<string, Uint32Array>();

  /**
   * One record by ordinal: from its pack if cached, else read alone (its pack read and
   * checked once, not cached, then single lines at their offsets).
   */
  record(ds: string, ordinal: number): Buffer {
    const n = packOf(ordinal);
    const i = ordinal % PACK_SIZE;
    const cached = this.cache.get(`p:${ds}/${n}`) as Buffer[] | undefined;
    if (cached) return cached[i];
    const rel = packPath(ds, n);
    const known = this.lineStarts.get(rel);
    if (known && i + 1 < known.length) {
      const line = this.readLine(rel, known[i], known[i + 1] - 1);
      if (line) return line;
    }
    const starts = this.scanPack(rel);
    if (i + 1 >= starts.length) throw new Error(`${rel} has no record ${i}`);
    const line = this.readLine(rel, starts[i], starts[i + 1] - 1);
    if (!line) throw corruptError(rel); // changed between the scan and the read
    return line;
  }

  /** Checks a pack against its sha256 and finds its line starts, without holding its bytes. */
  private scanPack(rel: string): Uint32Array {
    const e = this.entry(rel);
    if (!e) throw new Error(`not in manifest: ${rel}`); // as readChecked: never a path the manifest does not list
    if (this.corrupt.has(rel)) throw corruptError(rel);
    const scan = scanLines(path.join(this.dir, rel));
    if (scan.size !== e.size || scan.sha256 !== e.sha256) {
      this.corrupt.add(rel);
      this.onCorrupt(rel);
      throw corruptError(rel);
    }
    this.verified.set(rel, scan.sig);
    this.lineStarts.set(rel, scan.starts);
    return scan.starts;
  }

  /**
   * Bytes [from, to) of a file verified before, or undefined (the caller reads and checks
   * the whole file) when its inode, size or mtime changed since: no line of a file changed
   * on disk is served unchecked.
   */
  private readLine(rel: string, from: number, to: number): Buffer | undefined {
    if (this.corrupt.has(rel)) throw corruptError(rel);
    const sig = this.verified.get(rel);
    return sig === undefined ? undefined : readRange(path.join(this.dir, rel), from, to, sig);
  }

  /** Records [offset, offset+limit) in list order: at most two packs for a page. */
  slice(ds: string, offset: number, limit: number): Buffer[] {
    const info = this.datasets.get(ds)!;
    const end = Math.min(info.records, offset + limit);
    const out: Buffer[] = [];
    for (let o = offset; o < end; o++) out.push(this.pack(ds, packOf(o))[o % PACK_SIZE]);
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
    return this.searching.searchWithin(ds, q);
  }

  /**
   * searchWithin for the server: the long part (ranking a broad query from its postings)
   * gives the event loop back every SEARCH_SLICE_MS, so /healthz and other requests are
   * answered while it runs.
   */
  searchAsync(ds: string, q: string): Promise<SearchResult> {
    return this.searching.searchAsync(ds, q);
  }

  /** Loads the whole search indexes that fit in the cache (before listening, after a release switch). */
  warmSearch(): Promise<void> {
    return this.searching.warmSearch();
  }
}
