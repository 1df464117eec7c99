/**
 * Requests served elsewhere (issue 39, item 4): when the Node server and the edge serve
 * the keys of one state folder, each counts what it serves, and one key has ONE monthly
 * quota — the sum (docs/edge.md "One quota, two servers"). The edge's counts are pulled
 * into this file of the state folder (by `npm run edge` every few seconds, or
 * `npm run edge:sync -- --pull`):
 *
 *   <state folder>/edge/usage.json   {"month":"2026-11","at":<unix ms>,"meters":{"<meter>":{"used":n,"last_used":s}}}
 *
 * `npm run keys -- usage` shows them beside the Node server's, and the Node server adds
 * them to its own when it checks the month (withElsewhere); the edge's meters add the
 * Node server's count the same way (edge/meter.ts). Each side's own count stays exact;
 * the other's is as of the last sync, so the sum can pass the quota by at most what the
 * other side served since.
 */
import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { writeFileDurable } from './atomic.ts';
import type { Counts } from './limits.ts';

export const EDGE_USAGE_FILE = path.join('edge', 'usage.json');

export interface ElsewhereFile {
  month: string;
  /** When it was pulled (unix ms). */
  at: number;
  meters: Record<string, { used: number; last_used: number | null }>;
}

export function readElsewhere(stateDir: string): ElsewhereFile | undefined {
  const file = path.join(stateDir, EDGE_USAGE_FILE);
  if (!existsSync(file)) return undefined;
  try {
    const v = JSON.parse(readFileSync(file, 'utf8')) as ElsewhereFile;
    return v && typeof v.meters === 'object' && /^\d{4}-\d{2}$/.test(v.month) ? v : undefined;
  } catch {
    return undefined; // a file being replaced is read again next time
  }
}

export function writeElsewhere(stateDir: string, f: ElsewhereFile) {
  mkdirSync(path.join(stateDir, 'edge'), { recursive: true });
  writeFileDurable(path.join(stateDir, EDGE_USAGE_FILE), JSON.stringify(f));
}

/**
 * `own` plus the edge's counts of the same month, re-read when the file changes (a stat
 * at most once a second: per request this is a clock read and a map lookup).
 */
export function withElsewhere(own: Counts, stateDir: string): Counts {
  const file = path.join(stateDir, EDGE_USAGE_FILE);
  let checked = 0;
  let stamp = '';
  let theirs: ElsewhereFile | undefined;
  const current = () => {
    const now = Date.now();
    if (now - checked >= 1000) {
      checked = now;
      let s = '';
      try {
        const st = statSync(file);
        s = `${st.ino}:${st.mtimeMs}:${st.size}`;
      } catch {
        // no file: nothing served elsewhere
      }
      if (s !== stamp) {
        stamp = s;
        theirs = s ? readElsewhere(stateDir) : undefined;
      }
    }
    return theirs;
  };
  return {
    usedIn: (id, month) => {
      const t = current();
      return own.usedIn(id, month) + (t && t.month === month ? t.meters[id]?.used ?? 0 : 0);
    },
    lastUsed: (id) => own.lastUsed(id),
    countMany: (ids, now, month) => own.countMany(ids, now, month),
  };
}
