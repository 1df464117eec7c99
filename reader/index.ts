/**
 * Reads a downloaded, extracted bundle offline, without the server and without any
 * npm dependency (node: built-ins and the shard layout of pipeline/paths.ts, which
 * itself uses only node:path and node:url).
 *
 * ```ts
 * import { open } from 'almanac/reader/index.ts';
 * const b = open('almanac-<release>');          // the folder `tar xzf <archive>.tar.gz` made
 * b.list().map((d) => d.id);                    // ['bible/kjv', 'elements', …]
 * b.get('elements', 'iron');                    // by id or alias, any case
 * b.verse('kjv', 'john.3.16')?.text;
 * ```
 *
 * Several archives of the same release may be extracted into one folder: each carries
 * its own bundle/<name>.json, and open() merges them.
 *
 * Search is a plain scan, not the server's minisearch index (reading that would need
 * minisearch): every word of the query must be a prefix of a word of the record's
 * search fields (case- and accent-insensitive), results in the dataset's list order.
 * It reads every pack of the dataset once per query (then keeps them in memory):
 * O(records), about 31,000 verses for a translation.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { PACK_SIZE, aliasKey, bucketOf, keyBucketPath, packOf, packPath } from '../pipeline/paths.ts';

/** What the reader needs of a dataset's manifest entry (pipeline/shards.ts DatasetInfo). */
export interface BundleDataset {
  id: string;
  title: string;
  description: string;
  contract_version: string;
  data_release: string;
  records: number;
  packs: number;
  key_buckets: number;
  search_fields: string[];
  provenance: { name: string; url: string; licence: unknown; attribution: string }[];
  summary?: unknown;
  [k: string]: unknown;
}

/** bundle/<name>.json (pipeline/bundle.ts BundleMeta). */
interface Meta {
  release: string;
  pipeline_version: string;
  built_at: string;
  archive: string;
  datasets: Record<string, BundleDataset>;
  absent: Record<string, string>;
  files: Record<string, { size: number; sha256: string }>;
}

export type Rec = { id: string; [k: string]: unknown };

/** A key that several records share (an alias, or ids differing in case): pick one of `candidates`. */
export class AmbiguousId extends Error {
  constructor(readonly dataset: string, readonly key: string, readonly candidates: string[]) {
    super(`'${key}' names several records of ${dataset}: ${candidates.join(', ')}`);
  }
}

/** The folder with bundle/*.json: the given one, or the single almanac-* folder inside it. */
function rootOf(dir: string): string {
  if (existsSync(path.join(dir, 'bundle'))) return dir;
  const inner = readdirSync(dir).filter((d) => d.startsWith('almanac-') && existsSync(path.join(dir, d, 'bundle')));
  if (inner.length === 1) return path.join(dir, inner[0]);
  throw new Error(`${dir} is not an extracted bundle (no bundle/ folder${inner.length > 1 ? `; it holds several: ${inner.join(', ')}` : ''})`);
}

/** The merged metadata of every archive extracted into `dir`. */
export function readBundle(dir: string): Meta & { root: string; archives: string[] } {
  const root = rootOf(path.resolve(dir));
  const metas: Meta[] = readdirSync(path.join(root, 'bundle')).filter((f) => f.endsWith('.json')).sort()
    .map((f) => JSON.parse(readFileSync(path.join(root, 'bundle', f), 'utf8')));
  if (!metas.length) throw new Error(`${root}/bundle holds no archive metadata`);
  const releases = new Set(metas.map((m) => m.release));
  if (releases.size > 1) throw new Error(`${root} mixes archives of several releases: ${[...releases].join(', ')}`);
  const m = metas.find((x) => x.archive === 'all') ?? metas[0];
  return {
    ...m,
    root,
    archives: metas.map((x) => x.archive),
    datasets: Object.assign({}, ...metas.map((x) => x.datasets)),
    files: Object.assign({}, ...metas.map((x) => x.files)),
  };
}

const fold = (s: string) => s.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase();
const words = (s: string) => fold(s).split(/[^\p{L}\p{N}]+/u).filter(Boolean);
function strings(v: unknown, out: string[]) {
  if (typeof v === 'string') out.push(v);
  else if (typeof v === 'number') out.push(String(v));
  else if (Array.isArray(v)) for (const x of v) strings(x, out);
  return out;
}

export class Bundle {
  readonly release: string;
  readonly builtAt: string;
  readonly root: string;
  /** Archives extracted here ('all', 'elements', 'bible-kjv', …). */
  readonly archives: string[];
  private meta: ReturnType<typeof readBundle>;
  private packs = new Map<string, Rec[]>();

  constructor(dir: string) {
    this.meta = readBundle(dir);
    this.release = this.meta.release;
    this.builtAt = this.meta.built_at;
    this.root = this.meta.root;
    this.archives = this.meta.archives;
  }

  /** Datasets in this folder, with record counts, versions and licences. */
  list() {
    return Object.values(this.meta.datasets).sort((a, b) => a.id.localeCompare(b.id)).map((d) => ({
      id: d.id, title: d.title, records: d.records, contract_version: d.contract_version, data_release: d.data_release, sources: d.provenance,
    }));
  }

  dataset(ds: string): BundleDataset {
    const d = Object.hasOwn(this.meta.datasets, ds) ? this.meta.datasets[ds] : undefined;
    if (!d) throw new Error(`no dataset '${ds}' in this bundle (it has ${Object.keys(this.meta.datasets).join(', ')})`);
    return d;
  }

  private file(rel: string): Buffer {
    if (!Object.hasOwn(this.meta.files, rel)) throw new Error(`not in the bundle: ${rel}`);
    return readFileSync(path.join(this.root, rel));
  }

  private pack(ds: string, n: number): Rec[] {
    const k = `${ds}\n${n}`;
    let recs = this.packs.get(k);
    if (!recs) {
      recs = this.file(packPath(ds, n)).toString('utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
      this.packs.set(k, recs);
    }
    return recs;
  }

  /** The record at a list position. */
  at(ds: string, ordinal: number): Rec | undefined {
    const d = this.dataset(ds);
    return ordinal >= 0 && ordinal < d.records ? this.pack(ds, packOf(ordinal))[ordinal % PACK_SIZE] : undefined;
  }

  /** Every record in list order. */
  *records(ds: string): Generator<Rec> {
    const d = this.dataset(ds);
    for (let n = 0; n < d.packs; n++) yield* this.pack(ds, n);
  }

  private keyEntry(ds: string, k: string): number | string[] | undefined {
    const bucket = JSON.parse(this.file(keyBucketPath(ds, bucketOf(k, this.dataset(ds).key_buckets))).toString('utf8'));
    return Object.hasOwn(bucket, k) ? bucket[k] : undefined;
  }

  /** A record by id, else by alias in any case (as the server's /{id}); undefined when none; AmbiguousId when several. */
  get(ds: string, key: string): Rec | undefined {
    for (const k of [key, aliasKey(key)]) {
      const e = this.keyEntry(ds, k);
      if (typeof e === 'number') return this.at(ds, e);
    }
    const shared = this.keyEntry(ds, aliasKey(key));
    if (Array.isArray(shared)) throw new AmbiguousId(ds, key, shared);
    return undefined;
  }

  /** Records whose search fields contain every word of `q` as a word prefix, in list order (a scan: see the module note). */
  search(ds: string, q: string, { limit = 20, offset = 0 } = {}): { total: number; results: Rec[] } {
    const want = words(q);
    if (!want.length) return { total: 0, results: [] };
    const fields = this.dataset(ds).search_fields;
    const results: Rec[] = [];
    let total = 0;
    for (const r of this.records(ds)) {
      const have = words(fields.flatMap((f) => strings(r[f], [])).join(' '));
      if (want.every((w) => have.some((h) => h.startsWith(w)))) {
        if (total >= offset && results.length < limit) results.push(r);
        total++;
      }
    }
    return { total, results };
  }

  /** Translations here: datasets with a book summary, by slug (bible/kjv → kjv). */
  translations(): string[] {
    return Object.values(this.meta.datasets).filter((d) => (d.summary as { books?: unknown })?.books).map((d) => d.id.split('/').pop()!).sort();
  }

  /** One verse by canonical reference `<book>.<chapter>.<verse>` (`john.3.16`, or `kjv:john.3.16`); undefined when the translation has none. */
  verse(translation: string, ref: string): { id: string; book: string; chapter: number; verse: number; text: string; strongs?: string[] } | undefined {
    const ds = Object.values(this.meta.datasets).find((d) => (d.summary as { books?: unknown })?.books && d.id.split('/').pop() === translation)?.id;
    if (!ds) throw new Error(`no translation '${translation}' in this bundle (it has ${this.translations().join(', ') || 'none'})`);
    const m = /^(?:([a-z-]+):)?([0-9a-z]+)\.(\d+)\.(\d+)$/i.exec(ref);
    if (!m) throw new Error(`'${ref}' is not a reference of the form <book>.<chapter>.<verse>, e.g. john.3.16`);
    if (m[1] && m[1].toLowerCase() !== translation) throw new Error(`'${ref}' names translation ${m[1]}, not ${translation}`);
    const r = this.get(ds, `${m[2].toLowerCase()}.${Number(m[3])}.${Number(m[4])}`);
    return r as ReturnType<Bundle['verse']>;
  }

  /** Checks every file against the sha256 its archive lists; returns the paths that differ or are missing. */
  verify(): string[] {
    const bad: string[] = [];
    for (const [rel, f] of Object.entries(this.meta.files)) {
      const p = path.join(this.root, rel);
      if (!existsSync(p) || createHash('sha256').update(readFileSync(p)).digest('hex') !== f.sha256) bad.push(rel);
    }
    return bad;
  }
}

/** Opens an extracted bundle: the almanac-<release> folder, or the folder it was extracted into. */
export const open = (dir: string) => new Bundle(dir);
