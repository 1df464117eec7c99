/**
 * The one module that owns the shard layout. The pipeline writes these paths, the
 * server reads them (only after finding them in the manifest), tests import them.
 *
 * dist/
 *   current                      release id of the live release (switched by rename)
 *   releases/<release>/
 *     manifest.json              every file with size + sha256, per-dataset metadata
 *     openapi.json               generated from the route table and record schemas
 *     licences.json              source, licence and attribution of every dataset
 *     <dataset>/packs/<n>.ndjson records in list order, PACK_SIZE per file, one JSON per line
 *     <dataset>/keys/<b>.json    id/alias → ordinal, hash-bucketed (KEYS_PER_BUCKET per file)
 *     <dataset>/filters/<param>.json  filter value → ordinals
 *     <dataset>/search.bin       search index in binary form (pipeline/search-binary.ts;
 *                                document id = ordinal); search.<n>.bin further shards of
 *                                SEARCH_SHARD_SIZE records. Releases built before it have
 *                                search.json (serialized minisearch) or search/<n>.<b>.json parts
 *     <dataset>/columns/<field>.json  a field's values in list order, for bound/geo/expiry filters
 *     <dataset>/terms/<prefix>.json   streamed datasets' word index instead of search.json
 *     <dataset>/panels/<n>.bin   the study dataset's panels of pack n as ready JSON, deflated
 *                                (server/api/v1/study-panels.ts; written by the server's build)
 *     docs/index.html, docs/<asset>.<hash>.<ext>  the docs page (pipeline/docs.ts)
 *   (+ .gz and .br beside the files served as they are, see `precompressed`)
 *
 * Why packs and buckets rather than a file per record: the largest upstreams we plan
 * for (~1.9M nonprofits) would mean millions of files.
 * 1,000 records per pack keeps the file count near records/1000, a list page (at most
 * MAX_LIMIT records) touches at most two packs, and a lookup touches one bucket and one
 * pack. Small datasets (elements: 118) are a single pack and a single bucket.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const PACK_SIZE = 1000;
/**
 * Records per minisearch index shard, built and written one at a time. Every current
 * dataset (largest: population, 243k) has at most two, and places (135k) stays a single
 * shard, so its ranking is unchanged. Streamed datasets use a word index instead
 * (term-index.ts).
 */
export const SEARCH_SHARD_SIZE = 200_000;
export const KEYS_PER_BUCKET = 4096;
export const COMPRESS_MIN_BYTES = 1024;

/**
 * The package root: the nearest folder above this module holding package.json. This file
 * runs from pipeline/ (tsx) or from lib/pipeline/ (compiled, `npm run compile`).
 */
export const PROJECT_ROOT = (() => {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(dir, 'package.json')) && path.dirname(dir) !== dir) dir = path.dirname(dir);
  return dir;
})();

/** Where the build writes and the server reads; ALMANAC_DIST overrides (tests use temp dirs). */
export function distDir(env: NodeJS.ProcessEnv = process.env): string {
  return path.resolve(env.ALMANAC_DIST ?? path.join(PROJECT_ROOT, 'dist'));
}
export function cacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return path.resolve(env.ALMANAC_CACHE ?? path.join(PROJECT_ROOT, '.cache', 'upstream'));
}
export function stateDir(env: NodeJS.ProcessEnv = process.env): string {
  return path.resolve(env.ALMANAC_STATE_DIR ?? path.join(PROJECT_ROOT, '.state'));
}

export const currentPointer = (dist: string) => path.join(dist, 'current');
export const releasesDir = (dist: string) => path.join(dist, 'releases');
export const releaseDir = (dist: string, release: string) => path.join(releasesDir(dist), release);

// Paths inside a release, always with forward slashes (they are manifest keys too).
export const MANIFEST = 'manifest.json';
export const OPENAPI = 'openapi.json';
export const OPENAPI_V1 = 'openapi-v1.json';
export const LICENCES = 'licences.json';
/** The docs page (pipeline/docs.ts): index.html plus assets named by content hash. */
export const DOCS_DIR = 'docs';
export const DOCS_INDEX = `${DOCS_DIR}/index.html`;
export const packPath = (ds: string, n: number) => `${ds}/packs/${n}.ndjson`;
export const keyBucketPath = (ds: string, b: number) => `${ds}/keys/${b}.json`;
export const filterPath = (ds: string, param: string) => `${ds}/filters/${param}.json`;
/** Search index shard n (one per SEARCH_SHARD_SIZE records; most datasets have only shard 0). */
export const searchPath = (ds: string, n = 0) => (n ? `${ds}/search.${n}.json` : `${ds}/search.json`);
/** Search index shard n in binary form (pipeline/search-binary.ts), what builds write now. */
export const searchBinaryPath = (ds: string, n = 0) => (n ? `${ds}/search.${n}.bin` : `${ds}/search.bin`);
/** Part b of search shard n, when the shard's index is split by word (pipeline/search-parts.ts). */
export const searchPartPath = (ds: string, n: number, b: number) => `${ds}/search/${n}.${b}.json`;
/** Streamed datasets' word index: words starting with `prefix` → ordinals (term-index.ts). */
export const termsPath = (ds: string, prefix: string) => `${ds}/terms/${prefix}.json`;
/** Values of one field in list order (numbers; dates as epoch ms), for bound and geo filters. */
export const columnPath = (ds: string, field: string) => `${ds}/columns/${field}.json`;
/** The word-study panels of pack n's records as ready JSON (server/api/v1/study-panels.ts). */
export const panelsPath = (ds: string, n: number) => `${ds}/panels/${n}.bin`;

/**
 * The study panels files (panelsPath): a dataset's files, but derived from its packs by
 * the server's build and 250 MiB for the full canon, so the dataset's own download
 * leaves them out (a server without them expands the packs); all.tar.gz keeps them, so a
 * release pulled from it is the same release (pipeline/bundle.ts).
 */
export const isPanelsFile = (rel: string) => /^[^/]+\/panels\/[^/]+$/.test(rel);

/** True when a release path is one of this dataset's own files (not a sub-dataset's, e.g. languages/scripts). */
export function isDatasetFile(ds: string, rel: string): boolean {
  if (!rel.startsWith(`${ds}/`)) return false;
  const rest = rel.slice(ds.length + 1);
  return /^search(\.\d+)?\.(json|bin)$/.test(rest) || /^(packs|keys|filters|columns|terms|search|panels)\/[^/]+$/.test(rest);
}

/**
 * Whether a release file gets .br/.gz variants: only the files the server sends as they
 * are (server/app.ts `kind: 'file'` replies and server/docs.ts): the OpenAPI documents and
 * the docs page. Every other file (packs, key buckets, filter, column and search indexes)
 * is only ever read by the server, which composes each response from it; compressing
 * them was most of the build's time (issue 12) for variants nothing sent.
 */
export const precompressed = (rel: string) => rel === OPENAPI || rel === OPENAPI_V1 || rel.startsWith(`${DOCS_DIR}/`);

export const packOf = (ordinal: number, size = PACK_SIZE) => Math.floor(ordinal / size);
export const bucketCount = (keys: number) => Math.max(1, Math.ceil(keys / KEYS_PER_BUCKET));

/** FNV-1a 32-bit: a stable, dependency-free hash to spread keys over buckets. */
export function bucketOf(key: string, buckets: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) % buckets;
}

/** Alias keys live in the same buckets as ids, marked so they can never shadow an id. */
export const aliasKey = (alias: string) => `~${alias.toLowerCase()}`;

/**
 * The upstream URL rewritten onto a mirror laid out as <host>/<path>. In a folder, a path
 * ending in "/" (USAspending's award search) is a file named `index` inside it: the path
 * itself is a folder there, which a fetch could not write nor a build read.
 */
export function mirrorLocation(url: string, mirror: string): string {
  const u = new URL(url);
  const rel = `${u.host}${decodeURIComponent(u.pathname)}`;
  if (/^https?:\/\//.test(mirror)) return `${mirror.replace(/\/+$/, '')}/${rel}`;
  return path.join(path.resolve(mirror), rel.endsWith('/') ? `${rel}index` : rel);
}

/**
 * Cache location of an upstream URL: the same <host>/<path> layout as a mirror. A URL with
 * a query is other data at the same path (the Federal Register search page beside the
 * documents endpoint's live copy), so it gets its own file: the path, "@" and a hash of
 * the query.
 */
export function cachedLocation(url: string, env: NodeJS.ProcessEnv = process.env): string {
  const at = mirrorLocation(url, cacheDir(env));
  const query = new URL(url).search;
  return query ? `${at}@${createHash('sha256').update(query).digest('hex').slice(0, 16)}` : at;
}

/** Beside a live input's cached copy: when and from where it was fetched, and its sha256. */
export const fetchRecordPath = (cached: string) => `${cached}.fetch.json`;
/** Beside a pinned file fetched from a known copy rather than its publisher: the copy's URL. */
export const viaPath = (cached: string) => `${cached}.via`;
/** Beside an input's cache location: why the last fetch of it failed (JSON: at, reason), removed when one succeeds. */
export const fetchFailurePath = (cached: string) => `${cached}.failed.json`;

/** Cache location of an npm registry tarball (the registry's own URL layout). */
export function tarballLocation(pkg: string, version: string, env: NodeJS.ProcessEnv = process.env): string {
  const base = pkg.split('/').pop();
  return path.join(cacheDir(env), 'registry.npmjs.org', pkg, '-', `${base}-${version}.tgz`);
}

/**
 * Offline bundles (pipeline/bundle.ts), outside the release folders because they are
 * made after a release is live, from it:
 *   dist/bundles/<release>/download.json   the download manifest (archives, sizes, sha256)
 *   dist/bundles/<release>/SHA256SUMS      the same sha256s, for `sha256sum -c`
 *   dist/bundles/<release>/<name>.tar.gz   one per dataset and translation, and all.tar.gz
 * Inside every archive: almanac-<release>/ with the dataset files at their release paths
 * and bundle/<name>.json describing that archive's datasets, so several archives extract
 * into one folder without overwriting each other's metadata.
 */
export const bundlesDir = (dist: string) => path.join(dist, 'bundles');
/** The nightly's reports: reports/<release>.json and .md (pipeline/report.ts). */
export const reportsDir = (dist: string) => path.join(dist, 'reports');
/** This host's name as a temporary folder carries it. */
export const tmpHost = () => hostname().replace(/[^A-Za-z0-9.-]/g, '_');
/**
 * A temporary folder of this process under releases/ or bundles/: `.tmp-<pid>-<ms>-<host>`,
 * so a prune can tell whose it is and whether it is still being written (pipeline/prune.ts).
 */
export const tmpFolderName = () => `.tmp-${process.pid}-${Date.now()}-${tmpHost()}`;
export const bundleDir = (dist: string, release: string) => path.join(bundlesDir(dist), release);
export const DOWNLOADS = 'download.json';
export const SHA256SUMS = 'SHA256SUMS';
export const BUNDLE_ALL = 'all';
/** Archive name of a dataset: its id with slashes as dashes (bible/kjv → bible-kjv). */
export const archiveName = (ds: string) => ds.replace(/\//g, '-');
export const archiveFile = (name: string) => `${name}.tar.gz`;
/** The gzipped SQLite database of an archive's datasets (pipeline/sqlite.ts). */
export const sqliteFile = (name: string) => `${name}.sqlite.gz`;
export const bundleRoot = (release: string) => `almanac-${release}`;
/** Per-archive metadata inside an extracted bundle. */
export const bundleMetaPath = (name: string) => `bundle/${name}.json`;
