/**
 * Raw reads of release files for server/release.ts, each with the stat signature (inode,
 * size, mtime) the file had when read: a file whose signature is unchanged since its
 * sha256 matched need not be hashed again, and a line of it may be read alone. Any write
 * to a file changes its mtime, so a changed file is always checked again.
 */
import { createHash } from 'node:crypto';
import { closeSync, fstatSync, openSync, read, readFileSync, readSync, statSync, type Stats } from 'node:fs';
import { open } from 'node:fs/promises';
import { promisify } from 'node:util';
import type { OpenFile } from './reader.ts';

export const signatureOf = (st: Stats) => `${st.ino}:${st.size}:${st.mtimeMs}`;

/**
 * A download's signature (server/api/downloads.ts): the above and the change time, which
 * any write sets and no tool can set back (`touch -r` restores mtime, not ctime), so a
 * download hashed once is hashed again after any change to its bytes.
 */
export const strictSignatureOf = (st: Stats) => `${signatureOf(st)}:${st.ctimeMs}`;

/** A file's strict signature now (one stat), or undefined when it is not there. */
export function statSignature(file: string): string | undefined {
  try {
    return strictSignatureOf(statSync(file));
  } catch {
    return undefined;
  }
}

/**
 * A file's sha256, read in 1 MiB steps on the thread pool (a 230 MB download must not hold
 * the event loop), with its strict signature; `sig` is '' when the file changed while it
 * was read (its hash then names no one copy).
 */
export async function hashFile(file: string): Promise<{ sha256: string; sig: string }> {
  const fh = await open(file, 'r');
  try {
    const before = strictSignatureOf(await fh.stat());
    const hash = createHash('sha256');
    const buf = Buffer.allocUnsafe(2 ** 20);
    for (let pos = 0, got; (got = (await fh.read(buf, 0, buf.length, pos)).bytesRead) > 0; pos += got) hash.update(buf.subarray(0, got));
    const after = strictSignatureOf(await fh.stat());
    return { sha256: hash.digest('hex'), sig: before === after ? before : '' };
  } finally {
    await fh.close();
  }
}

/** From this size on, a whole file is read on the thread pool (a 10 MB index part: 3–30 ms of the event loop). */
const READ_OFF_THREAD = 256 * 1024;
const readAt = promisify(read);

/** The whole file and its signature. */
export async function readWhole(file: string): Promise<{ bytes: Buffer; sig: string }> {
  const fd = openSync(file, 'r');
  try {
    const st = fstatSync(fd);
    const sig = signatureOf(st);
    if (st.size < READ_OFF_THREAD) return { bytes: readFileSync(fd), sig };
    const bytes = Buffer.allocUnsafe(st.size);
    let got = 0;
    for (let n; got < bytes.length && (n = (await readAt(fd, bytes, got, bytes.length - got, got)).bytesRead) > 0; got += n);
    // A file that shrank meanwhile is short here, and its size check fails (release.ts).
    return { bytes: got === bytes.length ? bytes : bytes.subarray(0, got), sig };
  } finally {
    closeSync(fd);
  }
}

/**
 * scanLines' read buffers, reused: reading each ~1 MB pack into a fresh buffer to serve
 * one line left the server at 1.27 GiB RSS after a search bench (freed megabyte buffers
 * that malloc keeps), against 0.73–0.86 GiB before. A scan now awaits its reads, so scans
 * under way each hold one; at most SCRATCH_KEPT are kept between scans.
 */
const SCRATCH_BYTES = 256 * 1024;
const SCRATCH_KEPT = 4;
const scratch: Buffer[] = [];

/**
 * A file's size, sha256 and line starts (the last entry is the offset after the final
 * newline), read in 256 KiB steps through a reused buffer. Each step is a read on the
 * thread pool, so the event loop turns between steps: scanned synchronously, a search
 * answer's 20 records from 20 packs not read before held the loop ~80 ms (issue 27).
 * With `between`, it is awaited after each read, before its bytes are hashed, and `sig`
 * is '' when the file's signature changed while it was read.
 */
export async function scanLines(file: string, between?: () => Promise<void>): Promise<{ size: number; sha256: string; starts: Uint32Array; sig: string }> {
  const fh = await open(file, 'r');
  const buf = scratch.pop() ?? Buffer.allocUnsafe(SCRATCH_BYTES);
  const hash = createHash('sha256');
  const starts: number[] = [0];
  let total = 0;
  try {
    const sig = signatureOf(await fh.stat());
    for (let got; (got = (await fh.read(buf, 0, buf.length, total)).bytesRead) > 0; total += got) {
      // A background check (release/background-check.ts) hashes each step in a turn of its
      // own, given only when no request or index load waits for one (search/turns.ts).
      if (between) await between();
      const chunk = buf.subarray(0, got);
      hash.update(chunk);
      for (let k = chunk.indexOf(10); k !== -1; k = chunk.indexOf(10, k + 1)) starts.push(total + k + 1);
    }
    // Checked in the background, a file that changed while read names no one copy: not recorded.
    if (between && signatureOf(await fh.stat()) !== sig) return { size: total, sha256: hash.digest('hex'), starts: Uint32Array.from(starts), sig: '' };
    return { size: total, sha256: hash.digest('hex'), starts: Uint32Array.from(starts), sig };
  } finally {
    if (scratch.length < SCRATCH_KEPT) scratch.push(buf);
    await fh.close();
  }
}

/**
 * Bytes [from, to) of a file, or undefined when its signature is no longer `sig` (or it is
 * shorter). The file stays open for the next read (`held`): the signature is checked on
 * the descriptor each time. A descriptor whose copy no longer has `sig` is closed and the
 * path opened again once, so a copy replaced by a rename is read as the new copy. While the
 * held copy still has `sig`, it answers: those are the bytes that were checked, even if the
 * path now names another copy (its first read by signature, or the next release, checks that one).
 */
export function readRange(file: string, from: number, to: number, sig: string): Buffer | undefined {
  let fd = held.take(file);
  // Whatever throws (a stat, a read), the descriptor in hand is closed, never left open unheld.
  try {
    if (fd !== undefined && signatureOf(fstatSync(fd)) !== sig) {
      closeQuietly(fd);
      fd = undefined;
    }
    if (fd === undefined) {
      fd = openSync(file, 'r');
      if (signatureOf(fstatSync(fd)) !== sig) {
        closeQuietly(fd);
        return undefined;
      }
    }
    const out = Buffer.allocUnsafe(to - from);
    const ok = readSync(fd, out, 0, out.length, from) === out.length;
    held.keep(file, fd);
    return ok ? out : undefined;
  } catch (err) {
    if (fd !== undefined) closeQuietly(fd);
    throw err;
  }
}

const closeQuietly = (fd: number) => {
  try {
    closeSync(fd);
  } catch { /* already closed */ }
};

/**
 * Descriptors of files read by ranges (records, study panels), kept open between reads:
 * without them each read opened and closed its file (20,000 uncached record reads: 63,254
 * opens, 22,019 with them; 7.6 against 7.0 µs a read; issue 41, fifteenth pass). At most KEPT, the least recently read closed first, and all of them when a
 * release is opened (`closeHeldFiles`), so an old release's deleted files free their
 * disk space then, not when they would have been crowded out.
 */
class HeldFiles {
  static readonly KEPT = 64;
  private readonly fds = new Map<string, number>();
  /** The descriptor held for `file`, now no longer held (the caller keeps it again or closes it). */
  take(file: string): number | undefined {
    const fd = this.fds.get(file);
    if (fd !== undefined) this.fds.delete(file);
    return fd;
  }
  keep(file: string, fd: number) {
    this.fds.set(file, fd);
    if (this.fds.size <= HeldFiles.KEPT) return;
    const [oldest, old] = this.fds.entries().next().value!;
    this.fds.delete(oldest);
    closeQuietly(old);
  }
  get size() {
    return this.fds.size;
  }
  closeAll() {
    for (const fd of this.fds.values()) closeQuietly(fd);
    this.fds.clear();
  }
}
const held = new HeldFiles();
/** Closes every descriptor readRange holds (a release opened; tests). */
export const closeHeldFiles = () => held.closeAll();
/** How many descriptors readRange holds (tests). */
export const heldFiles = () => held.size;

/**
 * Closes the descriptor of an OpenFile nobody holds any more: an index dropped from the
 * cache, or with its release after a switch. Its owner does not know when that is.
 */
const closing = new FinalizationRegistry<number>((fd) => {
  try {
    closeSync(fd);
  } catch { /* already closed */ }
});

/**
 * `file` opened for reads by offset while it is the copy `sig` names (undefined when it is
 * not, already, or cannot be opened: the caller keeps the bytes it just checked instead):
 * each read checks the signature again (one fstat) and reads with one positional read,
 * synchronously, for a caller that cannot wait (minisearch's search).
 */
export function openFile(file: string, sig: string): OpenFile | undefined {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return undefined;
  }
  if (signatureOf(fstatSync(fd)) !== sig) {
    closeSync(fd);
    return undefined;
  }
  const opened: OpenFile = {
    read(from, to) {
      if (signatureOf(fstatSync(fd)) !== sig) return undefined;
      const out = Buffer.allocUnsafe(to - from);
      return readSync(fd, out, 0, out.length, from) === out.length ? out : undefined;
    },
  };
  closing.register(opened, fd);
  return opened;
}
