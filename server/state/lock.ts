/**
 * Lock files for a state folder (issue 9, faults 3 and 4). Two locks:
 *
 * - `server.lock`, held by a server for its whole life: a second server on the same
 *   folder refuses to start and names the holder (two servers each appending to and
 *   compacting one journal lost counts);
 * - `keys.lock`, held by every keys writer (the CLI) for one read–modify–write of
 *   keys.json, so ten parallel `create`s and a `revoke` beside them all land.
 *
 * A lock is a file created with O_EXCL holding `<pid> <host> <iso time>`. It survives
 * `kill -9` as a file, so a lock whose pid is not alive on this host is stale and is
 * taken over (logged). Node has no flock(2); pid liveness is the portable check. A pid
 * reused by an unrelated process after a crash keeps the lock until that process ends
 * or an operator removes the file (the refusal message says which file and pid).
 */
import { closeSync, linkSync, openSync, readFileSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';

export interface LockHolder {
  pid: number;
  host: string;
  since: string;
}

function holderOf(file: string): LockHolder | undefined {
  try {
    const [pid, host, since] = readFileSync(file, 'utf8').trim().split(' ');
    return { pid: Number(pid), host: host ?? '', since: since ?? '' };
  } catch {
    return undefined;
  }
}

function alive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export class LockBusy extends Error {
  constructor(readonly file: string, readonly holder: LockHolder) {
    super(`${file} is held by pid ${holder.pid} on ${holder.host} since ${holder.since}`);
  }
}

/** Takes the lock once, or throws LockBusy naming the live holder. Returns the release function. */
export function tryLock(file: string, log: (m: string) => void = () => {}): () => void {
  for (let attempt = 0; attempt < 20; attempt++) {
    try {
      const fd = openSync(file, 'wx');
      writeSync(fd, `${process.pid} ${hostname()} ${new Date().toISOString()}\n`);
      closeSync(fd);
      let held = true;
      return () => {
        if (!held) return;
        held = false;
        if (holderOf(file)?.pid === process.pid) rmSync(file, { force: true });
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const holder = holderOf(file);
    if (!holder || !holder.pid) {
      // Being written this instant, or left empty by a crash between create and write.
      let age: number;
      try {
        age = Date.now() - statSync(file).mtimeMs;
      } catch {
        continue;
      }
      if (age < 2000) throw new LockBusy(file, { pid: 0, host: hostname(), since: 'a moment ago (being written)' });
    } else if (holder.host !== hostname() || alive(holder.pid)) {
      throw new LockBusy(file, holder);
    }
    // Move the stale file aside under a name of our own, then check that what we moved
    // is still the dead holder's (another process may have taken over first).
    const aside = `${file}.stale-${process.pid}`;
    try {
      renameSync(file, aside);
    } catch {
      continue;
    }
    const moved = holderOf(aside);
    if (moved && moved.pid !== (holder?.pid ?? 0)) {
      try {
        linkSync(aside, file);
      } catch {
        // Someone holds the lock again; theirs stands.
      }
    } else {
      log(`${path.basename(file)}: took over a stale lock of pid ${holder?.pid ?? '(none written)'} (not running: it was killed or crashed)`);
    }
    rmSync(aside, { force: true });
    continue;
  }
  throw new Error(`${file}: could not take the lock`);
}

const sleep = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/** Runs `fn` under the lock, waiting (up to `timeoutMs`) for another holder to finish. */
export function withLock<T>(file: string, fn: () => T, timeoutMs = 10_000): T {
  const end = Date.now() + timeoutMs;
  for (;;) {
    let release: () => void;
    try {
      release = tryLock(file);
    } catch (err) {
      if (!(err instanceof LockBusy) || Date.now() > end) throw err;
      sleep(5 + Math.random() * 10);
      continue;
    }
    try {
      return fn();
    } finally {
      release();
    }
  }
}
