/**
 * Pure generation: one dataset's validated records → the files of its shard layout.
 * No I/O here; the writer is the only code that touches the disk. Output depends only
 * on the records (sorted deterministically, keys in a fixed order), so the same inputs
 * give byte-identical files.
 *
 * Records go in one at a time, in list order, and files come out through `emit` as
 * soon as they are complete (a full pack, a full search shard), so a streamed dataset
 * never has to be held in memory; what stays is per-record small: the key map, filter
 * ordinals and bound columns.
 */
import { createHash } from 'node:crypto';
import { KeySpill, memoryKeyMap } from './key-spill.ts';
import { TermSpill, joinApostrophes } from './term-index.ts';
import { STEM_FIELD, stemsOf } from './stemming.ts';
import { encodeIndex } from './search-binary.ts';
import { searchWeight, weighted } from './search-weight.ts';
import MiniSearch from 'minisearch';
import type { DatasetSource, RawInputs } from '../sources/contract.ts';
import {
  PACK_SIZE, SEARCH_SHARD_SIZE, bucketCount, bucketOf, columnPath, filterPath, keyBucketPath, packPath, searchBinaryPath, termsPath,
} from './paths.ts';

export interface OutFile {
  path: string;
  content: Buffer;
}

export interface DatasetInfo {
  id: string;
  title: string;
  description: string;
  /** The source's coverage note (how complete the data is), shown in the catalogue. */
  coverage?: string;
  contract_version: string;
  /** Content hash of the records: changes exactly when the served data changes. */
  data_release: string;
  records: number;
  packs: number;
  pack_size: number;
  key_buckets: number;
  filters: {
    param: string; field: string; description: string; case_insensitive: boolean; values: number; max_span?: number;
    /** A bound on a column instead of an equality index. */
    compare?: { op: 'min' | 'max'; type: 'number' | 'date' };
  }[];
  /** Fields with a column file (bound filters, geo, expiry). */
  columns?: string[];
  geo?: { lat: string; lon: string };
  expires_field?: string;
  search_shards?: number;
  /** Parts per search shard when an index is split by word (pipeline/search-parts.ts); absent: one file each. Releases before search_format. */
  search_parts?: number[];
  /** 'binary': one search.bin per shard (pipeline/search-binary.ts); absent: the JSON index files of earlier releases. */
  search_format?: 'binary';
  /** 'terms': a word index by prefix (term-index.ts) instead of minisearch; streamed datasets. */
  search_kind?: 'terms';
  search_fields: string[];
  /** Per-field boosts applied at query time. */
  search_boost?: Record<string, number>;
  /** Numeric field that weights search scores (stored in the index as __rank). */
  search_rank?: string;
  /** `linear`: weight 1 + rank rather than 1 + log10(1 + rank) (SearchSpec.rankScale). */
  search_rank_scale?: 'linear';
  /** The field naming the total a record breaks down (SearchSpec.breakdown): such records weigh less (search-weight.ts). */
  search_breakdown?: string;
  /** The index stores each record's weight (pipeline/search-weight.ts) as __rank; absent: it stores the rank (releases before issue 36). */
  search_weights?: true;
  /** Stop words, prefix and typo limits of a large index (SearchSpec.tuning). */
  search_tuning?: { stopWords: string[]; prefixMinLength: number; maxTypos: number };
  /**
   * The search fields whose English stems are indexed too (pipeline/stem-fields.ts), in the
   * index's hidden STEM_FIELD (pipeline/stemming.ts); absent: no stems, queries are not stemmed.
   */
  search_stem?: string[];
  provenance: DatasetSource['provenance'];
  upstream: { name: string; ref: string; sha256: string; fetched_at?: string; via?: string; last_modified?: string | null }[];
  /** The upstream's own timestamp (source.upstreamTime, else the newest Last-Modified). */
  upstream_time?: string | null;
  /** Newest fetch time of the live inputs; with upstream_time, the basis of meta.age_seconds. */
  fetched_at?: string | null;
  /** Has live inputs: meta carries its freshness and `stale` (server/handlers.ts freshness). */
  live?: boolean;
  /** Live datasets: how often the data is expected to be refreshed and when it counts as stale (the catalogue shows it). */
  refresh?: { expected_seconds: number; stale_after_seconds: number };
  /** Optional inputs that were not in the cache for this build. */
  missing_inputs?: string[];
  /** Why each missing input is missing (the build's reason, with the source's `missingNote`): the catalogue lists them. */
  missing_reasons?: Record<string, string>;
  /** Aliases dropped because two records claimed them. */
  ambiguous_aliases: number;
  /** The source's own index over the ordered records, if it has one. */
  summary?: unknown;
}

/** A live dataset that declares no `refresh` (test feeds): expected daily, stale after two days. */
export const DEFAULT_REFRESH = { expected_seconds: 86_400, stale_after_seconds: 172_800 };

/** Code-unit order; locale-independent so every machine sorts alike. */
export const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

const json = (value: unknown) => Buffer.from(JSON.stringify(value));

/** Object with keys in sorted order, so JSON output does not depend on insertion order. */
function sortedObject<V>(entries: Iterable<[string, V]>): Record<string, V> {
  return Object.fromEntries([...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

export function orderRecords<R extends { id: string }>(source: DatasetSource<R>, records: R[]): R[] {
  const order = source.order;
  return [...records].sort(order ? (a, b) => order(a, b) || byId(a, b) : byId);
}

/** The text minisearch indexes for a field: arrays are joined, numbers stringified. */
export function searchText(record: Record<string, unknown>, field: string): string {
  const v = record[field];
  if (v == null) return '';
  return Array.isArray(v) ? v.filter((x) => x != null).join(' ') : String(v);
}

const defaultTokenize = MiniSearch.getDefault('tokenize') as (text: string) => string[];
/** minisearch's tokenizer (spaces and punctuation separate words), with apostrophes joining them (term-index.ts). */
export const searchTokenize = (text: string) => defaultTokenize(joinApostrophes(text));

/** minisearch options of an index of `fields`; `stored`: the index keeps each record's __rank (its weight, search-weight.ts). */
export function searchOptions(fields: string[], stored?: string | boolean, stopWords?: string[]) {
  const stop = stopWords?.length ? new Set(stopWords) : null;
  return {
    fields, idField: '__o', extractField: (doc: any, f: string) => doc[f], ...(stored ? { storeFields: ['__rank'] } : {}),
    tokenize: searchTokenize,
    // minisearch's default processTerm is lower-casing; stop words (SearchSpec.tuning) are dropped at index and query time.
    ...(stop ? { processTerm: (t: string) => (stop.has(t.toLowerCase()) ? null : t.toLowerCase()) } : {}),
  };
}

/** A date or date-time as epoch ms; a bare date is its UTC midnight. NaN when unparseable. */
export const dateMs = (v: string) => Date.parse(/^\d{4}(-\d{2}){0,2}$/.test(v) ? `${v}${v.length === 4 ? '-01-01' : v.length === 7 ? '-01' : ''}T00:00:00Z` : v);

type Upstream = DatasetInfo['upstream'];
type Rec = Record<string, unknown>;

/** Incremental generator: `add` records in list order, then `finish`. */
export class DatasetGenerator<R extends { id: string }> {
  private count = 0;
  private lines: string[] = [];
  private packs = 0;
  private bytes = 0;
  private readonly hash = createHash('sha256');
  private readonly ids = new Map<string, number>();
  /** Streamed datasets keep their keys on disk (key-spill.ts), not in `ids`, and index words, not minisearch. */
  private readonly spill: KeySpill | null;
  private readonly terms: TermSpill | null;
  private readonly aliases: string[][] = [];
  private readonly indexes: Map<string, number[]>[];
  /** Per equality filter, its value-alias function (FilterSpec.valueAliases) bound to the raw inputs, else null. */
  private readonly aliasers: (((value: string, record: Record<string, unknown>) => string[]) | null)[];
  private readonly columns = new Map<string, (number | null)[]>();
  private readonly columnTypes = new Map<string, 'number' | 'date'>();
  private shard: MiniSearch | null = null;
  private shards = 0;
  /** Fields whose stems go into STEM_FIELD (pipeline/stem-fields.ts); empty: none. */
  private readonly stem: string[];

  constructor(
    private source: DatasetSource<R>, private upstream: Upstream, private emit: (f: OutFile) => void,
    /** Overridable so tests can exercise sharding on a few records (ALMANAC_SEARCH_SHARD_SIZE). */
    private shardSize = SEARCH_SHARD_SIZE,
    opts: { spillKeys?: boolean; raw?: RawInputs; stem?: string[] } = {},
  ) {
    if (opts.spillKeys && source.aliases) throw new Error(`source ${source.id}: aliases are not supported on streamed datasets`);
    if (opts.spillKeys && opts.stem?.length) throw new Error(`source ${source.id}: stems are not supported on streamed datasets (word index)`);
    this.stem = opts.stem ?? [];
    this.spill = opts.spillKeys ? new KeySpill(source.id) : null;
    this.terms = opts.spillKeys ? new TermSpill() : null;
    this.indexes = source.filters.filter((f) => !f.compare).map(() => new Map());
    this.aliasers = source.filters.filter((f) => !f.compare).map((f) => {
      if (!f.valueAliases) return null;
      if (!opts.raw) throw new Error(`source ${source.id}: filter ${f.param} has value aliases; the generator needs the raw inputs`);
      return f.valueAliases(opts.raw);
    });
    for (const f of source.filters) if (f.compare) this.columnTypes.set(f.field, f.compare.type);
    if (source.geo) for (const f of [source.geo.lat, source.geo.lon]) this.columnTypes.set(f, 'number');
    if (source.expires) this.columnTypes.set(source.expires.field, 'date');
    for (const f of this.columnTypes.keys()) this.columns.set(f, []);
  }

  private out(path: string, content: Buffer) {
    this.bytes += content.length;
    this.emit({ path, content });
  }

  private flushPack() {
    const content = Buffer.from(this.lines.length ? this.lines.join('\n') + '\n' : '');
    this.hash.update(content);
    this.out(packPath(this.source.id, this.packs++), content);
    this.lines = [];
  }

  private flushShard() {
    if (!this.shard) return;
    this.out(searchBinaryPath(this.source.id, this.shards++), encodeIndex(this.shard));
    this.shard = null;
  }

  /**
   * An empty index of the source's search fields, and STEM_FIELD last when stems are
   * indexed: the search fields keep the field ids they had without stems (the server
   * searches them by name, and STEM_FIELD only where it asks for stems).
   */
  private newShard(): MiniSearch {
    const fields = this.stem.length ? [...this.source.search.fields, STEM_FIELD] : this.source.search.fields;
    return new MiniSearch(searchOptions(fields, weighted(this.source.search), this.source.search.tuning?.stopWords));
  }

  add(record: R) {
    const ord = this.count++;
    const r = record as unknown as Rec;
    this.lines.push(JSON.stringify(record));
    if (this.lines.length === (this.source.packSize ?? PACK_SIZE)) this.flushPack();
    if (this.spill) this.spill.add(record.id, ord);
    else {
      if (this.ids.has(record.id)) throw new Error(`source ${this.source.id}: duplicate id ${JSON.stringify(record.id)}`);
      this.ids.set(record.id, ord);
    }
    if (this.source.aliases) this.aliases.push(this.source.aliases(record));

    let i = 0;
    for (const f of this.source.filters) {
      if (f.compare) continue;
      const aliases = this.aliasers[i];
      const index = this.indexes[i++];
      const raw = r[f.field];
      for (const v of Array.isArray(raw) ? raw : [raw]) {
        if (v == null || v === '') continue;
        for (const k of [String(v), ...(aliases ? aliases(String(v), r) : [])]) {
          const key = f.caseInsensitive ? k.toLowerCase() : k;
          const list = index.get(key) ?? index.set(key, []).get(key)!;
          if (list[list.length - 1] !== ord) list.push(ord);
        }
      }
    }
    for (const [field, type] of this.columnTypes) {
      const v = r[field];
      const n = v == null ? null : type === 'date' ? dateMs(String(v)) : Number(v);
      if (n !== null && !Number.isFinite(n)) throw new Error(`source ${this.source.id}: record ${JSON.stringify(record.id)}: field /${field}: '${v}' is not a ${type}`);
      this.columns.get(field)!.push(n);
    }

    if (this.terms) {
      this.terms.add(ord, this.source.search.fields.map((f) => searchText(r, f)));
      return;
    }
    this.shard ??= this.newShard();
    const doc: Rec = { __o: ord };
    if (weighted(this.source.search)) doc.__rank = searchWeight(this.source.search, r);
    for (const f of this.source.search.fields) doc[f] = searchText(r, f);
    if (this.stem.length) doc[STEM_FIELD] = stemsOf(this.stem.map((f) => doc[f] as string));
    this.shard.add(doc);
    if (ord % this.shardSize === this.shardSize - 1) this.flushShard();
  }

  /** Drops the spilled temporary files when the dataset fails before `finish`. */
  discard() {
    this.spill?.discard();
    this.terms?.discard();
  }

  finish(): { info: DatasetInfo; keys: Map<string, number>; bytes: number } {
    const id = this.source.id;
    if (this.lines.length || this.packs === 0) this.flushPack();
    const prefixes = this.terms?.finish((p, shard) => this.out(termsPath(id, p), json(shard)));
    if (!this.terms && (this.shard || this.shards === 0)) {
      this.shard ??= this.newShard();
      this.flushShard();
    }
    let keys = new Map<string, number>();
    let ambiguous: number;
    let nb: number;
    if (this.spill) {
      nb = this.spill.buckets();
      ({ ambiguous } = this.spill.finish(nb, (b, entries) => this.out(keyBucketPath(id, b), json(sortedObject(entries)))));
    } else {
      let ambiguousKeys: Map<string, number[]>;
      ({ keys, ambiguous, ambiguousKeys } = memoryKeyMap(this.ids, this.aliases));
      nb = bucketCount(keys.size + ambiguousKeys.size);
      const buckets: [string, number | string[]][][] = Array.from({ length: nb }, () => []);
      for (const [k, ord] of keys) buckets[bucketOf(k, nb)].push([k, ord]);
      // A key several records claim maps to their ids (sorted): the server answers it
      // with 400 ambiguous_id listing them instead of picking one.
      if (ambiguousKeys.size) {
        const idOf = new Map([...this.ids].map(([recordId, ord]) => [ord, recordId]));
        for (const [k, ords] of ambiguousKeys) buckets[bucketOf(k, nb)].push([k, ords.map((o) => idOf.get(o)!).sort()]);
      }
      buckets.forEach((b, i) => this.out(keyBucketPath(id, i), json(sortedObject(b))));
    }

    const filters: DatasetInfo['filters'] = [];
    let i = 0;
    for (const f of this.source.filters) {
      const base = { param: f.param, field: f.field, description: f.description, case_insensitive: !!f.caseInsensitive };
      if (f.compare) {
        filters.push({ ...base, values: 0, compare: f.compare });
        continue;
      }
      const index = this.indexes[i++];
      this.out(filterPath(id, f.param), json(sortedObject(index)));
      filters.push({ ...base, values: index.size, ...(f.range ? { max_span: f.range.maxSpan } : {}) });
    }
    const columns = [...this.columns.keys()].sort();
    for (const c of columns) this.out(columnPath(id, c), json(this.columns.get(c)));

    const s = this.source;
    const live = this.upstream.filter((u) => u.fetched_at);
    const info: DatasetInfo = {
      id,
      title: s.title,
      description: s.description,
      ...(s.coverage ? { coverage: s.coverage } : {}),
      contract_version: s.contractVersion,
      data_release: this.hash.digest('hex').slice(0, 12),
      records: this.count,
      packs: this.packs,
      pack_size: this.source.packSize ?? PACK_SIZE,
      key_buckets: nb,
      filters,
      ...(columns.length ? { columns } : {}),
      ...(s.geo ? { geo: s.geo } : {}),
      ...(s.expires ? { expires_field: s.expires.field } : {}),
      search_fields: s.search.fields,
      ...(this.shards > 1 ? { search_shards: this.shards } : {}),
      ...(prefixes === undefined ? { search_format: 'binary' as const } : {}),
      ...(prefixes !== undefined ? { search_kind: 'terms' as const } : {}),
      ...(s.search.boost ? { search_boost: s.search.boost } : {}),
      ...(s.search.rank ? { search_rank: s.search.rank } : {}),
      ...(s.search.rankScale === 'linear' ? { search_rank_scale: 'linear' as const } : {}),
      ...(s.search.breakdown ? { search_breakdown: s.search.breakdown } : {}),
      ...(weighted(s.search) && !this.terms ? { search_weights: true as const } : {}),
      ...(s.search.tuning ? { search_tuning: s.search.tuning } : {}),
      ...(this.stem.length ? { search_stem: this.stem } : {}),
      provenance: s.provenance,
      upstream: this.upstream,
      ambiguous_aliases: ambiguous,
    };
    if (live.length) {
      info.live = true;
      info.fetched_at = live.map((u) => u.fetched_at!).sort().pop()!;
      info.refresh = s.refresh ? { expected_seconds: s.refresh.expectedSeconds, stale_after_seconds: s.refresh.staleAfterSeconds } : DEFAULT_REFRESH;
    }
    return { info, keys, bytes: this.bytes };
  }
}

/** All files of an in-memory, already ordered dataset (see orderRecords). */
export function generateDataset<R extends { id: string }>(
  source: DatasetSource<R>, sorted: R[], upstream: Upstream, raw?: RawInputs, stem?: string[],
): { files: OutFile[]; info: DatasetInfo; keys: Map<string, number> } {
  const files: OutFile[] = [];
  const g = new DatasetGenerator(source, upstream, (f) => files.push(f), undefined, { raw, stem });
  for (const r of sorted) g.add(r);
  const { info, keys } = g.finish();
  if (source.summary) info.summary = source.summary(sorted);
  return { files, info, keys };
}
