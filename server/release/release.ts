/**
 * A release as the server sees it: its manifest, loaded once, and the files it lists,
 * read through a ReleaseReader (release/reader.ts: a folder here, an R2 bucket at the
 * edge). A path that is not in the manifest cannot be read — the request path never
 * becomes a storage path, so traversal is impossible by construction.
 *
 * Hot files (packs, key buckets, filter and search indexes) are kept in memory in an
 * LRU bounded by `cacheBytes` (the Node server: ALMANAC_CACHE_MB, default 256; 0 reads
 * on every request). A record read alone (a search hit, a lookup) does not load its pack
 * into the cache when the reader can scan (Node): after the pack's first read, single
 * lines are read at their offsets (`record`, pack-lines.ts).
 *
 * Every read is async (the edge's reads are), and every file is checked: against its
 * sha256 on first read, unless the store verified it when it was written (R2).
 */
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { brotliDecompress, gunzip } from 'node:zlib';
import { aliasKey, bucketOf, columnPath, filterPath, keyBucketPath } from '../../pipeline/paths.ts';
import type { DatasetInfo } from '../../pipeline/shards.ts';
import type { FileEntry, Manifest } from '../../pipeline/writer.ts';
import { ApiError } from '../http/errors.ts';
import type { SearchResult } from '../search/search-bounds.ts';
import { ReleaseSearch } from '../search/release-search.ts';
import { checkInBackground, type CheckResult } from './background-check.ts';
import { parseJson } from './json-slices.ts';
import { bucketEntry, keyBucket, type BucketEntry } from './key-bucket.ts';
import { Lru } from './lru.ts';
import { PackLines } from './pack-lines.ts';
import type { ReleaseReader } from './reader.ts';

const brotliDecompressAsync = promisify(brotliDecompress);
const gunzipAsync = promisify(gunzip);

/** Where a release's files sit in a dist folder or bucket (pipeline/paths.ts releaseDir). */
export const releaseBase = (id: string) => `releases/${id}/`;
/** Where a release's offline bundle sits (pipeline/paths.ts bundleDir). */
export const bundleBase = (id: string) => `bundles/${id}/`;

/** How long the Worker waits for a file another request is loading before loading it itself. */
const LOAD_WAIT_MS = 2000;

const corruptError = (rel: string) =>
  new ApiError('release_corrupt', 'a file of the live release is damaged; the operator has been told', { file: rel.slice(0, 200) });

export interface ReleaseAt {
  id: string;
  /** Prefix of the release's files in the reader (`releases/<id>/`, or '' for a bundle's folder). */
  base: string;
  manifest: Manifest;
  /** The shard cache's budget in bytes (default 256 MiB). */
  cacheBytes?: number;
  /** The dist folder on this machine, when there is one (messages). */
  dist?: string;
  /** An extracted offline bundle (`serve --bundle`), which carries no downloads of its own. */
  bundle?: boolean;
}

/**
 * A buffer's sha256 (hex). From HASH_OFF_THREAD bytes on it is computed on the thread pool
 * (WebCrypto's digest), not on the event loop: a 10 MB index part took 25–40 ms to hash,
 * and nothing else was answered meanwhile (issue 27).
 */
const HASH_OFF_THREAD = 512 * 1024;
async function sha256(b: Buffer): Promise<string> {
  if (b.length < HASH_OFF_THREAD) return createHash('sha256').update(b).digest('hex');
  return Buffer.from(await globalThis.crypto.subtle.digest('SHA-256', b as unknown as BufferSource)).toString('hex');
}

/** Files `reads` keeps open (a 100-verse range reads from one to three stored panels files). */
const OPEN_READS = 16;

export class Release {
  readonly id: string;
  readonly base: string;
  readonly dist: string | undefined;
  /** Served from an extracted offline bundle (ReleaseAt.bundle). */
  readonly bundle: boolean;
  readonly manifest: Manifest;
  readonly datasets = new Map<string, DatasetInfo>();
  readonly absent: Record<string, string>;
  private cache: Lru<unknown>;
  private readonly cacheBudget: number;
  /** Search over the minisearch indexes and word indexes of this release (search/release-search.ts). */
  private readonly searching: ReleaseSearch;
  /** Records read from packs, by line where the reader can scan (pack-lines.ts). */
  private readonly lines: PackLines;

  constructor(readonly reader: ReleaseReader, at: ReleaseAt) {
    this.id = at.id;
    this.base = at.base;
    this.bundle = at.bundle ?? false;
    this.dist = at.dist;
    this.manifest = at.manifest;
    for (const [k, v] of Object.entries(this.manifest.datasets as Record<string, DatasetInfo>)) this.datasets.set(k, v);
    this.absent = (this.manifest.absent as Record<string, string>) ?? {};
    const cacheBytes = at.cacheBytes ?? 256 * 2 ** 20;
    this.cache = new Lru(cacheBytes);
    this.cacheBudget = cacheBytes;
    this.searching = new ReleaseSearch({
      datasets: this.datasets, cache: this.cache, budget: cacheBytes,
      entry: (rel) => this.entry(rel), json: (rel) => this.json(rel), read: (rel) => this.readChecked(rel), cached: (key, load) => this.cached(key, load),
      readAt: (rel) => this.readAt(rel), isolated: reader.isolated,
      ...(reader.slice && reader.verified ? { readRange: (rel: string, from: number, to: number) => this.readRange(rel, from, to) } : {}),
    });
    this.lines = new PackLines({
      reader, base: this.base, datasets: this.datasets, entry: (rel) => this.entry(rel), read: (rel) => this.readChecked(rel),
      cached: (key, load) => this.cached(key, load), get: (key) => this.cache.get(key),
      verified: this.verified, corrupt: this.corrupt, bad: (rel, disk) => this.bad(rel, disk), corruptError,
    });
    reader.verifyRelease?.(this.id, this.base, this.manifest.files);
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
  file(rel: string, encoding: '' | 'br' | 'gzip' = ''): Promise<Buffer> {
    const disk = rel + (encoding === 'br' ? '.br' : encoding === 'gzip' ? '.gz' : '');
    if (this.corrupt.has(rel)) return Promise.reject(corruptError(rel));
    return this.cached(`f:${disk}`, async () => {
      const b = await this.readChecked(rel, encoding);
      return [b, b.length];
    });
  }

  private bad(rel: string, disk: string): never {
    this.corrupt.add(rel);
    this.onCorrupt(disk);
    throw corruptError(rel);
  }

  /**
   * A file's bytes, checked (then cached by the caller, or not): identity bytes against
   * the build's sha256, compressed variants against their size and, decoded, that sha256.
   */
  private async readChecked(rel: string, encoding: '' | 'br' | 'gzip' = ''): Promise<Buffer> {
    const e = this.entry(rel);
    if (!e) throw new Error(`not in manifest: ${rel}`);
    if (this.corrupt.has(rel)) throw corruptError(rel);
    const disk = rel + (encoding === 'br' ? '.br' : encoding === 'gzip' ? '.gz' : '');
    let got;
    try {
      got = await this.reader.read(this.base + disk);
    } catch (err) {
      // A file the manifest lists that the store cannot give is as good as damaged.
      if ((err as NodeJS.ErrnoException).code === 'ENOENT' || (err as Error).name === 'NotFound') this.bad(rel, disk);
      throw err;
    }
    const { bytes: b, sig } = got;
    // A file verified once is not hashed again on a re-read (after the cache evicted it)
    // while its signature (inode, size, mtime; an object's etag) is unchanged: a 1 MB pack
    // took ~2 ms to hash, on every reload (issue 14). Any write to a file changes it.
    const ok = encoding
      ? b.length === (encoding === 'br' ? e.br : e.gzip) && (this.reader.verified || this.verified.get(disk) === sig || await this.variantMatches(b, encoding, e.sha256))
      : b.length === e.size && (this.reader.verified || this.verified.get(rel) === sig || await sha256(b) === e.sha256);
    if (!ok) this.bad(rel, disk);
    this.verified.set(disk, sig);
    return b;
  }

  /**
   * Whether a prebuilt compressed variant decodes to the identity file's bytes. The manifest
   * holds only the variant's size, and a flipped byte keeps the size (issue 26, item 12): so
   * the variant is decoded once per signature, off the event loop, and its hash compared.
   */
  private async variantMatches(b: Buffer, encoding: 'br' | 'gzip', sha256: string): Promise<boolean> {
    try {
      const plain = await (encoding === 'br' ? brotliDecompressAsync(b) : gunzipAsync(b));
      return createHash('sha256').update(plain).digest('hex') === sha256;
    } catch {
      return false;
    }
  }

  /** Files (identity or variant, by disk path) whose bytes matched, with the signature they had then. */
  private readonly verified = new Map<string, string>();
  /** Loads under way, so concurrent requests for one file read it once. */
  private readonly loading = new Map<string, Promise<unknown>>();

  private cached<V>(key: string, load: () => Promise<[V, number]>): Promise<V> {
    const v = this.cache.get(key) as V | undefined;
    if (v !== undefined) return Promise.resolve(v);
    let p = this.loading.get(key) as Promise<V> | undefined;
    if (p && this.reader.isolated) return this.afterOther(key, load);
    if (!p) {
      p = load().then(([value, size]) => {
        this.cache.set(key, value, size);
        return value;
      }).finally(() => {
        if (this.loading.get(key) === p) this.loading.delete(key);
      });
      this.loading.set(key, p);
    }
    return p;
  }

  /**
   * The Worker (reader.isolated): a file another request is loading is waited for by
   * looking at the cache every few milliseconds (its promise is not awaited: workerd would
   * cancel this request's continuation if that request ended first); past LOAD_WAIT_MS, or
   * once it is done without caching the file, this request loads it itself.
   */
  private async afterOther<V>(key: string, load: () => Promise<[V, number]>): Promise<V> {
    for (let waited = 0; waited < LOAD_WAIT_MS && this.loading.has(key); waited += 4) {
      await new Promise((r) => setTimeout(r, 4));
      const v = this.cache.get(key) as V | undefined;
      if (v !== undefined) return v;
    }
    this.loading.delete(key); // a load that never ended (its request was cancelled) or is too slow
    return this.cached(key, load);
  }

  private json<V>(rel: string): Promise<V> {
    // Read past the file cache: the parsed value is what is kept (and counted), not the bytes too.
    return this.parsedAs('j:', rel, (v: V, bytes) => [v, bytes * 3]);
  }

  /**
   * A JSON file parsed (a large one in slices that share the event loop, json-slices.ts),
   * turned by `hold` into what the cache keeps and its size, cached under `prefix` + path.
   */
  private parsedAs<P, V>(prefix: string, rel: string, hold: (parsed: P, fileBytes: number) => [V, number]): Promise<V> {
    return this.cached(`${prefix}${rel}`, async () => {
      const buf = await this.readChecked(rel);
      return hold(await parseJson(buf.toString('utf8')) as P, buf.length);
    });
  }

  /**
   * Synchronous reads by offset of a checked file, kept open for the next read of it: a
   * stored study panels entry read alone (api/v1/study-panels.ts) instead of its whole
   * pack file cached, ~1.3 MiB of the caches per cold 100-verse range that V8 counted
   * towards its next full collection (issue 41). Undefined while the file is unchecked
   * (the caller reads it whole, which checks it) or where files cannot be kept open (the
   * Worker). At most OPEN_READS files are kept open; a dropped one closes when collected.
   */
  reads(rel: string): ((from: number, to: number) => Buffer) | undefined {
    const known = this.openReads.get(rel);
    if (known) return known;
    const at = this.readAt(rel);
    if (!at) return undefined;
    const read = (from: number, to: number) => {
      const b = at(from, to);
      return Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.byteLength);
    };
    this.openReads.set(rel, read, 1);
    return read;
  }
  private readonly openReads = new Lru<(from: number, to: number) => Buffer>(OPEN_READS);

  /**
   * Synchronous reads by offset of a file checked before (its signature unchanged since),
   * when the reader can keep it open (Node); undefined otherwise. A read of a file changed
   * since is answered release_corrupt, as a line of a changed pack is: never unchecked bytes.
   */
  private readAt(rel: string): ((from: number, to: number) => Uint8Array) | undefined {
    const sig = this.verified.get(rel);
    const opened = sig === undefined ? undefined : this.reader.open?.(this.base + rel, sig);
    if (!opened) return undefined;
    return (from, to) => opened.read(from, to) ?? this.bad(rel, rel);
  }

  /**
   * Bytes [from, to) of a manifest-listed file read alone (the reader's slice: a ranged R2
   * read), for a store that verified the file when it was written: its size is checked
   * against the manifest and its copy against the one read before.
   */
  private async readRange(rel: string, from: number, to: number): Promise<Buffer> {
    const e = this.entry(rel);
    if (!e) throw new Error(`not in manifest: ${rel}`);
    if (this.corrupt.has(rel)) throw corruptError(rel);
    let got;
    try {
      got = await this.reader.slice!(this.base + rel, from, to);
    } catch (err) {
      if ((err as Error).name === 'NotFound') this.bad(rel, rel);
      throw err;
    }
    const known = this.verified.get(rel);
    if (got.size !== e.size || got.bytes.length !== to - from || (known !== undefined && known !== got.sig)) this.bad(rel, rel);
    this.verified.set(rel, got.sig);
    return got.bytes;
  }

  /** One record by ordinal (pack-lines.ts: from its cached pack, else read alone at its offsets when the reader can scan). */
  record(ds: string, ordinal: number): Promise<Buffer> {
    return this.lines.record(ds, ordinal);
  }

  /** Records by ordinal, many at once (pack-lines.ts: one read per pack at most where each read costs). */
  records(ds: string, ordinals: number[]): Promise<Buffer[]> {
    return this.lines.records(ds, ordinals);
  }

  /** Records [offset, offset+limit) in list order (pack-lines.ts: a page's run of lines read alone when the reader can scan). */
  slice(ds: string, offset: number, limit: number): Promise<Buffer[]> {
    return this.lines.slice(ds, offset, limit);
  }


  /** A key bucket's entry for `k`, found in the bucket's cached bytes (key-bucket.ts says why not parsed). */
  private async keyEntry(ds: string, k: string): Promise<BucketEntry | undefined> {
    const rel = keyBucketPath(ds, bucketOf(k, this.datasets.get(ds)!.key_buckets));
    const bucket = await this.cached(`k:${rel}`, async () => {
      const b = keyBucket(await this.readChecked(rel));
      return [b, b.bytes.length + b.starts.byteLength + 64];
    });
    return bucketEntry(bucket, k);
  }

  /**
   * Ordinal of the record with this id, or else of the unique record with this alias (any case).
   * `foldedFirst` tries the case-folded key first: the same answer (an id owns its folded
   * form unless two ids fold alike, and then the exact id is tried next), but a lookup by
   * an alias in another case reads one key bucket, not two.
   */
  async lookup(ds: string, key: string, foldedFirst = false): Promise<number | undefined> {
    for (const k of foldedFirst ? [aliasKey(key), key] : [key, aliasKey(key)]) {
      const entry = await this.keyEntry(ds, k);
      if (typeof entry === 'number') return entry;
    }
    return undefined;
  }

  /** The ids of the records that share this alias (any case), when several do; else undefined. */
  async candidates(ds: string, key: string): Promise<string[] | undefined> {
    const alias = await this.keyEntry(ds, aliasKey(key));
    return Array.isArray(alias) ? alias : undefined;
  }

  /** Ordinals with this filter value, or undefined when the value does not occur. */
  async filter(ds: string, param: string, value: string): Promise<number[] | undefined> {
    const hit = (await this.filterIndex(ds, param)).get(value);
    return hit ? Array.from(hit) : undefined;
  }

  async filterValues(ds: string, param: string): Promise<string[]> {
    return [...(await this.filterIndex(ds, param)).keys()];
  }

  /**
   * A filter index held as value → Int32Array of ordinals (issue 27: as parsed JSON, arrays
   * of numbers held several times their 4 bytes an ordinal, and were most of the cache),
   * counted at what it holds. Values in the file's order.
   */
  private filterIndex(ds: string, param: string): Promise<Map<string, Int32Array>> {
    return this.parsedAs(`f:`, filterPath(ds, param), (parsed: Record<string, number[]>) => {
      const index = new Map<string, Int32Array>();
      let bytes = 64;
      for (const v of Object.keys(parsed)) {
        const ords = Int32Array.from(parsed[v]);
        index.set(v, ords);
        bytes += ords.byteLength + 2 * v.length + 96;
      }
      return [index, bytes];
    });
  }

  /**
   * A field's values in list order (numbers; dates as epoch ms), for bound, geo and expiry
   * filters; NaN where the record has none (JSON has no NaN, so it cannot be a value).
   * Held as a Float64Array: 8 bytes a value, where the parsed array held ~3 times that.
   */
  column(ds: string, field: string): Promise<Float64Array> {
    return this.parsedAs(`c:`, columnPath(ds, field), (parsed: (number | null)[]) => {
      const col = Float64Array.from(parsed, (x) => (x === null ? NaN : x));
      return [col, col.byteLength + 64];
    });
  }

  /** Ordinals matching `q`, best first (see searchWithin for the bounds that apply). */
  async search(ds: string, q: string): Promise<number[]> {
    return (await this.searchWithin(ds, q)).ordinals;
  }

  /** The search run to completion at once (benches, tests). */
  searchWithin(ds: string, q: string): Promise<SearchResult> {
    return this.searching.search(ds, q, false);
  }

  /**
   * The search for the server: the long part (ranking a broad query from its postings)
   * gives the event loop back every SEARCH_SLICE_MS, so /healthz and other requests are
   * answered while it runs.
   */
  searchAsync(ds: string, q: string): Promise<SearchResult> {
    return this.searching.search(ds, q, true);
  }

  /** Loads the whole search indexes that fit in the cache (once the server listens, and after a release switch). */
  warmSearch(): Promise<void> {
    return this.searching.warmSearch();
  }

  /**
   * Checks this release's files against their sha256 in the background until done or
   * `stopped()` (background-check.ts), recording what their first reads would; undefined
   * where reads need no check or cannot scan (the Worker).
   */
  checkInBackground(stopped: () => boolean): Promise<CheckResult> | undefined {
    if (this.reader.verified || !this.reader.scan) return undefined;
    const scan = this.reader.scan.bind(this.reader);
    return checkInBackground({
      datasets: this.datasets,
      files: Object.keys(this.manifest.files),
      pack: (rel, between) => this.lines.checkInBackground(rel, between),
      // As readChecked judges a file's first read (the same `bad`), without holding its bytes.
      file: async (rel, between) => {
        if (this.corrupt.has(rel) || this.verified.has(rel)) return false;
        const e = this.manifest.files[rel];
        const got = await scan(this.base + rel, between);
        if (!got.sig || this.corrupt.has(rel)) return false;
        if (got.size !== e.size || got.sha256 !== e.sha256) this.bad(rel, rel);
        this.verified.set(rel, got.sig);
        return true;
      },
    }, stopped, (rel) => this.manifest.files[rel].size);
  }

  /** A file of this release's offline bundle (downloads), or undefined when there is none. */
  bundleText(name: string): Promise<string | undefined> {
    return this.reader.text(bundleBase(this.id) + name);
  }
}
