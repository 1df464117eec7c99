/** Durable replace of a small state file: write a temp file, fsync it, rename over, fsync the folder. */
import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import path from 'node:path';

export function writeFileDurable(file: string, content: string | Buffer) {
  const tmp = `${file}.tmp-${process.pid}`;
  const fd = openSync(tmp, 'w');
  try {
    writeFileSync(fd, content); // loops over short writes; throws on ENOSPC
    fsyncSync(fd);
  } catch (err) {
    // A full disk: the partial temp file would only hold on to the space it took.
    closeSync(fd);
    rmSync(tmp, { force: true });
    throw err;
  }
  closeSync(fd);
  renameSync(tmp, file);
  try {
    const dir = openSync(path.dirname(file), 'r');
    fsyncSync(dir);
    closeSync(dir);
  } catch {
    // Some filesystems refuse fsync on a directory; the rename is still atomic.
  }
}

/**
 * The same steps on libuv's thread pool, for a write on the request path's thread (the
 * usage snapshot of a compaction, issue 41): the event loop goes on while the disk syncs.
 */
export async function writeFileDurableAsync(file: string, content: string | Buffer) {
  const tmp = `${file}.tmp-${process.pid}`;
  const fh = await open(tmp, 'w');
  try {
    await fh.writeFile(content);
    await fh.sync();
  } catch (err) {
    await fh.close();
    await rm(tmp, { force: true });
    throw err;
  }
  await fh.close();
  await rename(tmp, file);
  try {
    const dir = await open(path.dirname(file), 'r');
    try {
      await dir.sync();
    } finally {
      await dir.close();
    }
  } catch {
    // Some filesystems refuse fsync on a directory; the rename is still atomic.
  }
}
