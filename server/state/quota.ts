/**
 * Monthly request counters that survive restarts and crashes, with no server process:
 * an append-only journal plus a periodic snapshot.
 *
 * Every counted request appends one line (`<key id> <month> <unix seconds>`) with a
 * write(2) straight to the journal's file descriptor. The kernel holds it from that
 * moment, so a `kill -9` of the server loses nothing. The journal is fsync'd every
 * `fsyncMs` (default 1000), which bounds what an OS crash or power cut can lose to
 * one second of requests. When the journal passes `compactBytes`, the counters are
 * written to a new snapshot (temp file, fsync, rename) that names the next journal
 * generation, and the old journal is removed; a crash at any point of that leaves
 * either the old snapshot + old journal or the new snapshot + new journal.
 */
import { closeSync, existsSync, fsync, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs';
import path from 'node:path';
import { writeFileDurable } from './atomic.ts';
import { monthOf } from './plans.ts';
import { StateWriteError } from './limits.ts';

interface Snapshot {
  generation: number;
  counts: Record<string, Record<string, number>>;
  last_used: Record<string, number>;
  /** The journal this snapshot folded, so a crash that left it behind is told from a restored backup. */
  folded?: { generation: number; bytes: number };
  /**
   * Journals of this snapshot start with their header line (journalHeader), so an emptied
   * one is told from a fresh one (issue 26, item 12). Absent in snapshots of older versions,
   * whose journals have none; their next compaction starts a journal with a header.
   */
  headers?: true;
}

export interface QuotaOptions {
  fsyncMs?: number;
  compactBytes?: number;
  /** Where recoveries and failed compactions are reported. */
  log?: (msg: string) => void;
  /** Appends one journal line (tests inject a failing disk here). */
  append?: (fd: number, line: string) => void;
  /** Read only (the keys CLI): never removes or writes a file. */
  readOnly?: boolean;
}

/** State the server cannot trust; the message names the file, what is wrong and the fix. */
export class StateError extends Error {}
export { StateWriteError };

/** Largest timestamp a journal may hold: 9999-12-31T23:59:59Z. */
const MAX_TS = 253_402_300_799;
/** A clock may be set ahead; a year ahead of this one is not a clock, it is damage. */
const FUTURE_SLACK_S = 366 * 86_400;
const LINE = /^(\S{1,80}) (\d{4}-\d{2}) (\d{1,20})$/;
/** A write cut short by a crash: a prefix of a well-formed line, skipped (README "Durability"). */
const TORN = /^[\w-]{0,80}( [\d-]{0,7}( \d{0,12})?)?$/;
const isCount = (v: unknown) => Number.isSafeInteger(v) && (v as number) >= 0;
/** The first line of a journal: a journal of 0 bytes was emptied, not started. */
export const journalHeader = (gen: number) => `# almanac usage journal ${gen}\n`;

export class QuotaStore {
  private snap: Snapshot = { generation: 0, counts: {}, last_used: {} };
  private fd = -1;
  private written = 0;
  private lastByte = 10;
  private timer: NodeJS.Timeout | undefined;
  private dirty = false;
  private readonly compactBytes: number;
  private readonly log: (msg: string) => void;
  private compactRetryAt = 0;

  constructor(readonly dir: string, private opts: QuotaOptions = {}) {
    if (!opts.readOnly) mkdirSync(dir, { recursive: true });
    this.compactBytes = opts.compactBytes ?? 4 * 2 ** 20;
    this.log = opts.log ?? ((m) => console.error(m));
    this.load();
  }

  private journalPath = (gen: number) => path.join(this.dir, `usage.${gen}.journal`);
  private snapshotPath = () => path.join(this.dir, 'usage.snapshot.json');

  private readSnapshot(file: string): Snapshot {
    const bad = (why: string) => new StateError(
      `${file}: ${why}. Fix: restore it from a backup together with its journal, or move it aside to count from the journal alone (counts folded into it are then lost)`,
    );
    let s: any;
    try {
      s = JSON.parse(readFileSync(file, 'utf8'));
    } catch (err) {
      throw bad((err as NodeJS.ErrnoException).code ? `cannot be read (${(err as NodeJS.ErrnoException).code})` : 'is not valid JSON');
    }
    if (!s || typeof s !== 'object') throw bad('is not an object');
    if (!Number.isSafeInteger(s.generation) || s.generation < 0) throw bad('has no valid "generation"');
    if (!s.counts || typeof s.counts !== 'object') throw bad('has no "counts" object');
    for (const months of Object.values<any>(s.counts)) {
      if (!months || typeof months !== 'object') throw bad('has a key whose counts are not an object');
      for (const [m, n] of Object.entries(months)) if (!/^\d{4}-\d{2}$/.test(m) || !isCount(n)) throw bad(`has an invalid count for month '${m.slice(0, 10)}'`);
    }
    if (!s.last_used || typeof s.last_used !== 'object') throw bad('has no "last_used" object');
    for (const t of Object.values(s.last_used)) if (!isCount(t) || (t as number) > MAX_TS) throw bad('has a "last_used" time out of range');
    if (s.folded !== undefined && (!isCount(s.folded?.generation) || !isCount(s.folded?.bytes))) throw bad('has an invalid "folded" record');
    if (s.headers !== undefined && s.headers !== true) throw bad('has an invalid "headers" flag');
    return s as Snapshot;
  }

  /**
   * Snapshot, then every complete journal line after it. State that does not add up is
   * refused with a StateError naming the file and the fix (README "State integrity").
   */
  private load() {
    const snapFile = this.snapshotPath();
    const hasSnapshot = existsSync(snapFile);
    if (hasSnapshot) this.snap = this.readSnapshot(snapFile);
    const gen = this.snap.generation;
    const journals = existsSync(this.dir) ? readdirSync(this.dir).flatMap((f) => {
      const m = /^usage\.(\d+)\.journal$/.exec(f);
      return m ? [Number(m[1])] : [];
    }) : [];
    let foldedLeft = false;
    for (const g of journals) {
      if (g === gen) continue;
      const file = this.journalPath(g);
      if (g === gen + 1 && (statSync(file).size === 0 || readFileSync(file, 'utf8') === journalHeader(g))) {
        // A compaction that stopped before its snapshot was written.
        if (!this.opts.readOnly) rmSync(file, { force: true });
        continue;
      }
      if (g < gen && this.snap.folded?.generation === g && statSync(file).size === this.snap.folded.bytes) {
        // A crash between writing the snapshot and removing the journal it folded.
        foldedLeft = true;
        if (!this.opts.readOnly) rmSync(file, { force: true });
        continue;
      }
      throw new StateError(g < gen
        ? `${file} is older than ${snapFile} (generation ${gen}) and was not folded into it: the snapshot may be a restored backup. Fix: restore the journal usage.${gen}.journal that belongs with the snapshot, or move ${path.basename(file)} aside to accept the snapshot's counts`
        : `${file} is newer than ${snapFile} (generation ${gen}): the snapshot may be an older backup. Fix: restore the latest snapshot, or move ${path.basename(file)} aside to accept the snapshot's counts`);
    }
    const journal = this.journalPath(gen);
    if (!existsSync(journal)) {
      if (hasSnapshot && !foldedLeft) {
        throw new StateError(`${journal} is missing: the counts since ${snapFile} was written are gone. Fix: restore it from a backup, or create it empty to accept the snapshot's counts`);
      }
      return;
    }
    const buf = readFileSync(journal);
    const text = buf.toString('utf8');
    if (this.snap.headers && !text.startsWith(journalHeader(gen))) {
      throw new StateError(`${journal} ${buf.length === 0 ? 'is empty' : 'does not start with its header line'}: it was emptied or replaced, and the counts since ${snapFile} was written are gone. Fix: restore it from a backup, or write the line "${journalHeader(gen).trim()}" at its start to accept the snapshot's counts`);
    }
    const lines = text.split('\n');
    let torn = 0;
    const latest = Math.min(MAX_TS, Math.floor(Date.now() / 1000) + FUTURE_SLACK_S);
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i];
      if (!line || (i === 0 && this.snap.headers)) continue;
      const m = LINE.exec(line);
      const ts = m ? Number(m[3]) : NaN;
      // A line torn mid-timestamp still parses (and counted its request), so only a time
      // beyond any clock this server could have had is out of range.
      if (m && ts <= latest) {
        this.apply(m[1], m[2], ts);
        continue;
      }
      if (m) throw new StateError(`${journal} line ${i + 1}: timestamp ${m[3]} is out of range (later than ${new Date(latest * 1000).toISOString()}). Fix: restore the journal from a backup, or remove that line`);
      if (TORN.test(line)) {
        torn++;
        continue;
      }
      throw new StateError(`${journal} line ${i + 1} is not "<key id> <YYYY-MM> <unix seconds>": the journal is damaged. Fix: restore it from a backup, or cut it before that line (counts after it are lost)`);
    }
    if (torn) this.log(`${journal}: skipped ${torn} line(s) cut short by a crash`);
    this.written = buf.length;
    this.lastByte = buf.length ? buf[buf.length - 1] : 10;
  }

  private apply(key: string, month: string, ts: number) {
    const k = (this.snap.counts[key] ??= {});
    k[month] = (k[month] ?? 0) + 1;
    if (ts > (this.snap.last_used[key] ?? 0)) this.snap.last_used[key] = ts;
  }

  /** Opens the journal for appending and starts the fsync timer (the server calls this). */
  open() {
    if (this.opts.readOnly) throw new Error('quota store opened read-only');
    // The first open writes a snapshot, so that from then on a deleted journal is noticed.
    if (!existsSync(this.snapshotPath())) this.compact();
    this.fd = openSync(this.journalPath(this.snap.generation), 'a');
    // A crash mid-write can leave a line without its newline; end it so the next
    // line is not glued to it. (A fragment that still parses counted its request.)
    if (this.written > 0 && this.lastByte !== 10) {
      writeSync(this.fd, '\n');
      this.written += 1;
    }
    const every = this.opts.fsyncMs ?? 1000;
    // The periodic fsync runs on libuv's threadpool: fsyncSync here blocked the event loop
    // 1.2–1.6 ms every second (issue 14's profile).
    this.timer = setInterval(() => this.syncSoon(), every);
    this.timer.unref();
  }
  private syncing = false;
  /** fsync off the event loop; a failure leaves the journal dirty for the next tick. */
  private syncSoon() {
    if (this.fd < 0 || !this.dirty || this.syncing) return;
    this.dirty = false;
    this.syncing = true;
    fsync(this.fd, (err) => {
      this.syncing = false;
      if (err) this.dirty = true;
    });
  }
  /** fsync now, on this thread (before a compaction or close). */
  sync() {
    if (this.fd >= 0 && (this.dirty || this.syncing)) {
      fsyncSync(this.fd);
      this.dirty = false;
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
    if (this.fd < 0) throw new Error('quota store not open');
    const ts = Math.floor(nowMs / 1000);
    const line = `${key} ${month} ${ts}\n`;
    try {
      (this.opts.append ?? ((fd: number, l: string) => writeSync(fd, l)))(this.fd, line);
    } catch (err) {
      // Not written, so not counted: the caller answers 503 and the client may retry.
      throw new StateWriteError(`cannot append to ${this.journalPath(this.snap.generation)}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
    this.written += line.length;
    this.dirty = true;
    this.apply(key, month, ts);
    this.maybeCompact(nowMs);
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
    try {
      (this.opts.append ?? ((fd: number, l: string) => writeSync(fd, l)))(this.fd, text);
    } catch (err) {
      throw new StateWriteError(`cannot append to ${this.journalPath(this.snap.generation)}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
    this.written += text.length;
    this.dirty = true;
    for (const k of keys) this.apply(k, month, ts);
    this.maybeCompact(nowMs);
  }

  private maybeCompact(nowMs: number) {
    if (this.written < this.compactBytes || nowMs < this.compactRetryAt || this.preSyncing) return;
    // The compaction fsyncs the journal it folds, on this thread. Most of that journal is
    // fsync'd on the threadpool first, so the compaction's own fsync covers only what came
    // in meanwhile: 5.5–7 ms on the event loop per compaction before, every ~4 MiB of
    // journal (every ~2.5 s at 45,000 requests a second; issue 14).
    this.preSyncing = true;
    const fd = this.fd;
    fsync(fd, () => {
      this.preSyncing = false;
      if (this.fd !== fd) return; // closed (or compacted) meanwhile
      try {
        this.compact();
      } catch (err) {
        // The count is already in the journal; folding can wait. Retry in a minute.
        this.compactRetryAt = Date.now() + 60_000;
        this.log(`compaction failed, the journal keeps growing and is retried in 60 s: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
      }
    });
  }
  private preSyncing = false;

  compact() {
    const old = this.snap.generation;
    this.sync();
    const next: Snapshot = { ...this.snap, generation: old + 1, folded: { generation: old, bytes: this.written }, headers: true };
    // New journal first (its header only), then the snapshot naming it, then the old journal
    // goes: load() recognises what a crash between any two of these steps leaves behind.
    const header = journalHeader(next.generation);
    const fd = openSync(this.journalPath(next.generation), 'w');
    try {
      writeSync(fd, header);
      fsyncSync(fd);
      writeFileDurable(this.snapshotPath(), JSON.stringify(next));
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
    this.lastByte = 10;
  }

  close() {
    clearInterval(this.timer);
    if (this.fd >= 0) {
      this.sync();
      closeSync(this.fd);
      this.fd = -1;
    }
  }
}
