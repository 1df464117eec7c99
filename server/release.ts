/**
 * The live release as the server sees it: the manifest, loaded once, and the files it
 * lists. A path that is not in the manifest cannot be read — the request path never
 * becomes a filesystem path, so traversal is impossible by construction.
 *
 * Hot files (packs, key buckets, filter and search indexes) are kept in memory in an
 * LRU bounded by ALMANAC_CACHE_MB (default 256; 0 reads from disk on every request,
 * which bench/serve.ts uses to measure what the cache buys).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import MiniSearch from 'minisearch';
import {
  MANIFEST, PACK_SIZE, aliasKey, bucketOf, columnPath, filterPath, termsPath, keyBucketPath, packOf, packPath, releaseDir, searchPath,
} from '../pipeline/paths.ts';
import { searchOptions, type DatasetInfo } from '../pipeline/shards.ts';
import { termSearch, type TermShard } from '../pipeline/term-index.ts';
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

export class Release {
  readonly id: string;
  readonly dir: string;
  readonly manifest: Manifest;
  readonly datasets = new Map<string, DatasetInfo>();
  readonly absent: Record<string, string>;
  private cache: Lru<unknown>;

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
  }

  entry(rel: string): FileEntry | undefined {
    return Object.hasOwn(this.manifest.files, rel) ? this.manifest.files[rel] : undefined;
  }

  /** Bytes of a manifest-listed file (or its .br/.gz variant), through the cache. */
  file(rel: string, encoding: '' | 'br' | 'gzip' = ''): Buffer {
    if (!this.entry(rel)) throw new Error(`not in manifest: ${rel}`);
    const disk = rel + (encoding === 'br' ? '.br' : encoding === 'gzip' ? '.gz' : '');
    return this.cached(`f:${disk}`, () => {
      const b = readFileSync(path.join(this.dir, disk));
      return [b, b.length];
    });
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

  /** Ordinals matching `q`, best first; a sharded index is searched shard by shard and merged by score. */
  search(ds: string, q: string): number[] {
    const info = this.datasets.get(ds)!;
    if (info.search_kind === 'terms') {
      return termSearch(q, (prefix) => (this.entry(termsPath(ds, prefix)) ? this.json<TermShard>(termsPath(ds, prefix)) : undefined));
    }
    const shards = info.search_shards ?? 1;
    if (shards === 1) return this.searchShard(info, 0, q).map((r) => r.id as number);
    const all = Array.from({ length: shards }, (_, n) => this.searchShard(info, n, q)).flat();
    return all.sort((a, b) => b.score - a.score || (a.id as number) - (b.id as number)).map((r) => r.id as number);
  }

  private searchShard(info: DatasetInfo, n: number, q: string) {
    const ds = info.id;
    const ms = this.cached(`s:${ds}:${n}`, () => {
      const text = this.file(searchPath(ds, n)).toString('utf8');
      return [MiniSearch.loadJSON(text, searchOptions(info.search_fields, info.search_rank, info.search_tuning?.stopWords)), text.length * 4];
    });
    const tuning = info.search_tuning;
    return ms
      .search(q, {
        prefix: tuning ? (term) => term.length >= tuning.prefixMinLength : true,
        fuzzy: (term) => (term.length >= 5 ? 0.2 : false),
        ...(tuning ? { maxFuzzy: tuning.maxTypos } : {}),
        combineWith: 'AND',
        ...(info.search_boost ? { boost: info.search_boost } : {}),
        ...(info.search_rank ? { boostDocument: (_id, _term, stored) => 1 + Math.log10(1 + Number(stored?.__rank ?? 0)) } : {}),
      });
  }
}
