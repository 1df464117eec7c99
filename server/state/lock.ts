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
 *
 * A lock with a lease (the nightly's, issue 40 item 2; lease.ts) also says `lease=<ms>` and
 * a token of its own, and its holder renews it (the file's mtime) a few times per lease: a
 * lock not renewed for longer than its lease is stale whatever host wrote it. The pid check alone
 * could not tell: on GitHub Actions every run is another host, so a cancelled run's lock
 * held every later night off for good.
 */
import { closeSync, linkSync, openSync, readFileSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';

export interface LockHolder {
  pid: number;
  host: string;
  since: string;
  /** A leased lock's lease (ms) and token. */
  lease?: number;
  token?: string;
}

/** Who holds a lock file now, or undefined when there is none (or it cannot be read). */
export function holderOf(file: string): LockHolder | undefined {
  try {
    const [pid, host, since, ...more] = readFileSync(file, 'utf8').trim().split(' ');
    const field = (k: string) => more.find((m) => m.startsWith(`${k}=`))?.slice(k.length + 1);
    const lease = Number(field('lease'));
    return { pid: Number(pid), host: host ?? '', since: since ?? '', ...(lease > 0 ? { lease } : {}), ...(field('token') ? { token: field('token') } : {}) };
  } catch {
    return undefined;
  }
}

/** How long ago the lock file was last written or renewed (ms), or undefined when it is gone. */
function ageOf(file: string): number | undefined {
  try {
    return Date.now() - statSync(file).mtimeMs;
  } catch {
    return undefined;
  }
}

const minutes = (ms: number) => (ms >= 120_000 ? `${Math.round(ms / 60_000)} min` : `${Math.round(ms / 1000)} s`);

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

/**
 * Takes the lock once, or throws LockBusy naming the live holder. Returns the release function.
 * With `leaseMs` the lock is leased (see leaseLock): a lock of any host not renewed for
 * longer than its lease (or `leaseMs`, for one written without a lease) is stale.
 */
export function tryLock(file: string, log: (m: string) => void = () => {}, o: { leaseMs?: number; token?: string } = {}): () => void {
  for (let attempt = 0; attempt < 20; attempt++) {
    try {
      const fd = openSync(file, 'wx');
      writeSync(fd, `${process.pid} ${hostname()} ${new Date().toISOString()}${o.leaseMs ? ` lease=${o.leaseMs} token=${o.token ?? ''}` : ''}\n`);
      closeSync(fd);
      let held = true;
      return () => {
        if (!held) return;
        held = false;
        const h = holderOf(file);
        if (h?.pid === process.pid && h.host === hostname() && h.token === o.token) rmSync(file, { force: true });
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const holder = holderOf(file);
    const age = ageOf(file);
    const lease = holder?.lease ?? o.leaseMs;
    const expired = !!o.leaseMs && holder?.pid && lease !== undefined && age !== undefined && age > lease;
    if (!holder || !holder.pid) {
      // Being written this instant, or left empty by a crash between create and write.
      let age: number;
      try {
        age = Date.now() - statSync(file).mtimeMs;
      } catch {
        continue;
      }
      if (age < 2000) throw new LockBusy(file, { pid: 0, host: hostname(), since: 'a moment ago (being written)' });
    } else if (!expired && (holder.host !== hostname() || alive(holder.pid))) {
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
    } else if (expired) {
      log(`${path.basename(file)}: took over a stale lock of pid ${holder!.pid} on ${holder!.host} (held since ${holder!.since}, not renewed for ${minutes(age!)}, more than its lease of ${minutes(lease!)})`);
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
