/**
 * `npm run bundle`: the live release as downloadable archives (the openFDA download.json
 * idea): one archive per dataset and per translation, one with everything, and a
 * manifest with each archive's size and sha256. Layout: see "Offline bundles" in paths.ts.
 *
 * Format: ustar inside gzip (`.tar.gz`), written by pipeline/tar.ts. Every platform
 * opens it without this project (`tar xzf`), node reads it with node:zlib alone, and
 * gzip streams may be concatenated (RFC 1952 §2.2, a file of several "members"), which
 * lets all.tar.gz reuse the per-dataset compressed members instead of compressing the
 * release twice: a dataset's files are one member, and each archive ends with a small
 * member of its own metadata and the end-of-archive blocks. Only identity files go in
 * (not the server's .br/.gz variants). Output is byte-identical for the same release:
 * entries sorted, tar headers without times, gzip headers with mtime 0.
 */
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { createGzip, constants as zc } from 'node:zlib';
import type { SchemaObject } from 'ajv';
import type { DatasetSource } from '../sources/contract.ts';
import { ALL_SOURCES } from '../sources/index.ts';
import { datasetId } from '../sources/scripture/dataset.ts';
import { isMain, parseCli } from './cli.ts';
import {
  BUNDLE_ALL, DOCS_DIR, DOWNLOADS, LICENCES, MANIFEST, OPENAPI, OPENAPI_V1, SHA256SUMS, archiveFile, archiveName, bundleDir, bundleMetaPath,
  bundleRoot, bundlesDir, distDir, isDatasetFile, isPanelsFile, releaseDir, tmpFolderName,
} from './paths.ts';
import type { DatasetInfo } from './shards.ts';
import { TAR_END, tarHeader, tarPadding } from './tar.ts';
import { writeSqliteInWorker } from './sqlite-files.ts';
import { SQLITE_FORMAT } from './sqlite.ts';
import { readCurrent, type FileEntry, type Manifest } from './writer.ts';

export type ArchiveKind = 'all' | 'dataset' | 'translation';

/** bundle/<name>.json inside an archive: what the reader and `serve --bundle` read. */
export interface BundleMeta {
  release: string;
  pipeline_version: string;
  built_at: string;
  archive: string;
  datasets: Record<string, DatasetInfo>;
  /** Datasets the release lacks, with the reason (only in the `all` archive). */
  absent: Record<string, string>;
  files: Record<string, { size: number; sha256: string }>;
}

export interface ArchiveEntry {
  name: string;
  file: string;
  kind: ArchiveKind;
  /** `sqlite` (a gzipped SQLite database, pipeline/sqlite.ts) or `tar.gz` (the release files, for serve --bundle and release:pull). */
  format: 'sqlite' | 'tar.gz';
  /** The SQLite database's size once gunzipped. */
  raw_size?: number;
  datasets: string[];
  records: number;
  size: number;
  sha256: string;
}

/** download.json */
export interface Downloads {
  release: string;
  pipeline_version: string;
  built_at: string;
  format: string;
  /** The SQLite databases' schema version (pipeline/sqlite.ts SQLITE_FORMAT). */
  sqlite_format?: string;
  root: string;
  archives: ArchiveEntry[];
  datasets: {
    id: string; title: string; kind: ArchiveKind; contract_version: string; data_release: string; records: number;
    licences: { name: string; licence: unknown; attribution: string; url: string }[];
    archive: { file: string; size: number; sha256: string };
    sqlite: { file: string; size: number; sha256: string };
  }[];
}

const isTranslation = (ds: string) => ds.startsWith(datasetId(''));
const LEVEL = zc.Z_DEFAULT_COMPRESSION; // level 9 costs ~2x the CPU for ~1% here; a download is compressed once

/** One gzip member of tar entries (no end blocks); the release files are read one at a time. */
async function gzipMember(out: string, entries: { path: string; content: () => Buffer }[], end = false) {
  async function* blocks() {
    for (const e of entries) {
      const c = e.content();
      yield tarHeader(e.path, c.length);
      yield c;
      yield tarPadding(c.length);
    }
    if (end) yield TAR_END;
  }
  await pipeline(Readable.from(blocks()), createGzip({ level: LEVEL }), createWriteStream(out));
}

/** The parts one after another (a pipeline per part with end: false would pile listeners on the writer). */
async function concat(out: string, parts: string[]) {
  async function* chunks() {
    for (const p of parts) yield* createReadStream(p);
  }
  await pipeline(Readable.from(chunks()), createWriteStream(out));
}

async function sha256File(file: string): Promise<string> {
  const h = createHash('sha256');
  for await (const chunk of createReadStream(file)) h.update(chunk as Buffer);
  return h.digest('hex');
}

/**
 * The build date of a release: SOURCE_DATE_EPOCH when set (reproducible-builds
 * convention), else when its manifest was written (a release folder is written once and
 * an identical rebuild keeps it), so bundling the same release twice gives the same bytes.
 */
function builtAt(dir: string, env: NodeJS.ProcessEnv): string {
  const epoch = Number(env.SOURCE_DATE_EPOCH);
  const t = Number.isFinite(epoch) && env.SOURCE_DATE_EPOCH ? epoch * 1000 : Math.floor(statSync(path.join(dir, MANIFEST)).mtimeMs / 1000) * 1000;
  return new Date(t).toISOString();
}

export interface BundleOptions {
  env?: NodeJS.ProcessEnv;
  log?: (line: string) => void;
  /** The release to bundle (default: the live one). The build bundles its release before switching to it. */
  release?: string;
  /** Where the record schemas come from, which type the SQLite columns (default: every source of sources/index.ts). */
  sources?: DatasetSource<any>[];
}

/**
 * The record schema of each dataset, for the SQLite worker (plain JSON). A dataset no
 * source here describes (a release built by other code) is typed from its values instead.
 */
export function schemasOf(ids: string[], sources: DatasetSource<any>[] = ALL_SOURCES): Record<string, SchemaObject | null> {
  const byId = new Map(sources.map((s) => [s.id, s]));
  return Object.fromEntries(ids.map((id) => [id, byId.has(id) ? JSON.parse(JSON.stringify(byId.get(id)!.schema)) as SchemaObject : null]));
}

/** Writes dist/bundles/<release>/ (replacing an earlier bundle of it) and returns its download.json. */
export async function writeBundle(opts: BundleOptions = {}): Promise<Downloads & { dir: string }> {
  const env = opts.env ?? process.env;
  const log = opts.log ?? ((l: string) => console.log(l));
  const dist = distDir(env);
  const release = opts.release ?? readCurrent(dist);
  if (!release) throw new Error(`no release in ${dist}: run npm run build`);
  const dir = releaseDir(dist, release);
  const manifest: Manifest = JSON.parse(readFileSync(path.join(dir, MANIFEST), 'utf8'));
  const datasets = manifest.datasets as Record<string, DatasetInfo>;
  const built_at = builtAt(dir, env);
  const root = bundleRoot(release);
  const out = bundleDir(dist, release);
  const tmp = path.join(bundlesDir(dist), tmpFolderName());
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(path.join(tmp, '.parts'), { recursive: true });

  const allFiles = Object.keys(manifest.files).sort();
  const entry = (p: string) => ({ path: `${root}/${p}`, content: () => readFileSync(path.join(dir, p)) });
  const filesOf = (ids: string[], extra: string[] = []) => {
    const files: BundleMeta['files'] = {};
    for (const p of allFiles) {
      if (extra.includes(p) || (!isPanelsFile(p) && ids.some((ds) => isDatasetFile(ds, p)))) files[p] = { size: manifest.files[p].size, sha256: manifest.files[p].sha256 };
    }
    return files;
  };
  const meta = (name: string, ids: string[], files: BundleMeta['files'], absent: Record<string, string> = {}): BundleMeta => ({
    release, pipeline_version: manifest.pipeline_version, built_at, archive: name,
    datasets: Object.fromEntries(ids.map((id) => [id, datasets[id]])), absent, files,
  });
  const tail = async (part: string, m: BundleMeta, shared: string[] = [], more: { path: string; content: () => Buffer }[] = []) => {
    const metaJson = Buffer.from(JSON.stringify(m, null, 1) + '\n');
    await gzipMember(part, [...shared.map(entry), ...more, { path: `${root}/${bundleMetaPath(m.archive)}`, content: () => metaJson }], true);
  };

  try {
    const ids = Object.keys(datasets).sort();
    const names = new Map<string, string>();
    for (const id of ids) {
      const name = archiveName(id);
      if (names.has(name) || name === BUNDLE_ALL) throw new Error(`archive name ${name} of ${id} is taken (${names.get(name) ?? 'all'})`);
      names.set(name, id);
    }
    const archives: ArchiveEntry[] = [];
    const bodyParts: string[] = [];
    const tarStarted = performance.now();
    // The same datasets as SQLite databases (one per dataset and translation, one with
    // everything), written on another thread while this one writes the tar.gz archives.
    const sqlite = writeSqliteInWorker({ dir, manifest, out: tmp, builtAt: built_at, names: ids.map((id) => [id, archiveName(id)]), all: BUNDLE_ALL, schemas: schemasOf(ids, opts.sources) });
    sqlite.catch(() => {}); // awaited below; a tar failure must not leave it unhandled
    for (const id of ids) {
      const name = archiveName(id);
      const files = filesOf([id]);
      const body = path.join(tmp, '.parts', `${name}.body.gz`);
      const end = path.join(tmp, '.parts', `${name}.end.gz`);
      await gzipMember(body, Object.keys(files).map(entry));
      await tail(end, meta(name, [id], files));
      const file = archiveFile(name);
      await concat(path.join(tmp, file), [body, end]);
      bodyParts.push(body);
      archives.push({ name, file, kind: isTranslation(id) ? 'translation' : 'dataset', format: 'tar.gz', datasets: [id], records: datasets[id].records, size: 0, sha256: '' });
    }
    // Everything: every dataset's compressed member, then the release-wide files and metadata.
    // The docs page too, so `serve --bundle <dir> --open` of all.tar.gz has /docs.
    const shared = [OPENAPI, OPENAPI_V1, LICENCES, ...Object.keys(manifest.files).filter((p) => p.startsWith(`${DOCS_DIR}/`) || isPanelsFile(p)).sort()].filter((p) => manifest.files[p]);
    const allEnd = path.join(tmp, '.parts', 'all.end.gz');
    // The release's own manifest.json rides along, so `npm run release:pull` can rebuild the
    // release under the same id on another machine (pipeline/release-pull.ts).
    const manifestEntry = { path: `${root}/${MANIFEST}`, content: () => readFileSync(path.join(dir, MANIFEST)) };
    await tail(allEnd, meta(BUNDLE_ALL, ids, filesOf(ids, shared), (manifest.absent as Record<string, string>) ?? {}), shared, [manifestEntry]);
    await concat(path.join(tmp, archiveFile(BUNDLE_ALL)), [...bodyParts, allEnd]);
    archives.unshift({ name: BUNDLE_ALL, file: archiveFile(BUNDLE_ALL), kind: 'all', format: 'tar.gz', datasets: ids, records: ids.reduce((n, id) => n + datasets[id].records, 0), size: 0, sha256: '' });
    log(`tar.gz archives of release ${release}: ${((performance.now() - tarStarted) / 1000).toFixed(1)} s`);
    for (const db of await sqlite) {
      archives.push({ name: db.name, file: db.file, kind: db.name === BUNDLE_ALL ? 'all' : isTranslation(db.datasets[0]) ? 'translation' : 'dataset', format: 'sqlite', datasets: db.datasets,
        records: db.datasets.reduce((n, id) => n + datasets[id].records, 0), size: 0, sha256: '', raw_size: db.rawSize });
    }
    log(`SQLite databases of release ${release}: ${((performance.now() - tarStarted) / 1000).toFixed(1)} s from the start of the bundle (written beside the tar.gz archives)`);
    for (const a of archives) {
      a.size = statSync(path.join(tmp, a.file)).size;
      a.sha256 = await sha256File(path.join(tmp, a.file));
    }
    rmSync(path.join(tmp, '.parts'), { recursive: true, force: true });

    const byName = new Map(archives.filter((a) => a.format === 'tar.gz').map((a) => [a.name, a]));
    const sqliteOf = new Map(archives.filter((a) => a.format === 'sqlite').map((a) => [a.name, a]));
    const downloads: Downloads = {
      release, pipeline_version: manifest.pipeline_version, built_at, sqlite_format: SQLITE_FORMAT,
      format: 'sqlite: a SQLite database (gunzip it; tables in its readme view); tar.gz: the release files (ustar in gzip; extract with tar xzf)', root, archives,
      datasets: ids.map((id) => {
        const info = datasets[id], a = byName.get(archiveName(id))!;
        return {
          id, title: info.title, kind: a.kind, contract_version: info.contract_version, data_release: info.data_release, records: info.records,
          licences: info.provenance.map((p) => ({ name: p.name, licence: p.licence, attribution: p.attribution, url: p.url })),
          archive: { file: a.file, size: a.size, sha256: a.sha256 },
          sqlite: (({ file, size, sha256 }) => ({ file, size, sha256 }))(sqliteOf.get(archiveName(id))!),
        };
      }),
    };
    writeFileSync(path.join(tmp, DOWNLOADS), JSON.stringify(downloads, null, 1) + '\n');
    writeFileSync(path.join(tmp, SHA256SUMS), archives.map((a) => `${a.sha256}  ${a.file}\n`).join(''));
    rmSync(out, { recursive: true, force: true });
    renameSync(tmp, out);
    for (const a of archives) log(`${a.file.padEnd(40)} ${String(a.records).padStart(8)} records ${(a.size / 2 ** 20).toFixed(2).padStart(9)} MiB${a.raw_size ? ` (${(a.raw_size / 2 ** 20).toFixed(2)} MiB raw)` : ''}  ${a.sha256}`);
    log(`bundle of release ${release}: ${archives.length} archives in ${out}`);
    return { ...downloads, dir: out };
  } catch (err) {
    rmSync(tmp, { recursive: true, force: true });
    throw err;
  }
}

/**
 * Why a release's downloads cannot be kept as they are, or null when they can: every file
 * download.json lists is there with its size and its sha256 (issue 40, item 4: sizes alone
 * kept a same-size damaged file for good; hashing the ~700 MB takes a few seconds, against
 * ~95 s to write them again), in this SQLite format.
 */
export async function bundleProblem(dist: string, release: string): Promise<string | null> {
  let d: Downloads | null;
  try {
    d = readDownloads(dist, release);
  } catch (err) {
    return `${DOWNLOADS} cannot be read (${(err as Error).message})`;
  }
  if (!d) return `no ${DOWNLOADS}`;
  if (d.sqlite_format !== SQLITE_FORMAT) return `its SQLite files are of format ${d.sqlite_format ?? '1'}, this code writes ${SQLITE_FORMAT}`;
  for (const a of d.archives) {
    const file = path.join(bundleDir(dist, release), a.file);
    if (!existsSync(file)) return `${a.file} is missing`;
    const size = statSync(file).size;
    if (size !== a.size) return `${a.file} has ${size} bytes, ${DOWNLOADS} says ${a.size}`;
    const got = await sha256File(file);
    if (got !== a.sha256) return `${a.file} has sha256 ${got}, ${DOWNLOADS} says ${a.sha256}`;
  }
  return null;
}

/** Whether a release's downloads are there, whole (sizes and sha256), and of this format. */
export const bundleComplete = async (dist: string, release: string) => (await bundleProblem(dist, release)) === null;

/** The download.json of a release's bundle, or null when none was written. */
export function readDownloads(dist: string, release: string): Downloads | null {
  const file = path.join(bundleDir(dist, release), DOWNLOADS);
  return existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : null;
}

if (isMain(import.meta.url)) {
  parseCli('bundle', 'usage: npm run bundle\n  writes the offline downloads (SQLite databases and tar.gz archives) of the live release of dist/ into dist/bundles/<release>; npm run build does it too', {});
  writeBundle().catch((err) => {
    console.error(`bundle failed: ${err.message}`);
    process.exit(1);
  });
}
