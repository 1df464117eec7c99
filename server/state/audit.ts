/**
 * The audit log: `audit.log` beside keys.json, one JSON line per event (who, what, when,
 * the ids involved; never a secret). Appended with one write(2) and an fsync under
 * keys.lock, after keys.json is replaced. A crash between the two leaves the document's
 * `rev` ahead of the log's last line: the next writer appends the document's
 * `last_events` first (keys.ts), so no transition goes unlogged. A line cut short by a
 * crash is skipped when read and reported.
 */
import { closeSync, existsSync, fstatSync, fsyncSync, openSync, readFileSync, readSync, writeSync } from 'node:fs';
import type { AuditEvent } from './accounts.ts';

/** Appends events durably as one write; starts a fresh line if a crash left the last one torn. */
export function appendAudit(file: string, events: AuditEvent[]) {
  if (!events.length) return;
  const fd = openSync(file, 'a+');
  try {
    const size = fstatSync(fd).size;
    let sep = '';
    if (size > 0) {
      const last = Buffer.alloc(1);
      readSync(fd, last, 0, 1, size - 1);
      if (last[0] !== 10) sep = '\n';
    }
    writeSync(fd, sep + events.map((e) => JSON.stringify(e)).join('\n') + '\n');
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** The rev of the last whole event in the log (0 when there is none). */
export function lastAuditRev(file: string): number {
  if (!existsSync(file)) return 0;
  const fd = openSync(file, 'r');
  try {
    const size = fstatSync(fd).size;
    const len = Math.min(size, 64 * 1024);
    const buf = Buffer.alloc(len);
    readSync(fd, buf, 0, len, size - len);
    const lines = buf.toString('utf8').split('\n');
    for (let i = lines.length - 1; i >= 0; i--) {
      try {
        const rev = JSON.parse(lines[i]).rev;
        if (Number.isSafeInteger(rev)) return rev;
      } catch {
        // torn or partial (the 64 KiB window may start mid-line): look further back
      }
    }
    return 0;
  } finally {
    closeSync(fd);
  }
}

/** Every whole event, oldest first, and how many torn lines were skipped. */
export function readAudit(file: string): { events: AuditEvent[]; skipped: number } {
  if (!existsSync(file)) return { events: [], skipped: 0 };
  const events: AuditEvent[] = [];
  let skipped = 0;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line) continue;
    try {
      events.push(JSON.parse(line));
    } catch {
      skipped++;
    }
  }
  return { events, skipped };
}
