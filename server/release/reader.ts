/**
 * What the server needs of the place its releases live: a read-only view of a dist
 * folder (pipeline/paths.ts owns its layout). Two implementations: the folder on this
 * machine (fs-reader.ts, the Node server) and an R2 bucket (edge/r2-reader.ts, the
 * Worker). Everything above this interface (Release, the search, the handlers, the app
 * core) is the same code for both.
 *
 * Paths are dist-relative with forward slashes: `current`, `releases/<id>/<file>`,
 * `bundles/<id>/<file>`. Only paths the manifest (or download.json) lists are ever asked
 * for, so a request path never becomes a storage path.
 */

/** A file kept open for reads by offset: bytes [from, to), or undefined once it is no longer the copy it was opened as. */
export interface OpenFile {
  read(from: number, to: number): Buffer | undefined;
}

/** A file's bytes and what identifies this copy of it (inode/size/mtime, or an object's etag). */
export interface Read {
  bytes: Buffer;
  sig: string;
}

/** Line starts of a file read once and checked (Node: without holding its bytes, release/fs-files.ts). */
export interface Scan {
  size: number;
  sha256: string;
  starts: Uint32Array;
  sig: string;
}

export interface ReleaseReader {
  /** For messages: where the releases are (a folder, a bucket). */
  readonly where: string;
  /**
   * True when the store itself checked every file against the manifest's sha256 when it
   * was written (R2 refuses a put whose sha256 differs), so a read need not hash again.
   */
  readonly verified: boolean;
  /**
   * True when a load may not be awaited by another request than the one that started it
   * (workerd cancels that continuation once the starting request ends or is cancelled):
   * Release then waits for another request's load by looking, not by sharing its promise.
   */
  readonly isolated?: boolean;
  /** A file's text, or undefined when it does not exist (the `current` pointer, a manifest). */
  text(path: string): Promise<string | undefined>;
  /** A file's bytes; throws when it is missing. */
  read(path: string): Promise<Read>;
  /** Bytes [from, to) of a file, or undefined when it is no longer the copy `sig` names. */
  range(path: string, from: number, to: number, sig: string): Promise<Buffer | undefined>;
  /**
   * Optional: a file's size, sha256 and line starts without holding its bytes, so one
   * record of a pack is read alone (Node; the Worker reads whole packs into its cache,
   * because each range read would be a subrequest). With `between` (the background check
   * of a release's files, release/background-check.ts), that is awaited between read steps
   * (it may throw to stop the scan), and `sig` is '' when the file changed while read.
   */
  scan?(path: string, between?: () => Promise<void>): Promise<Scan>;
  /**
   * Optional: the file kept open for synchronous reads by offset while it is the copy `sig`
   * names, or undefined when it is not (Node: a search index's postings stay on disk,
   * binary-index.ts; the Worker holds the whole file, each read would be a subrequest).
   */
  open?(path: string, sig: string): OpenFile | undefined;
  /**
   * Optional: a file's sha256 and the signature of the copy that was hashed ('' when it
   * changed meanwhile), and the signature a file has now (undefined: missing). Node checks
   * a download against download.json's sha256 with these before serving it; a store that
   * is `verified` needs neither.
   */
  hash?(path: string): Promise<{ sha256: string; sig: string }>;
  signature?(path: string): string | undefined;
  /**
   * Optional: bytes [from, to) of a file read alone, with the file's whole size and the
   * signature of this copy, for a store that verified the file when it was written and
   * where every read costs (the Worker: search postings by ranges, search/remote-postings.ts).
   */
  slice?(path: string, from: number, to: number): Promise<{ bytes: Buffer; size: number; sig: string }>;
  /** A body to stream bytes [start, end] (inclusive) of a file: a download. Its type is the adapter's own. */
  stream(path: string, start: number, end: number): Promise<unknown>;
  /** Checks that every file of a release exists with its size before it is served (optional: R2 was checked at publish). */
  verifyRelease?(id: string, base: string, files: Record<string, { size: number; br?: number; gzip?: number }>): void;
}
