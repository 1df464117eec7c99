/**
 * Pure generation: one dataset's validated records → the files of its shard layout.
 * No I/O here; the writer is the only code that touches the disk. Output depends only
 * on the records (sorted deterministically, keys in a fixed order), so the same inputs
 * give byte-identical files.
 */
import MiniSearch from 'minisearch';
import type { DatasetSource } from '../sources/contract.ts';
import { sha256 } from './inputs.ts';
import {
  PACK_SIZE, aliasKey, bucketCount, bucketOf, filterPath, keyBucketPath, packPath, searchPath,
} from './paths.ts';

export interface OutFile {
  path: string;
  content: Buffer;
}

export interface DatasetInfo {
  id: string;
  title: string;
  description: string;
  contract_version: string;
  /** Content hash of the records: changes exactly when the served data changes. */
  data_release: string;
  records: number;
  packs: number;
  pack_size: number;
  key_buckets: number;
  filters: { param: string; field: string; description: string; case_insensitive: boolean; values: number; max_span?: number }[];
  search_fields: string[];
  /** Per-field boosts applied at query time. */
  search_boost?: Record<string, number>;
  /** Numeric field that weights search scores (stored in the index as __rank). */
  search_rank?: string;
  provenance: DatasetSource['provenance'];
  upstream: { name: string; ref: string; sha256: string }[];
  /** Aliases dropped because two records claimed them. */
  ambiguous_aliases: number;
  /** The source's own index over the ordered records, if it has one. */
  summary?: unknown;
}

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

export function searchOptions(fields: string[], rank?: string) {
  return { fields, idField: '__o', extractField: (doc: any, f: string) => doc[f], ...(rank ? { storeFields: ['__rank'] } : {}) };
}

export function generateDataset<R extends { id: string }>(
  source: DatasetSource<R>, sorted: R[], upstream: DatasetInfo['upstream'],
): { files: OutFile[]; info: DatasetInfo; keys: Map<string, number> } {
  const files: OutFile[] = [];
  const lines = sorted.map((r) => JSON.stringify(r));

  for (let p = 0; p * PACK_SIZE < lines.length || p === 0; p++) {
    const chunk = lines.slice(p * PACK_SIZE, (p + 1) * PACK_SIZE);
    files.push({ path: packPath(source.id, p), content: Buffer.from(chunk.length ? chunk.join('\n') + '\n' : '') });
  }

  // Keys: exact ids, then case-insensitive aliases. A record's own id, in any case, beats
  // another record's alias (/apis/languages/DE is German, not the region DE); aliases two
  // records share are dropped rather than resolved arbitrarily.
  const keys = new Map<string, number>(sorted.map((r, ord) => [r.id, ord]));
  const idOwners = new Map<string, number | null>();
  sorted.forEach((r, ord) => {
    const k = aliasKey(r.id);
    idOwners.set(k, idOwners.has(k) ? null : ord);
  });
  const aliasOwners = new Map<string, number | null>();
  sorted.forEach((r, ord) => {
    for (const a of new Set((source.aliases?.(r) ?? []).map(aliasKey))) {
      if (idOwners.has(a)) continue;
      const prev = aliasOwners.get(a);
      aliasOwners.set(a, prev === undefined || prev === ord ? ord : null);
    }
  });
  let ambiguous = 0;
  for (const owners of [idOwners, aliasOwners]) {
    for (const [a, ord] of owners) {
      if (ord === null) ambiguous++;
      else keys.set(a, ord);
    }
  }
  const nb = bucketCount(keys.size);
  const buckets: [string, number][][] = Array.from({ length: nb }, () => []);
  for (const [k, ord] of keys) buckets[bucketOf(k, nb)].push([k, ord]);
  buckets.forEach((b, i) => files.push({ path: keyBucketPath(source.id, i), content: json(sortedObject(b)) }));

  const filters: DatasetInfo['filters'] = [];
  for (const f of source.filters) {
    const index = new Map<string, number[]>();
    sorted.forEach((r, ord) => {
      const raw = (r as Record<string, unknown>)[f.field];
      for (const v of Array.isArray(raw) ? raw : [raw]) {
        if (v == null || v === '') continue;
        const key = f.caseInsensitive ? String(v).toLowerCase() : String(v);
        const list = index.get(key) ?? index.set(key, []).get(key)!;
        if (list[list.length - 1] !== ord) list.push(ord);
      }
    });
    files.push({ path: filterPath(source.id, f.param), content: json(sortedObject(index)) });
    filters.push({
      param: f.param, field: f.field, description: f.description, case_insensitive: !!f.caseInsensitive, values: index.size,
      ...(f.range ? { max_span: f.range.maxSpan } : {}),
    });
  }

  const rank = source.search.rank;
  const ms = new MiniSearch(searchOptions(source.search.fields, rank));
  ms.addAll(sorted.map((r, ord) => {
    const doc: Record<string, unknown> = { __o: ord };
    if (rank) doc.__rank = Number((r as Record<string, unknown>)[rank] ?? 0) || 0;
    for (const f of source.search.fields) doc[f] = searchText(r as Record<string, unknown>, f);
    return doc;
  }));
  files.push({ path: searchPath(source.id), content: json(ms) });

  const packs = files.filter((f) => f.path.includes('/packs/'));
  const info: DatasetInfo = {
    id: source.id,
    title: source.title,
    description: source.description,
    contract_version: source.contractVersion,
    data_release: sha256(Buffer.concat(packs.map((f) => f.content))).slice(0, 12),
    records: sorted.length,
    packs: packs.length,
    pack_size: PACK_SIZE,
    key_buckets: nb,
    filters,
    search_fields: source.search.fields,
    ...(source.search.boost ? { search_boost: source.search.boost } : {}),
    ...(rank ? { search_rank: rank } : {}),
    provenance: source.provenance,
    upstream,
    ambiguous_aliases: ambiguous,
  };
  if (source.summary) info.summary = source.summary(sorted);
  return { files, info, keys };
}
