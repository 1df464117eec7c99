/**
 * The Node server's release reader: a dist folder on this machine (release/reader.ts).
 * Raw reads are in fs-files.ts; this module maps dist paths to files and opens the live
 * release of a folder, or an extracted offline bundle.
 */
import { createReadStream, existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { MANIFEST, currentPointer, releaseDir } from '../../pipeline/paths.ts';
import type { Manifest } from '../../pipeline/writer.ts';
import { closeHeldFiles, hashFile, openFile, readRange, readWhole, scanLines, statSignature } from './fs-files.ts';
import type { ReleaseReader } from './reader.ts';
import { Release, releaseBase } from './release.ts';

export class FsReader implements ReleaseReader {
  readonly verified = false;
  constructor(readonly where: string) {}
  private file = (p: string) => path.join(this.where, p);
  async text(p: string) {
    try {
      return readFileSync(this.file(p), 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
  }
  async read(p: string) {
    return readWhole(this.file(p));
  }
  async range(p: string, from: number, to: number, sig: string) {
    return readRange(this.file(p), from, to, sig);
  }
  async scan(p: string, between?: () => Promise<void>) {
    return scanLines(this.file(p), between);
  }
  open(p: string, sig: string) {
    return openFile(this.file(p), sig);
  }
  hash(p: string) {
    return hashFile(this.file(p));
  }
  signature(p: string) {
    return statSignature(this.file(p));
  }
  async stream(p: string, start: number, end: number) {
    return createReadStream(this.file(p), { start, end });
  }

  /**
   * A release is served only when every manifest file (and compressed variant) exists with
   * its recorded size: a release with missing files is refused and the server keeps the one
   * it has (issue 9, fault 8). One stat per file, about 10 ms per 2,000 files. Bytes are
   * checked against the manifest's sha256 later, when a file is first read (release.ts).
   */
  verifyRelease(id: string, base: string, files: Manifest['files']) {
    const wrong: string[] = [];
    for (const [rel, e] of Object.entries(files)) {
      for (const [disk, size] of [[rel, e.size], [`${rel}.br`, e.br], [`${rel}.gz`, e.gzip]] as const) {
        if (size === undefined) continue;
        let actual: number | undefined;
        try {
          actual = statSync(this.file(base + disk)).size;
        } catch {
          actual = undefined;
        }
        if (actual !== size) wrong.push(`${disk} (${actual === undefined ? 'missing' : `${actual} bytes, manifest says ${size}`})`);
      }
    }
    if (wrong.length) {
      throw new Error(`release ${id} in ${this.file(base)} is incomplete: ${wrong.length} file(s) differ from ${MANIFEST}, e.g. ${wrong.slice(0, 3).join(', ')}. Rebuild with npm run build`);
    }
  }
}

/** The release id `dist/current` names, or undefined. */
export function currentId(dist: string): string | undefined {
  const p = currentPointer(dist);
  return existsSync(p) ? readFileSync(p, 'utf8').trim() || undefined : undefined;
}

/**
 * The live release of a dist folder, read from this machine (synchronously: the server
 * opens it before listening and on a switch of `current`). `cacheBytes` bounds its cache.
 */
export function fsRelease(dist: string, cacheBytes?: number): Release {
  const id = currentId(dist);
  if (!id) throw new Error(`no release in ${dist}: run npm run build`);
  // Files of the release before are read again through fresh descriptors (fs-files.ts).
  closeHeldFiles();
  const manifest = JSON.parse(readFileSync(path.join(releaseDir(dist, id), MANIFEST), 'utf8')) as Manifest;
  return new Release(new FsReader(dist), { id, base: releaseBase(id), manifest, cacheBytes, dist });
}

/**
 * A release whose files sit in `dir` itself (an extracted offline bundle, or the build's
 * temporary folder answering the OpenAPI examples), listed by `manifest`.
 */
export function fsReleaseAt(dir: string, manifest: Manifest, cacheBytes?: number, o: { bundle?: boolean } = {}): Release {
  return new Release(new FsReader(dir), { id: manifest.release, base: '', manifest, cacheBytes, bundle: o.bundle });
}
