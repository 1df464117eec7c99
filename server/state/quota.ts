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
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';
import { writeFileDurable } from './atomic.ts';
import { monthOf } from './plans.ts';

interface Snapshot {
  generation: number;
  counts: Record<string, Record<string, number>>;
  last_used: Record<string, number>;
}

export interface QuotaOptions {
  fsyncMs?: number;
  compactBytes?: number;
}

export class QuotaStore {
  private snap: Snapshot = { generation: 0, counts: {}, last_used: {} };
  private fd = -1;
  private written = 0;
  private lastByte = 10;
  private timer: NodeJS.Timeout | undefined;
  private dirty = false;
  private readonly compactBytes: number;

  constructor(readonly dir: string, private opts: QuotaOptions = {}) {
    mkdirSync(dir, { recursive: true });
    this.compactBytes = opts.compactBytes ?? 4 * 2 ** 20;
    this.load();
  }

  private journalPath = (gen: number) => path.join(this.dir, `usage.${gen}.journal`);
  private snapshotPath = () => path.join(this.dir, 'usage.snapshot.json');

  /** Snapshot, then every complete journal line after it. A torn last line is ignored. */
  private load() {
    if (existsSync(this.snapshotPath())) this.snap = JSON.parse(readFileSync(this.snapshotPath(), 'utf8'));
    // Journals older than the snapshot were folded into it before a crash could remove them.
    for (const f of readdirSync(this.dir)) {
      const m = /^usage\.(\d+)\.journal$/.exec(f);
      if (m && Number(m[1]) < this.snap.generation) rmSync(path.join(this.dir, f), { force: true });
    }
    const journal = this.journalPath(this.snap.generation);
    if (existsSync(journal)) {
      const text = readFileSync(journal, 'utf8');
      for (const line of text.split('\n')) {
        const [key, month, ts] = line.split(' ');
        if (!key || !/^\d{4}-\d{2}$/.test(month ?? '') || !/^\d+$/.test(ts ?? '')) continue;
        this.apply(key, month, Number(ts));
      }
      this.written = Buffer.byteLength(text);
      this.lastByte = text.charCodeAt(text.length - 1);
    }
  }

  private apply(key: string, month: string, ts: number) {
    const k = (this.snap.counts[key] ??= {});
    k[month] = (k[month] ?? 0) + 1;
    if (ts > (this.snap.last_used[key] ?? 0)) this.snap.last_used[key] = ts;
  }

  /** Opens the journal for appending and starts the fsync timer (the server calls this). */
  open() {
    this.fd = openSync(this.journalPath(this.snap.generation), 'a');
    // A crash mid-write can leave a line without its newline; end it so the next
    // line is not glued to it. (A fragment that still parses counted its request.)
    if (this.written > 0 && this.lastByte !== 10) writeSync(this.fd, '\n');
    const every = this.opts.fsyncMs ?? 1000;
    this.timer = setInterval(() => this.sync(), every);
    this.timer.unref();
  }

  sync() {
    if (this.fd >= 0 && this.dirty) {
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
    writeSync(this.fd, line);
    this.written += line.length;
    this.dirty = true;
    this.apply(key, month, ts);
    if (this.written >= this.compactBytes) this.compact();
    return this.snap.counts[key][month];
  }

  compact() {
    const old = this.snap.generation;
    this.sync();
    const next: Snapshot = { ...this.snap, generation: old + 1 };
    writeFileDurable(this.snapshotPath(), JSON.stringify(next));
    this.snap = next;
    if (this.fd >= 0) {
      closeSync(this.fd);
      this.fd = openSync(this.journalPath(next.generation), 'a');
    }
    rmSync(this.journalPath(old), { force: true });
    this.written = 0;
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
