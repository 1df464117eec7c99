/**
 * A leased lock (issue 40, item 2): the nightly's `dist/nightly.lock`. tryLock (lock.ts)
 * takes it with a lease and a token of its own; this module renews it, by touching the
 * file a few times per lease, until it is released.
 *
 * The renewal runs on a worker thread of its own, not on the job's event loop: a full
 * nightly on a loaded machine (load average 13-19) held its main thread for up to 216 s at
 * a stretch (a dataset's build is synchronous), a third of the 600 s lease, so a timer
 * there could let the lease lapse under a live job. A lease is for a holder that is gone
 * (killed, its runner or host vanished): a job that hangs but lives keeps its lock until
 * its scheduler's timeout ends it, and then the lease lapses.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { holderOf, tryLock } from './lock.ts';

/** A leased lock held by this process. */
export interface Lease {
  /** Gives the lock up (idempotent; not when another process holds it now). */
  release(): void;
  /** Whether the lock file still names this holder (another process may have taken it over). */
  held(): boolean;
  /** Renewals so far and the longest time between two of them (ms): how close the lease came to lapsing. */
  stats(): { renewals: number; longestGapMs: number };
}

/**
 * The renewer (plain JavaScript: a worker evaluated from source needs no loader). Each
 * tick it checks that the file still names this holder, then sets its times to now;
 * `stats` holds [renewals, longest gap ms, last renewal ms] for the main thread.
 */
const RENEWER = `
const { workerData: w, parentPort } = require('node:worker_threads');
const { readFileSync, utimesSync } = require('node:fs');
const stats = new Float64Array(w.stats);
stats[2] = Date.now();
const timer = setInterval(() => {
  let text = '';
  try { text = readFileSync(w.file, 'utf8'); } catch {}
  const [pid, host, , ...more] = text.trim().split(' ');
  if (Number(pid) !== w.pid || host !== w.host || !more.includes('token=' + w.token)) {
    clearInterval(timer);
    parentPort.postMessage({ lost: text.trim() || null });
    return;
  }
  const now = Date.now();
  try {
    utimesSync(w.file, now / 1000, now / 1000);
    stats[0]++;
    stats[1] = Math.max(stats[1], now - stats[2]);
    stats[2] = now;
  } catch (err) {
    parentPort.postMessage({ error: err.message });
  }
}, w.every);
`;

/**
 * Takes a leased lock (throws LockBusy while another holder's lease runs) and renews it
 * every `renewMs` (default a fifth of the lease) from a worker thread. Renewal stops (and
 * says so, when the job's event loop next turns) once the file names another holder.
 */
export function leaseLock(file: string, o: { leaseMs: number; renewMs?: number; log?: (m: string) => void }): Lease {
  const log = o.log ?? (() => {});
  const token = randomBytes(6).toString('hex');
  const unlock = tryLock(file, log, { leaseMs: o.leaseMs, token });
  const shared = new SharedArrayBuffer(3 * 8);
  const stats = new Float64Array(shared);
  const renewer = new Worker(RENEWER, {
    eval: true,
    workerData: { file, pid: process.pid, host: hostname(), token, every: o.renewMs ?? Math.max(10, Math.floor(o.leaseMs / 5)), stats: shared },
  });
  renewer.unref();
  let released = false;
  renewer.on('message', (m: { lost?: string | null; error?: string }) => {
    if (released) return; // a tick racing the release
    if ('lost' in m) log(`${path.basename(file)}: no longer this run's (${m.lost ? `now: ${m.lost}` : 'removed'}); not renewing it`);
    else log(`${path.basename(file)}: could not renew (${m.error})`);
  });
  renewer.on('error', (err) => log(`${path.basename(file)}: the renewing thread failed (${err.message})`));
  const started = Date.now();
  return {
    release() {
      if (released) return;
      released = true;
      void renewer.terminate();
      unlock();
    },
    held() {
      const h = holderOf(file);
      return h?.pid === process.pid && h.host === hostname() && h.token === token;
    },
    stats: () => ({ renewals: stats[0], longestGapMs: Math.max(stats[1], Date.now() - (stats[2] || started)) }),
  };
}
