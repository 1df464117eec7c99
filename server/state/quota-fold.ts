/**
 * The disk steps of a usage journal compaction (quota.ts decides when, and keeps the
 * counts): a new journal begun, the snapshot that names it written durably, the folded
 * journal removed. The snapshot is written on the thread pool while the server counts
 * (writeFold, issue 41: no fsync on the event loop), or on the calling thread at start,
 * at a stop and for a compaction outside the request path (writeFoldSync). Whatever step a
 * crash interrupts, quota-load.ts reads back every count.
 */
import { closeSync, fsync, fsyncSync, openSync, rmSync, unlinkSync, writeSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { writeFileDurable, writeFileDurableAsync } from './atomic.ts';
import { journalHeader, journalPath, snapshotPath } from './quota-load.ts';

const fsyncAsync = promisify(fsync);
export const errCode = (err: unknown) => (err as NodeJS.ErrnoException).code ?? (err as Error).message;

/**
 * A compaction that switched to its new journal but whose snapshot is not on disk yet: the
 * snapshot (JSON, the counts at the switch), the old journal's generation and its
 * descriptor (open until the snapshot is written; -1 when found at start).
 */
export interface PendingFold { content: string; oldGen: number; oldFd: number }

/** Creates the journal of `gen` holding its header line (not synced); returns its descriptor, or throws having removed it. */
export function beginJournal(dir: string, gen: number): number {
  const header = journalHeader(gen);
  let fd = -1;
  try {
    fd = openSync(journalPath(dir, gen), 'w');
    if (writeSync(fd, header) !== Buffer.byteLength(header)) throw Object.assign(new Error('short write of the journal header'), { code: 'EIO' });
    return fd;
  } catch (err) {
    if (fd >= 0) closeSync(fd);
    rmSync(journalPath(dir, gen), { force: true });
    throw err;
  }
}

/** On the thread pool: both journals on disk, then the snapshot claiming them (temp file, fsync, rename, folder fsync). */
export async function writeFold(dir: string, p: PendingFold, newFd: number) {
  if (p.oldFd >= 0) await fsyncAsync(p.oldFd);
  await fsyncAsync(newFd);
  await writeFileDurableAsync(snapshotPath(dir), p.content);
}

/** Once the snapshot is on disk: the folded journal closed and removed (a failure only logged: the loader removes it). */
export function dropFolded(dir: string, p: PendingFold, log: (m: string) => void) {
  if (p.oldFd >= 0) closeSync(p.oldFd);
  const file = journalPath(dir, p.oldGen);
  rm(file, { force: true }).catch((err) => log(`cannot remove the folded journal ${file}: ${errCode(err)}`));
}

/** The same on this thread (`newFd` -1: the new journal is not open here); the folded journal is closed and removed. */
export function writeFoldSync(dir: string, p: PendingFold, newFd: number) {
  if (p.oldFd >= 0) fsyncSync(p.oldFd);
  else {
    const old = openSync(journalPath(dir, p.oldGen), 'r'); // found at start: on disk before the snapshot claims it
    try {
      fsyncSync(old);
    } finally {
      closeSync(old);
    }
  }
  if (newFd >= 0) fsyncSync(newFd);
  writeFileDurable(snapshotPath(dir), p.content);
  if (p.oldFd >= 0) closeSync(p.oldFd);
  rmSync(journalPath(dir, p.oldGen), { force: true });
}

/** Whether a count could be written now (readiness): a small file is written and removed in the state folder. */
export function probeFolder(dir: string): string | undefined {
  const file = path.join(dir, `.probe-${process.pid}`);
  try {
    const fd = openSync(file, 'w');
    try {
      writeSync(fd, 'almanac: can the state folder be written?\n');
    } finally {
      closeSync(fd);
      unlinkSync(file);
    }
    return undefined;
  } catch (err) {
    return `the state folder ${dir} cannot be written (${errCode(err)})`;
  }
}
