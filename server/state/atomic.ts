/** Durable replace of a small state file: write a temp file, fsync it, rename over, fsync the folder. */
import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeFileSync } from 'node:fs';
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
