/**
 * The usage journal's checkpoint, `usage.mark` (issue 38, item 2): how far the journal had
 * been fsync'd — its generation, length, number of counts and the sha256 of those bytes.
 * A journal cut at a line boundary is still a well-formed journal, only shorter (100 counts
 * cut down to its header line read as 0); nothing inside a journal can tell that lines are
 * missing from its end, so the checkpoint lives beside it and the loader compares them
 * (quota-load.ts).
 *
 * The file is two fixed 256-byte slots written in turn, each with its own check, and
 * overwritten in place:
 * - an update needs no new disk blocks, so it works on a full disk;
 * - a write torn by a crash spoils one slot, and the other still holds the previous mark;
 * - a reader beside a running server (the keys CLI) never trusts a half-written slot.
 * A mark only claims bytes that were fsync'd before it was written, so it never claims
 * more than a crash can leave behind. Writes after the last mark (at most the last fsync
 * interval, one second) are not covered, as an OS crash may lose them anyway.
 */
import { createHash } from 'node:crypto';
import { closeSync, existsSync, fsync, fsyncSync, openSync, readFileSync, write, writeSync } from 'node:fs';
import { writeFileDurable } from './atomic.ts';

export interface Mark {
  generation: number;
  /** Length of the journal, in bytes, when it was fsync'd. */
  bytes: number;
  /** Counts (lines after the header) in those bytes. */
  lines: number;
  /** sha256 (hex) of those bytes. */
  sha256: string;
}
interface Slot extends Mark { seq: number }

export const MARK_FILE = 'usage.mark';
const SLOT = 256;
const SLOT_RE = /^almanac usage mark 1 seq=(\d{1,15}) gen=(\d{1,15}) bytes=(\d{1,15}) lines=(\d{1,15}) sha256=([0-9a-f]{64}) check=([0-9a-f]{16}) *\n$/;
const checkOf = (body: string) => createHash('sha256').update(body).digest('hex').slice(0, 16);

function encode(m: Slot): Buffer {
  const body = `almanac usage mark 1 seq=${m.seq} gen=${m.generation} bytes=${m.bytes} lines=${m.lines} sha256=${m.sha256}`;
  const b = Buffer.alloc(SLOT, 0x20);
  b.write(`${body} check=${checkOf(body)}`, 'latin1');
  b[SLOT - 1] = 10;
  return b;
}

function decode(b: Buffer): Slot | undefined {
  const m = SLOT_RE.exec(b.toString('latin1'));
  if (!m) return undefined;
  const body = b.toString('latin1', 0, b.indexOf(' check='));
  if (checkOf(body) !== m[6]) return undefined;
  return { seq: Number(m[1]), generation: Number(m[2]), bytes: Number(m[3]), lines: Number(m[4]), sha256: m[5] };
}

/**
 * The latest good slot of a mark file: undefined when there is no file, 'damaged' when
 * neither slot is good (which no crash can cause: the file is created whole).
 */
export function readMark(file: string): Slot | 'damaged' | undefined {
  if (!existsSync(file)) return undefined;
  const buf = readFileSync(file);
  const slots = [0, 1].flatMap((i) => {
    const s = buf.length >= (i + 1) * SLOT ? decode(buf.subarray(i * SLOT, (i + 1) * SLOT)) : undefined;
    return s ? [s] : [];
  });
  if (!slots.length) return 'damaged';
  return slots.reduce((a, b) => (b.seq > a.seq ? b : a));
}

/** The writer: the server's QuotaStore (never the read-only CLI). */
export class MarkFile {
  private fd = -1;
  private seq = 0;
  private busy = false;
  private closing = false;

  constructor(readonly file: string, private readonly log: (m: string) => void) {}

  /** Writes `m` now and fsyncs it (start, compaction, close). Creates the file whole when missing. */
  writeSync(m: Mark) {
    if (this.fd < 0) this.openWith(m);
    const s = { ...m, seq: ++this.seq };
    writeSync(this.fd, encode(s), 0, SLOT, (s.seq % 2) * SLOT);
    fsyncSync(this.fd);
  }

  /**
   * Writes `m` on the thread pool (after the periodic fsync of the journal). One at a time:
   * a mark still being written when the next is due is skipped (false), and the caller asks again.
   * A failure is logged: the checkpoint lags, which costs no count.
   */
  writeSoon(m: Mark): boolean {
    if (this.fd < 0 || this.busy) return false;
    this.busy = true;
    const s = { ...m, seq: ++this.seq };
    const fd = this.fd;
    write(fd, encode(s), 0, SLOT, (s.seq % 2) * SLOT, (err) => {
      if (err) {
        this.log(`cannot update ${this.file}: ${err.code ?? err.message}`);
        return this.idle();
      }
      fsync(fd, () => this.idle());
    });
    return true;
  }

  /** Closes the file, after a write on the thread pool is done (its descriptor must not be reused meanwhile). */
  close() {
    if (this.busy) this.closing = true;
    else if (this.fd >= 0) {
      closeSync(this.fd);
      this.fd = -1;
    }
  }

  private idle() {
    this.busy = false;
    if (this.closing) {
      this.closing = false;
      this.close();
    }
  }

  private openWith(m: Mark) {
    const last = readMark(this.file);
    if (last === undefined || last === 'damaged') {
      // Both slots good from the start: a crash mid-update then always leaves one.
      writeFileDurable(this.file, Buffer.concat([encode({ ...m, seq: 2 }), encode({ ...m, seq: 1 })]));
      this.seq = 2;
    } else this.seq = last.seq;
    this.fd = openSync(this.file, 'r+');
  }
}
