/**
 * Reading the usage counters back (quota.ts writes them): the snapshot, the checkpoint
 * (journal-mark.ts) and every complete line of the journal after it. State that does not
 * add up is refused with a StateError naming the file, what is wrong and the fix
 * (docs/operations.md, "State integrity"); the two things a crash can leave are repaired
 * by rule: a journal a finished compaction folded is removed, and a torn last line (a write
 * that never completed, so its request was never answered) is dropped.
 */
import { createHash, type Hash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { MARK_FILE, readMark, type Mark } from './journal-mark.ts';

export interface Snapshot {
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

/** State the server cannot trust; the message names the file, what is wrong and the fix. */
export class StateError extends Error {}

/** What load() found: the counts, and where appending goes on. */
export interface Loaded {
  snap: Snapshot;
  /** Bytes of the journal up to the end of its last complete line (what a writer keeps). */
  written: number;
  /** Bytes of a torn last line after that (a writer cuts them off before appending). */
  tornTail: number;
  /** Counts in the journal (lines after its header). */
  lines: number;
  /** sha256 over the journal's first `written` bytes, to be continued by the writer. */
  hash: Hash;
  /**
   * A compaction that switched to its new journal but whose snapshot is not on disk: the
   * snapshot to write (JSON) and the old journal's generation, which it folds. `snap` then
   * counts both journals, and appending goes on in the new one.
   */
  fold?: { content: string; oldGen: number };
}

/** Largest timestamp a journal may hold: 9999-12-31T23:59:59Z. */
const MAX_TS = 253_402_300_799;
/** A clock may be set ahead; a year ahead of this one is not a clock, it is damage. */
const FUTURE_SLACK_S = 366 * 86_400;
const LINE = /^(\S{1,80}) (\d{4}-\d{2}) (\d{1,20})$/;
/** A write cut short: a prefix of a well-formed line. */
const TORN = /^[\w-]{0,80}( [\d-]{0,7}( \d{0,12})?)?$/;
const isCount = (v: unknown) => Number.isSafeInteger(v) && (v as number) >= 0;
/** The first line of a journal: a journal of 0 bytes was emptied, not started. */
export const journalHeader = (gen: number) => `# almanac usage journal ${gen}\n`;
export const journalPath = (dir: string, gen: number) => path.join(dir, `usage.${gen}.journal`);
export const snapshotPath = (dir: string) => path.join(dir, 'usage.snapshot.json');

export function apply(snap: Snapshot, key: string, month: string, ts: number) {
  const k = (snap.counts[key] ??= {});
  k[month] = (k[month] ?? 0) + 1;
  if (ts > (snap.last_used[key] ?? 0)) snap.last_used[key] = ts;
}

function readSnapshot(file: string): Snapshot {
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
 * Journals of other generations: a compaction's leftovers are removed (unless read-only), a
 * compaction's new journal whose snapshot was not written yet is read after the snapshot's
 * own (`next`), anything else refused.
 */
function otherJournals(dir: string, snap: Snapshot, snapFile: string, readOnly: boolean): { foldedLeft: boolean; next?: number } {
  const gen = snap.generation;
  let foldedLeft = false;
  let next: number | undefined;
  const gens = existsSync(dir) ? readdirSync(dir).flatMap((f) => {
    const m = /^usage\.(\d+)\.journal$/.exec(f);
    return m ? [Number(m[1])] : [];
  }) : [];
  for (const g of gens) {
    if (g === gen) continue;
    const file = journalPath(dir, g);
    if (g === gen + 1 && (statSync(file).size === 0 || readFileSync(file, 'utf8') === journalHeader(g))) {
      // A compaction that stopped before its snapshot was written.
      if (!readOnly) rmSync(file, { force: true });
      continue;
    }
    if (g === gen + 1 && readFileSync(file).subarray(0, journalHeader(g).length).toString('latin1') === journalHeader(g)) {
      // A compaction whose snapshot was not written yet, or could not be (quota.ts fold()):
      // its journal took every count after the switch, and the old journal none.
      next = g;
      continue;
    }
    if (g < gen && snap.folded?.generation === g && statSync(file).size === snap.folded.bytes) {
      // A crash between writing the snapshot and removing the journal it folded.
      foldedLeft = true;
      if (!readOnly) rmSync(file, { force: true });
      continue;
    }
    throw new StateError(g < gen
      ? `${file} is older than ${snapFile} (generation ${gen}) and was not folded into it: the snapshot may be a restored backup. Fix: restore the journal usage.${gen}.journal that belongs with the snapshot, or move ${path.basename(file)} aside to accept the snapshot's counts`
      : `${file} is newer than ${snapFile} (generation ${gen}): the snapshot may be an older backup. Fix: restore the latest snapshot, or move ${path.basename(file)} aside to accept the snapshot's counts`);
  }
  return { foldedLeft, next };
}

/** The checkpoint that applies to the journal of `gen`, or undefined (none yet, or an older generation's). */
function markFor(dir: string, gen: number, readOnly: boolean): Mark | undefined {
  const file = path.join(dir, MARK_FILE);
  const m = readMark(file);
  if (m === 'damaged') throw new StateError(`${file} holds no valid checkpoint (both of its slots are damaged). Fix: restore it from a backup, or remove it to accept the journal as it is`);
  if (!m || m.generation < gen) return undefined; // a compaction stopped before its new mark
  if (m.generation > gen) {
    // A reader beside a running server can see a compaction's new mark after reading the old snapshot.
    if (readOnly) return undefined;
    throw new StateError(`${file} is of journal generation ${m.generation}, newer than ${snapshotPath(dir)} (generation ${gen}): the snapshot and journal may be an older backup. Fix: restore the latest snapshot and journal, or remove ${file} to accept these`);
  }
  return m;
}

/**
 * Snapshot, checkpoint, then every complete journal line. The checkpoint is read before the
 * journal: a journal only grows, so a reader beside a running server never sees a checkpoint
 * ahead of what it read.
 */
export function load(dir: string, readOnly: boolean, log: (m: string) => void, now = Date.now()): Loaded {
  const snapFile = snapshotPath(dir);
  const hasSnapshot = existsSync(snapFile);
  const snap: Snapshot = hasSnapshot ? readSnapshot(snapFile) : { generation: 0, counts: {}, last_used: {} };
  const gen = snap.generation;
  const { foldedLeft, next } = otherJournals(dir, snap, snapFile, readOnly);
  const mark = markFor(dir, gen, readOnly);
  const journal = journalPath(dir, gen);
  if (!existsSync(journal)) {
    if (hasSnapshot && !foldedLeft) {
      const create = snap.headers ? `create it holding only the line "${journalHeader(gen).trim()}" and remove ${path.join(dir, MARK_FILE)}` : 'create it empty';
      throw new StateError(`${journal} is missing: the counts since ${snapFile} was written are gone. Fix: restore it from a backup, or ${create} to accept the snapshot's counts`);
    }
    return { snap, written: 0, tornTail: 0, lines: 0, hash: createHash('sha256') };
  }
  const own = readJournal(journal, snap, !!snap.headers, snapFile, mark, log, now);
  if (next === undefined) return own;
  // The snapshot the unfinished compaction was writing: this one and the old journal, whole.
  const content = JSON.stringify({ ...snap, generation: next, folded: { generation: gen, bytes: own.written + own.tornTail }, headers: true });
  const after = readJournal(journalPath(dir, next), snap, true, snapFile, undefined, log, now);
  snap.generation = next;
  snap.headers = true;
  return { ...after, fold: { content, oldGen: gen } };
}

/** Every complete line of one journal applied to `snap`, checked against its checkpoint when it has one. */
function readJournal(journal: string, snap: Snapshot, headers: boolean, snapFile: string, mark: Mark | undefined, log: (m: string) => void, now: number): Loaded {
  const buf = readFileSync(journal);
  const text = buf.toString('utf8');
  const gen = Number(/usage\.(\d+)\.journal$/.exec(journal)![1]);
  if (headers && !text.startsWith(journalHeader(gen))) {
    throw new StateError(`${journal} ${buf.length === 0 ? 'is empty' : 'does not start with its header line'}: it was emptied or replaced, and the counts since ${snapFile} was written are gone. Fix: restore it from a backup, or write the line "${journalHeader(gen).trim()}" at its start and remove ${path.join(path.dirname(journal), MARK_FILE)} to accept the snapshot's counts`);
  }
  const lines = text.split('\n');
  // The text after the last newline is a write that never completed: dropped, never counted.
  const tail = lines.pop()!;
  const written = buf.length - Buffer.byteLength(tail);
  let torn = 0, counted = 0;
  const latest = Math.min(MAX_TS, Math.floor(now / 1000) + FUTURE_SLACK_S);
  const damaged = (i: number) => new StateError(`${journal} line ${i + 1} is not "<key id> <YYYY-MM> <unix seconds>": the journal is damaged. Fix: restore it from a backup, or cut it before that line (counts after it are lost)`);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (!line || (i === 0 && headers)) continue;
    const m = LINE.exec(line);
    const ts = m ? Number(m[3]) : NaN;
    if (m && ts <= latest) {
      apply(snap, m[1], m[2], ts);
      counted++;
      continue;
    }
    if (m) throw new StateError(`${journal} line ${i + 1}: timestamp ${m[3]} is out of range (later than ${new Date(latest * 1000).toISOString()}). Fix: restore the journal from a backup, or remove that line`);
    // Journals of versions before issue 38 may hold a torn line followed by a newline.
    if (!TORN.test(line)) throw damaged(i);
    torn++;
  }
  if (tail && !TORN.test(tail)) throw damaged(lines.length);
  if (torn) log(`${journal}: skipped ${torn} line(s) cut short by a crash`);
  const hash = createHash('sha256');
  if (mark) {
    const whole = written >= mark.bytes && (hash.update(buf.subarray(0, mark.bytes)), hash.copy().digest('hex') === mark.sha256);
    if (!whole) {
      throw new StateError(`${journal} holds ${counted} counts (${written} bytes) but ${MARK_FILE} recorded ${mark.lines} counts (${mark.bytes} bytes) when the journal was last fsync'd: the journal was cut or replaced, and the counts cut from it are lost. Fix: restore it from a backup; or, to accept the journal as it is, remove ${path.join(path.dirname(journal), MARK_FILE)}`);
    }
    hash.update(buf.subarray(mark.bytes, written));
  } else hash.update(buf.subarray(0, written));
  return { snap, written, tornTail: buf.length - written, lines: counted, hash };
}
