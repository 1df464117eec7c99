/**
 * The files of a release checked against their sha256 in the background, once the Node
 * server has opened it and warmed its search indexes (node/server.ts): each check records
 * what a first read records (the file's signature in `verified`, a pack's line starts), so
 * the first request to read a file does not hash it. Before, the one repeatable slow
 * search was a phrase window's first read of its packs: web "land into" 50–62 ms, 26.9 ms
 * of it hashing packs (docs/benchmarks.md, "land into"; issue 41, item 4).
 *
 * Nothing waits for it, so it takes the least it can of the event loop: one file at a time,
 * read in 256 KiB steps on the thread pool (fs-files.ts scanLines), each step hashed in a
 * turn of the 'background' lane (search/turns.ts), which is given only when no request's
 * slice and no index load waits. A file is judged exactly as its first read judges it
 * (release.ts `bad`: marked corrupt, reported, listed by /healthz); a file that changed
 * while read, or cannot be read, is left to its first read. It stops at the next step once
 * `stopped` says so (a release switch, shutdown): a step holds nothing but its own read.
 *
 * Only where the reader hashes on first read and can scan (Node's FsReader): the Worker's
 * store verified every file when it was written (R2), and its reads are per request.
 * Compressed variants (.br/.gz) are not checked here: their first read decodes them, a
 * cost of its own that few requests meet (the docs pages).
 */
import { packPath } from '../../pipeline/paths.ts';
import type { DatasetInfo } from '../../pipeline/shards.ts';
import { slicer } from '../search/turns.ts';

/** What the check needs of a release (release.ts): its files, and the two checks a first read makes. */
export interface CheckFiles {
  datasets: Map<string, DatasetInfo>;
  /** The manifest's files (identity bytes), in manifest order. */
  files: string[];
  /** Checks a pack as its first line read does (pack-lines.ts); false when it was checked before or changed meanwhile. */
  pack(rel: string, between: () => Promise<void>): Promise<boolean>;
  /** Checks any other file as its first read does (release.ts readChecked); false likewise. */
  file(rel: string, between: () => Promise<void>): Promise<boolean>;
}

export interface CheckResult {
  /** Files hashed and recorded. */
  checked: number;
  /** Files that did not match their sha256 (reported as a first read reports them). */
  corrupt: number;
  /** Files left to their first read: checked before, changed while read, or unreadable. */
  left: number;
  /** Bytes hashed. */
  bytes: number;
  stopped: boolean;
  ms: number;
}

/** Whose packs go first: the scripture texts and word study, which search reads by phrase window. */
const FIRST = /^bible(\/|-study$|-study\/)/;

/** The order of the check: scripture packs, then every other pack, then the other files (each once). */
export function checkOrder(datasets: Map<string, DatasetInfo>, files: string[]): { rel: string; pack: boolean }[] {
  const listed = new Set(files);
  const first: string[] = [];
  const later: string[] = [];
  for (const [id, info] of datasets) {
    for (let n = 0; n < (info.packs ?? 0); n++) {
      const rel = packPath(id, n);
      if (listed.has(rel)) (FIRST.test(id) ? first : later).push(rel);
    }
  }
  const packs = new Set([...first, ...later]);
  return [...[...first, ...later].map((rel) => ({ rel, pack: true })), ...files.filter((f) => !packs.has(f)).map((rel) => ({ rel, pack: false }))];
}

class Stopped extends Error {}

/** Runs the check to its end or until `stopped()`; never rejects. */
export async function checkInBackground(t: CheckFiles, stopped: () => boolean, sizeOf: (rel: string) => number): Promise<CheckResult> {
  const t0 = performance.now();
  const out: CheckResult = { checked: 0, corrupt: 0, left: 0, bytes: 0, stopped: false, ms: 0 };
  const turn = slicer(0, 'background');
  const between = async () => {
    if (stopped()) throw new Stopped();
    await turn();
    if (stopped()) throw new Stopped();
  };
  for (const { rel, pack } of checkOrder(t.datasets, t.files)) {
    if (stopped()) {
      out.stopped = true;
      break;
    }
    try {
      // A file checked before costs a look; each step of another waits for its turn (`between`).
      if (await (pack ? t.pack(rel, between) : t.file(rel, between))) {
        out.checked++;
        out.bytes += sizeOf(rel);
      } else out.left++;
    } catch (err) {
      if (err instanceof Stopped) {
        out.stopped = true;
        break;
      }
      // release_corrupt: already marked and reported by the release, as a first read does.
      if ((err as { code?: string }).code === 'release_corrupt') out.corrupt++;
      else out.left++; // unreadable now (removed with an old release?): its first read judges it
    }
  }
  out.ms = performance.now() - t0;
  return out;
}
