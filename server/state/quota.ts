/**
 * Monthly request counters that survive restarts and crashes, with no server process:
 * an append-only journal plus a periodic snapshot.
 *
 * Every counted request appends one line (`<key id> <month> <unix seconds>`) with a
 * write(2) straight to the journal's file descriptor. The kernel holds it from that
 * moment, so a `kill -9` of the server loses nothing. The journal is fsync'd every
 * `fsyncMs` (default 1000), which bounds what an OS crash or power cut can lose to
 * one second of requests; after each fsync the checkpoint (journal-mark.ts) records how
 * far the journal reached, so a journal later cut at a line boundary is refused. When the
 * journal passes `compactBytes`, the compaction (fold()) switches appending to the next
 * journal generation at once and writes the counters as they stood at the switch to a new
 * snapshot naming it, on the thread pool (fsync of both journals, temp file, fsync, rename:
 * issue 41, no fsync on the event loop); then the old journal is removed. A crash at any
 * point leaves the old snapshot + old journal (+ the new journal, read after it), or the new
 * snapshot + new journal (+ the old journal it folded, removed). Reading them back is quota-load.ts.
 *
 * A write is whole or it did not happen (issue 38, item 1): a full disk can write part of
 * a line (write(2) returns fewer bytes); the part is cut off again with ftruncate, the
 * request is refused (StateWriteError → 503 state_unavailable, not billed), and no later
 * line is written until the cut has succeeded, so no line is ever glued onto a torn one.
 */
import { closeSync, existsSync, fsync, fsyncSync, ftruncateSync, mkdirSync, openSync, rmSync, writeSync } from 'node:fs';
import { createHash, type Hash } from 'node:crypto';
import path from 'node:path';
import { writeFileDurable } from './atomic.ts';
import { beginJournal, dropFolded, errCode, probeFolder, writeFold, writeFoldSync, type PendingFold } from './quota-fold.ts';
import { MARK_FILE, MarkFile, type Mark } from './journal-mark.ts';
import { monthOf } from './plans.ts';
import { StateWriteError } from './limits.ts';
import { apply, journalHeader, journalPath, load, snapshotPath, StateError, type Snapshot } from './quota-load.ts';

export { StateError, StateWriteError, journalHeader };

/** The journal's two system calls, replaceable so that tests can inject a full disk or a short write. */
export interface JournalIo {
  /** As fs.writeSync: returns how many bytes it wrote (fewer than asked on a full disk), or throws. */
  write?: (fd: number, buf: Buffer, offset: number, length: number) => number;
  /** As fs.ftruncateSync. */
  truncate?: (fd: number, length: number) => void;
}

export interface QuotaOptions {
  fsyncMs?: number;
  compactBytes?: number;
  /** Where recoveries and failed compactions are reported. */
  log?: (msg: string) => void;
  io?: JournalIo;
  /** Read only (the keys CLI): never removes or writes a file. */
  readOnly?: boolean;
}


export class QuotaStore {
  private snap: Snapshot;
  private fd = -1;
  /** Journal bytes that are whole lines: the file's length, except while a torn write awaits its cut. */
  private written: number;
  /** Bytes of a torn last line found at load, cut off by open(). */
  private tornTail: number;
  /** Counts in the journal, and the sha256 of its bytes so far (for the checkpoint). */
  private lines: number;
  private hash: Hash;
  /** A torn write is still in the file past `written` (its cut failed): nothing is appended until it is cut. */
  private torn = false;
  private timer: NodeJS.Timeout | undefined;
  private dirty = false;
  private readonly compactBytes: number;
  private readonly log: (msg: string) => void;
  private readonly write: NonNullable<JournalIo['write']>;
  private readonly truncate: NonNullable<JournalIo['truncate']>;
  private readonly mark: MarkFile;
  private compactRetryAt = 0;

  constructor(readonly dir: string, private opts: QuotaOptions = {}) {
    if (!opts.readOnly) mkdirSync(dir, { recursive: true });
    this.compactBytes = opts.compactBytes ?? 4 * 2 ** 20;
    this.log = opts.log ?? ((m) => console.error(m));
    this.write = opts.io?.write ?? writeSync;
    this.truncate = opts.io?.truncate ?? ftruncateSync;
    this.mark = new MarkFile(path.join(dir, MARK_FILE), this.log);
    const l = load(dir, !!opts.readOnly, this.log);
    this.snap = l.snap;
    this.written = l.written;
    this.tornTail = l.tornTail;
    this.lines = l.lines;
    this.hash = l.hash;
    if (l.fold) this.pending = { ...l.fold, oldFd: -1 };
  }

  /** A compaction whose snapshot is not on disk yet (quota-fold.ts). */
  private pending: PendingFold | undefined;
  /** The pending snapshot is being written on the thread pool. */
  private folding = false;

  private journalPath = (gen: number) => journalPath(this.dir, gen);
  private checkpoint = (): Mark => ({ generation: this.snap.generation, bytes: this.written, lines: this.lines, sha256: this.hash.copy().digest('hex') });

  /** Opens the journal for appending and starts the fsync timer (the server calls this). */
  open() {
    if (this.opts.readOnly) throw new Error('quota store opened read-only');
    // The first open writes a snapshot, so that from then on a deleted journal is noticed.
    if (!existsSync(snapshotPath(this.dir))) this.compact();
    this.fd = openSync(this.journalPath(this.snap.generation), 'a');
    if (this.tornTail) {
      // A write a crash cut short (its request was never answered): cut it off, so the
      // next line starts on a line of its own.
      this.truncate(this.fd, this.written);
      this.log(`${this.journalPath(this.snap.generation)}: the torn last line (${this.tornTail} bytes of a write a crash cut short; its request was never answered) was removed`);
      this.tornTail = 0;
    }
    // What was read is on disk before the checkpoint claims it.
    fsyncSync(this.fd);
    // A compaction that stopped before its snapshot was written is finished now (quota-load.ts read both journals).
    if (this.pending) this.finishPendingSync();
    this.mark.writeSync(this.checkpoint());
    const every = this.opts.fsyncMs ?? 1000;
    // The periodic fsync runs on libuv's threadpool: fsyncSync here blocked the event loop
    // 1.2–1.6 ms every second (issue 14's profile).
    this.timer = setInterval(() => this.syncSoon(), every);
    this.timer.unref();
  }
  private syncing = false;
  /** fsync off the event loop, then the checkpoint; a failure leaves the journal dirty for the next tick. */
  private syncSoon() {
    if (this.fd < 0 || !this.dirty || this.syncing) return;
    this.dirty = false;
    this.syncing = true;
    const at = this.checkpoint();
    fsync(this.fd, (err) => {
      this.syncing = false;
      // A checkpoint skipped (the previous one still being written) is tried again next tick.
      // No checkpoint of the new journal before the snapshot naming it is on disk (the loader would refuse it).
      if (err || (this.fd >= 0 && !this.pending && at.generation === this.snap.generation && !this.mark.writeSoon(at))) this.dirty = true;
    });
  }
  /** fsync now, on this thread, and record the checkpoint (before a compaction or close). */
  sync() {
    if (this.fd >= 0 && (this.dirty || this.syncing)) {
      fsyncSync(this.fd);
      this.dirty = false;
      if (!this.pending) this.mark.writeSync(this.checkpoint());
    }
  }

  used(key: string, nowMs = Date.now()): number {
    return this.usedIn(key, monthOf(nowMs));
  }

  usedIn(key: string, month: string): number {
    return this.snap.counts[key]?.[month] ?? 0;
  }

  lastUsed(key: string): number | undefined {
    return this.snap.last_used[key];
  }

  history(key: string): Record<string, number> {
    return { ...(this.snap.counts[key] ?? {}) };
  }

  /** Counts one request; returns the key's count for the month including it. */
  count(key: string, nowMs = Date.now(), month = monthOf(nowMs)): number {
    this.countMany([key], nowMs, month);
    return this.snap.counts[key][month];
  }

  /**
   * Counts several requests with one write(2) (the requests of one event-loop turn, or of
   * one worker batch): all of them are in the kernel before any of their responses is
   * sent. Either every line is written or none is counted (StateWriteError).
   */
  countMany(keys: readonly string[], nowMs = Date.now(), month = monthOf(nowMs)) {
    if (this.fd < 0) throw new Error('quota store not open');
    if (!keys.length) return;
    const ts = Math.floor(nowMs / 1000);
    const tail = ` ${month} ${ts}\n`;
    let text = '';
    for (const k of keys) text += k + tail;
    this.append(Buffer.from(text));
    this.lines += keys.length;
    for (const k of keys) apply(this.snap, k, month, ts);
    this.maybeCompact(nowMs);
  }

  /** Writes `buf` whole at the journal's end, or cuts what part of it was written and throws StateWriteError. */
  private append(buf: Buffer) {
    if (this.torn) this.cutTorn();
    let done = 0;
    try {
      // A short count is retried for the rest (the disk may have freed space); a full disk
      // then answers ENOSPC. No progress at all is a failure too.
      while (done < buf.length) {
        const n = this.write(this.fd, buf, done, buf.length - done);
        if (!(n > 0)) throw Object.assign(new Error(`the write stopped after ${done} of ${buf.length} bytes`), { code: 'EIO' });
        done += n;
      }
    } catch (err) {
      // Not written, so not counted: the caller answers 503 and the client may retry.
      if (done > 0) {
        this.torn = true;
        try {
          this.cutTorn();
        } catch { /* kept torn: the next append retries the cut first */ }
      }
      throw new StateWriteError(`cannot append to ${this.journalPath(this.snap.generation)}: ${errCode(err)}${done ? ` (${done} of ${buf.length} bytes written, ${this.torn ? 'not yet cut off again' : 'cut off again'})` : ''}`);
    }
    this.written += buf.length;
    this.hash.update(buf);
    this.dirty = true;
  }

  private cutTorn() {
    try {
      this.truncate(this.fd, this.written);
      this.torn = false;
    } catch (err) {
      throw new StateWriteError(`cannot cut a torn write off ${this.journalPath(this.snap.generation)} (${errCode(err)}); nothing is counted until it can be`);
    }
  }

  /** Whether a count could be written now (readiness): a small file is written and removed in the state folder. */
  probe(): string | undefined {
    if (this.torn) return `a torn write is still at the end of ${this.journalPath(this.snap.generation)}`;
    return probeFolder(this.dir);
  }

  private maybeCompact(nowMs: number) {
    if (this.folding || nowMs < this.compactRetryAt) return;
    if (this.pending) return this.finishFold(); // a snapshot that could not be written before
    if (this.written >= this.compactBytes) this.fold();
  }

  /**
   * The compaction on the request path (issue 41: its fsyncSync calls held the event loop
   * 5–7 ms each time, and the 256-connection maximum with them). On this thread only what
   * costs no disk wait: the counts as they stand are serialised, and appending switches to
   * a new journal (its header written, not synced), so every count from here on is in the
   * new journal and none in the old. The snapshot of the counts at the switch is written on
   * the thread pool (finishFold). Until it is on disk, the old snapshot and both journals
   * hold every count, and quota-load.ts reads them so.
   */
  private fold() {
    if (this.torn) return; // the next append cuts the torn write first
    const old = this.snap.generation;
    const next = old + 1;
    const content = JSON.stringify({ ...this.snap, generation: next, folded: { generation: old, bytes: this.written }, headers: true });
    let fd: number;
    try {
      fd = beginJournal(this.dir, next);
    } catch (err) {
      this.compactRetryAt = Date.now() + 60_000;
      this.log(`compaction failed, the journal keeps growing and is retried in 60 s: ${errCode(err)}`);
      return;
    }
    this.pending = { content, oldGen: old, oldFd: this.fd };
    this.fd = fd;
    this.snap.generation = next;
    this.snap.headers = true;
    const header = journalHeader(next);
    this.written = Buffer.byteLength(header);
    this.lines = 0;
    this.hash = createHash('sha256').update(header);
    this.dirty = true;
    this.finishFold();
  }

  /** Writes the pending snapshot on the thread pool, then closes and removes the old journal; a failure is retried in a minute. */
  private finishFold() {
    const p = this.pending!;
    const fd = this.fd;
    this.folding = true;
    writeFold(this.dir, p, fd).then(() => {
      this.folding = false;
      if (this.closeAfterFold(p, fd)) return;
      this.pending = undefined;
      this.dirty = true; // the next periodic fsync records the new journal's checkpoint
      dropFolded(this.dir, p, this.log);
    }, (err) => {
      this.folding = false;
      if (this.closeAfterFold(p, fd)) return;
      this.compactRetryAt = Date.now() + 60_000;
      this.log(`compaction failed, the journal keeps growing and is retried in 60 s: ${errCode(err)}`);
    });
  }

  /** The store was closed while the snapshot was being written: the descriptors it left to the write are closed now. */
  private closeAfterFold(p: { oldFd: number }, fd: number): boolean {
    if (this.pending === p) return false;
    if (p.oldFd >= 0) closeSync(p.oldFd);
    closeSync(fd);
    return true;
  }

  /** Writes the pending snapshot on this thread (at start, and before a compaction on this thread). */
  private finishPendingSync() {
    writeFoldSync(this.dir, this.pending!, this.fd);
    this.pending = undefined;
  }

  compact() {
    if (this.folding) throw new Error('a compaction is already being written');
    if (this.torn) this.cutTorn();
    if (this.pending) this.finishPendingSync();
    const old = this.snap.generation;
    this.sync();
    const next: Snapshot = { ...this.snap, generation: old + 1, folded: { generation: old, bytes: this.written }, headers: true };
    // New journal first (its header only), then the snapshot naming it, then the old journal
    // goes: quota-load.ts recognises what a crash between any two of these steps leaves behind.
    const header = journalHeader(next.generation);
    const fd = openSync(this.journalPath(next.generation), 'w');
    try {
      writeSync(fd, header);
      fsyncSync(fd);
      writeFileDurable(snapshotPath(this.dir), JSON.stringify(next));
    } catch (err) {
      closeSync(fd);
      rmSync(this.journalPath(next.generation), { force: true });
      throw err;
    }
    this.snap = next;
    if (this.fd >= 0) {
      closeSync(this.fd);
      this.fd = fd;
    } else closeSync(fd);
    rmSync(this.journalPath(old), { force: true });
    this.written = Buffer.byteLength(header);
    this.lines = 0;
    this.hash = createHash('sha256').update(header);
    this.mark.writeSync(this.checkpoint());
  }

  close() {
    clearInterval(this.timer);
    if (this.fd >= 0) {
      fsyncSync(this.fd);
      if (this.pending && !this.folding) {
        try {
          this.finishPendingSync(); // at a stop, waiting for the disk costs no request anything
        } catch (err) {
          this.log(`compaction failed at close, the next start finishes it: ${errCode(err)}`);
        }
      }
      const p = this.pending;
      if (p) {
        // A snapshot still being written on the thread pool (or not writable): left as it
        // stands, both journals whole on disk; the next start finishes it (quota-load.ts reads both).
        if (p.oldFd >= 0) fsyncSync(p.oldFd);
        if (!this.folding && p.oldFd >= 0) closeSync(p.oldFd); // else the write closes both when it is done
        this.pending = undefined;
      } else this.mark.writeSync(this.checkpoint());
      if (!this.folding) closeSync(this.fd);
      this.fd = -1;
    }
    this.mark.close();
  }
}
