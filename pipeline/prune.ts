/**
 * Pruning a dist folder: the releases beyond those kept, with their downloads and nightly
 * reports, and the temporary folders that builds and bundles left behind (issue 40, item 6).
 *
 * A temporary folder is named `.tmp-<pid>-<ms>-<host>` (paths.ts tmpFolderName) and removed only
 * when nobody can still be writing it: its process is not running on this host, or it is
 * another host's (a dist restored from another machine's cache, or shared) and untouched
 * for a day. Before, every `.tmp-*` but this process's own was removed, so a build pruning
 * beside another build deleted the other's release as it was being written.
 */
import { existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { bundlesDir, releasesDir, reportsDir, tmpHost } from './paths.ts';
import { readCurrent } from './writer.ts';

/** A folder left this long untouched is abandoned even when its pid runs (reused) or its host is another. */
const ABANDONED_MS = 24 * 3_600_000;

/** What a prune removed. */
export interface Pruned {
  releases: string[];
  /** Bytes of the releases and downloads removed. */
  bytes: number;
  /** Temporary folders removed (releases/ and bundles/). */
  temporary: string[];
}

const ownPrefix = () => `.tmp-${process.pid}-`;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether a `.tmp-*` folder (`<pid>-<ms>[-<host>]`; no host: written before hosts were named) can go. */
export function abandoned(dir: string, name: string, now = Date.now()): boolean {
  const m = /^\.tmp-(\d+)-(\d+)(?:-(.+))?$/.exec(name);
  let age: number;
  try {
    age = now - statSync(path.join(dir, name)).mtimeMs;
  } catch {
    return false; // gone already
  }
  if (!m) return age > ABANDONED_MS;
  if ((m[3] ?? tmpHost()) !== tmpHost()) return age > ABANDONED_MS;
  if (name.startsWith(ownPrefix())) return false;
  return !alive(Number(m[1])) || age > ABANDONED_MS;
}

/** Bytes under a folder (a release: a few thousand files). */
function sizeOf(p: string): number {
  const st = statSync(p, { throwIfNoEntry: false });
  if (!st) return 0;
  if (!st.isDirectory()) return st.size;
  return readdirSync(p).reduce((n, e) => n + sizeOf(path.join(p, e)), 0);
}

/**
 * Keeps the live release and the `keep` most recent others (by folder mtime) for rollback,
 * with their downloads and reports; removes the rest and abandoned temporary folders.
 */
export function pruneReleases(dist: string, keep = 2): Pruned {
  const out: Pruned = { releases: [], bytes: 0, temporary: [] };
  const live = readCurrent(dist);
  const dir = releasesDir(dist);
  if (!existsSync(dir)) return out;
  const drop = (parent: string, name: string) => {
    out.bytes += sizeOf(path.join(parent, name));
    rmSync(path.join(parent, name), { recursive: true, force: true });
  };
  const names = readdirSync(dir);
  for (const d of names.filter((n) => n.startsWith('.tmp-') && abandoned(dir, n))) {
    rmSync(path.join(dir, d), { recursive: true, force: true });
    out.temporary.push(`releases/${d}`);
  }
  const others = names
    .filter((d) => d !== live && !d.startsWith('.tmp-'))
    .map((d) => ({ d, t: statSync(path.join(dir, d)).mtimeMs }))
    .sort((a, b) => b.t - a.t);
  for (const { d } of others.slice(keep)) {
    drop(dir, d);
    out.releases.push(d);
  }
  // A release's downloads go with it (dist/bundles/<release>), and its nightly reports.
  const bundles = bundlesDir(dist);
  if (existsSync(bundles)) {
    for (const b of readdirSync(bundles)) {
      if (b.startsWith('.tmp-')) {
        if (!abandoned(bundles, b)) continue;
        rmSync(path.join(bundles, b), { recursive: true, force: true });
        out.temporary.push(`bundles/${b}`);
      } else if (!existsSync(path.join(dir, b))) drop(bundles, b);
    }
  }
  const reports = reportsDir(dist);
  if (existsSync(reports)) {
    for (const f of readdirSync(reports)) {
      const id = f.replace(/\.(json|md)$/, '');
      if (!existsSync(path.join(dir, id))) rmSync(path.join(reports, f), { force: true });
    }
  }
  return out;
}

/** "2 releases (3.1 GB): a, b", for logs. */
export const prunedText = (p: Pruned) =>
  `${p.releases.length} release${p.releases.length === 1 ? '' : 's'} (${(p.bytes / 1e9).toFixed(p.bytes >= 1e8 ? 1 : 3)} GB with their downloads): ${p.releases.join(', ')}`;
