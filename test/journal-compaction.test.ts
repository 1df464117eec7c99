/**
 * Issue 41, item 3: the usage journal's compaction does no blocking fsync on the event loop
 * (it called fsyncSync three to four times per compaction, on the thread that answers
 * requests), and keeps every count through the window where appending has switched to the
 * new journal but the snapshot naming it is not on disk yet: a crash there, or a snapshot
 * that cannot be written, loses nothing, and the next start finishes the compaction.
 *
 * node:fs is wrapped in this file only, to count the blocking fsyncs the store makes.
 */
import * as fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { QuotaStore } from '../server/state/quota.ts';
import { quiet } from './helpers.ts';
import { tempDirs } from './temp.ts';

const blocking = vi.hoisted(() => ({ fsyncs: 0 }));
vi.mock('node:fs', async (original) => {
  const real = await original<typeof import('node:fs')>();
  const fsyncSync = (fd: number) => {
    blocking.fsyncs++;
    return real.fsyncSync(fd);
  };
  return { ...real, fsyncSync, default: { ...real, fsyncSync } };
});

const dir = tempDirs('almanac-compaction-');
const journals = (d: string) => fs.readdirSync(d).filter((f) => f.endsWith('.journal')).sort();
const until = async (done: () => boolean) => {
  for (let t = 0; t < 500 && !done(); t++) await new Promise((r) => setTimeout(r, 10));
  expect(done()).toBe(true);
};

describe('compaction off the event loop (issue 41, item 3)', () => {
  it('counting past compactBytes switches journals and writes the snapshot with no blocking fsync on this thread', async () => {
    const d = dir();
    const q = new QuotaStore(d, { log: quiet, compactBytes: 300, fsyncMs: 60_000 });
    q.open();
    const first = journals(d);
    blocking.fsyncs = 0;
    const generation = () => JSON.parse(fs.readFileSync(path.join(d, 'usage.snapshot.json'), 'utf8')).generation;
    const before = generation();
    for (let i = 0; i < 40; i++) q.count('key_aaaaaaaaaaaa');
    await until(() => generation() > before && journals(d).length === 1);
    expect(blocking.fsyncs).toBe(0); // was 4 per compaction: the journal, the new journal, the snapshot, the checkpoint
    expect(journals(d)).not.toEqual(first);
    expect(generation()).toBe(Number(/usage\.(\d+)\./.exec(journals(d)[0])![1]));
    expect(new QuotaStore(d, { readOnly: true }).used('key_aaaaaaaaaaaa')).toBe(40);
    q.close();
    expect(new QuotaStore(d, { log: quiet }).used('key_aaaaaaaaaaaa')).toBe(40);
  });

  it('a snapshot that cannot be written: both journals keep every count, a reader counts them, and the next start finishes the compaction', async () => {
    const d = dir();
    const logs: string[] = [];
    const q = new QuotaStore(d, { log: (m) => logs.push(m), compactBytes: 300, fsyncMs: 60_000 });
    q.open();
    // The snapshot's temp file cannot be created: a folder stands in its place.
    const tmp = path.join(d, `usage.snapshot.json.tmp-${process.pid}`);
    fs.mkdirSync(tmp);
    for (let i = 0; i < 40; i++) q.count('key_bbbbbbbbbbbb');
    expect(journals(d)).toHaveLength(2); // switched at once; the old one stays until a snapshot folds it
    await until(() => logs.some((l) => l.includes('compaction failed')));
    for (let i = 0; i < 5; i++) q.count('key_bbbbbbbbbbbb'); // into the new journal
    expect(journals(d)).toHaveLength(2);
    expect(new QuotaStore(d, { readOnly: true }).used('key_bbbbbbbbbbbb')).toBe(45);
    // A crash here (no close): the state on disk is the old snapshot and both journals.
    fs.rmSync(tmp, { recursive: true });
    const again = new QuotaStore(d, { log: quiet, compactBytes: 1 << 30 });
    expect(again.used('key_bbbbbbbbbbbb')).toBe(45);
    again.open(); // finishes the compaction: the snapshot names the new journal, the old one is removed
    expect(journals(d)).toHaveLength(1);
    again.count('key_bbbbbbbbbbbb');
    again.close();
    expect(new QuotaStore(d, { log: quiet }).used('key_bbbbbbbbbbbb')).toBe(46);
    q.close();
  });

  it('stopped while the snapshot is being written: nothing is lost whichever way the write ends', async () => {
    const d = dir();
    const q = new QuotaStore(d, { log: quiet, compactBytes: 300, fsyncMs: 60_000 });
    q.open();
    for (let i = 0; i < 40; i++) q.count('key_cccccccccccc');
    q.close(); // the snapshot's write is still on the thread pool
    expect(new QuotaStore(d, { readOnly: true }).used('key_cccccccccccc')).toBe(40);
    await new Promise((r) => setTimeout(r, 200));
    const after = new QuotaStore(d, { log: quiet });
    expect(after.used('key_cccccccccccc')).toBe(40);
    after.open();
    after.count('key_cccccccccccc');
    after.close();
    expect(journals(d)).toHaveLength(1);
    expect(new QuotaStore(d, { log: quiet }).used('key_cccccccccccc')).toBe(41);
  });
});
