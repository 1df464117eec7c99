/**
 * `npm run release:pull -- <source> [id]`: brings a release to this machine by id (issue 14).
 *
 *   <source> a dist folder (its `current`, or release [id] under releases/), a release
 *            folder itself (holding manifest.json), or a server's base URL
 *            (`http://host:port`): its /apis/downloads bundle (`all.tar.gz`, which carries
 *            the release's manifest.json) fetched with the key in ALMANAC_PULL_KEY or --key.
 *
 * Every file is checked against the manifest's sha256, and the release id is recomputed
 * from the files and the manifest (as the build computes it) and must equal the one asked
 * for; an archive fetched over HTTP is first checked against download.json's sha256. Only
 * then are the files written, through the build's own ReleaseWriter: a temp folder under
 * releases/, the .br/.gz variants made as the build makes them, a rename to releases/<id>
 * and an atomic rename of `current`. Anything that fails before that leaves the live
 * release serving and nothing behind; a running server picks the new `current` up within
 * a second, as after a build.
 */
import { createHash } from 'node:crypto';
import { closeSync, existsSync, fsyncSync, openSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Downloads } from './bundle.ts';
import { isMain, parseCli } from './cli.ts';
import { DOWNLOADS, MANIFEST, bundleRoot, currentPointer, distDir, releaseDir } from './paths.ts';
import { untar } from './tar.ts';
import { ReleaseWriter, readCurrent, type Manifest } from './writer.ts';
import { pruneReleases } from './prune.ts';

const sha256 = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

/** Where a release's files come from: its manifest and a reader of each listed file. */
interface Source {
  manifest: Manifest;
  read: (file: string) => Buffer | undefined;
  from: string;
}

/** The id the build gives these files and this manifest (pipeline/writer.ts ReleaseWriter.commit). */
export function releaseIdOf(manifest: Manifest): string {
  const { release: _r, files, ...extra } = manifest;
  const lines = Object.keys(files).sort().map((p) => `${p} ${files[p].sha256}`);
  return sha256(lines.join('\n') + '\n' + JSON.stringify(extra)).slice(0, 16);
}

function fromFolder(dir: string, id?: string): Source {
  let releaseFolder = dir;
  if (!existsSync(path.join(dir, MANIFEST))) {
    const live = id ?? readCurrent(dir);
    if (!live) throw new Error(`${dir} is neither a release folder (no ${MANIFEST}) nor a dist folder with a current release`);
    releaseFolder = releaseDir(dir, live);
    if (!existsSync(path.join(releaseFolder, MANIFEST))) throw new Error(`${dir} has no release ${live}`);
  }
  const manifest: Manifest = JSON.parse(readFileSync(path.join(releaseFolder, MANIFEST), 'utf8'));
  return {
    manifest,
    from: releaseFolder,
    read: (f) => {
      try {
        return readFileSync(path.join(releaseFolder, f));
      } catch {
        return undefined;
      }
    },
  };
}

async function get(url: string, key: string): Promise<Buffer> {
  const r = await fetch(url, { headers: { 'x-service-key': key } });
  const body = Buffer.from(await r.arrayBuffer());
  if (r.status !== 200) {
    let why = `HTTP ${r.status}`;
    try {
      why += `: ${JSON.parse(body.toString('utf8')).error.code}`;
    } catch { /* not the envelope */ }
    throw new Error(`${url}: ${why}`);
  }
  return body;
}

async function fromServer(base: string, key: string, id?: string): Promise<Source> {
  const root = base.replace(/\/+$/, '');
  const downloads: Downloads = JSON.parse((await get(`${root}/apis/downloads/${DOWNLOADS}`, key)).toString('utf8'));
  // A server offers the bundle of its live release only.
  if (id && downloads.release !== id) throw new Error(`${root} serves release ${downloads.release}, not ${id} (a server offers its live release only)`);
  const all = downloads.archives.find((a) => a.kind === 'all' && (a.format ?? 'tar.gz') === 'tar.gz');
  if (!all) throw new Error(`${root}: download.json lists no archive of the whole release`);
  const tgz = await get(`${root}/apis/downloads/${all.file}`, key);
  if (tgz.length !== all.size || sha256(tgz) !== all.sha256) {
    throw new Error(`${all.file} from ${root} does not match download.json (${tgz.length} bytes, ${all.size} expected, or a different sha256): not pulled`);
  }
  const files = untar(tgz);
  const prefix = `${bundleRoot(downloads.release)}/`;
  const manifestBytes = files.get(prefix + MANIFEST);
  if (!manifestBytes) throw new Error(`${all.file} from ${root} carries no ${MANIFEST} (a bundle written before release:pull existed: run npm run bundle there again)`);
  return { manifest: JSON.parse(manifestBytes.toString('utf8')), read: (f) => files.get(prefix + f), from: `${root} (${all.file})` };
}

export interface PullResult {
  release: string;
  files: number;
  from: string;
  /** false when the release was already here (only `current` switched). */
  copied: boolean;
}

/** Pulls a release into `dist` and switches `current` to it; throws, leaving `current` as it was, on any mismatch. */
export async function pullRelease(source: string, opts: { dist: string; id?: string; key?: string; log?: (m: string) => void }): Promise<PullResult> {
  const log = opts.log ?? (() => {});
  const src = /^https?:\/\//.test(source)
    ? await fromServer(source, opts.key ?? (() => { throw new Error('a server source needs a key: --key or ALMANAC_PULL_KEY'); })(), opts.id)
    : fromFolder(source, opts.id);
  const { manifest } = src;
  const id = manifest.release;
  if (opts.id && id !== opts.id) throw new Error(`${src.from} holds release ${id}, not ${opts.id}`);
  // The manifest itself must be the one the id names (a file list edited to match altered bytes is caught here).
  const computed = releaseIdOf(manifest);
  if (computed !== id) throw new Error(`${src.from}: ${MANIFEST} does not add up to release ${id} (its files and metadata give ${computed}): not pulled`);
  const copied = !existsSync(path.join(releaseDir(opts.dist, id), MANIFEST));
  const writer = copied ? new ReleaseWriter(opts.dist) : undefined;
  try {
    const paths = Object.keys(manifest.files).sort();
    for (const p of paths) {
      const content = src.read(p);
      const want = manifest.files[p];
      if (!content) throw new Error(`${src.from}: ${p} is missing: not pulled`);
      if (content.length !== want.size || sha256(content) !== want.sha256) throw new Error(`${src.from}: ${p} does not match its sha256 in ${MANIFEST}: not pulled`);
      writer?.add({ path: p, content });
    }
    const { release: _r, files: _f, ...extra } = manifest;
    const written = writer ? writer.commit(extra) : switchTo(opts.dist, id);
    if (written !== id) throw new Error(`internal: wrote release ${written}, expected ${id}`);
    pruneReleases(opts.dist);
    log(`release ${id}: ${paths.length} files from ${src.from}, verified; ${currentPointer(opts.dist)} now names it`);
    return { release: id, files: paths.length, from: src.from, copied };
  } catch (err) {
    writer?.abort();
    throw err;
  }
}

/** A release already here: only `current` moves, replaced atomically as the build does it. */
function switchTo(dist: string, id: string): string {
  const file = currentPointer(dist);
  const tmp = `${file}.tmp-${process.pid}`;
  writeFileSync(tmp, id + '\n');
  const fd = openSync(tmp, 'r');
  fsyncSync(fd);
  closeSync(fd);
  renameSync(tmp, file);
  return id;
}

if (isMain(import.meta.url)) {
  const usage = 'usage: npm run release:pull -- <dist folder | release folder | http(s)://server> [release id] [--key <key>]\n'
    + '  copies a release (every file checked against its manifest) into dist/ and switches current to it; --key (or ALMANAC_PULL_KEY) for a server';
  const { values, positionals } = parseCli('release:pull', usage, { key: { type: 'string' } }, process.argv.slice(2), true);
  const [source, id] = positionals;
  if (!source || positionals.length > 2) {
    console.error(`release:pull: ${source ? 'too many arguments' : 'name the source'}\n${usage}`);
    process.exit(2);
  }
  pullRelease(source, { dist: distDir(process.env), id, key: values.key ?? process.env.ALMANAC_PULL_KEY, log: (m) => console.log(m) }).catch((err) => {
    console.error(`release:pull failed, the live release is unchanged: ${(err as Error).message}`);
    process.exit(1);
  });
}
