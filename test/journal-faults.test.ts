/**
 * Issue 38 items 1 and 2: the usage journal under a full disk, a short write, a torn last
 * line and a cut at a line boundary. A write that does not complete answers 503
 * state_unavailable, is not billed and leaves the journal whole; a torn last line is
 * repaired at start without losing the lines before it; a journal cut at a line boundary
 * is refused like an emptied one (the checkpoint `usage.mark` records how far it was fsync'd).
 *
 * The full disk is real where the test may mount a 2 MiB tmpfs (root); the injected short
 * write (a write wrapper told to write half, then fail) runs everywhere.
 */
import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync, writeSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { createApp, type App } from '../server/node/server.ts';
import { monthOf } from '../server/state/plans.ts';
import { QuotaStore, StateError, type JournalIo } from '../server/state/quota.ts';
import { quiet } from './helpers.ts';
import { tempDirs } from './temp.ts';

const dir = tempDirs('almanac-journal-');
const journalOf = (d: string) => path.join(d, readdirSync(d).find((f) => f.endsWith('.journal'))!);
const lineOk = /^(# almanac usage journal \d+|key_[0-9a-f]{12} \d{4}-\d{2} \d{10})$/;

/** Whether this process may mount a tmpfs (root in a sandbox that allows it). */
function canMount(): string | undefined {
  if (process.platform !== 'linux') return 'not Linux';
  const probe = dir();
  const m = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', probe], { encoding: 'utf8' });
  if (m.status !== 0) return (m.stderr || m.error?.message || 'mount refused').trim().split('\n')[0];
  spawnSync('umount', [probe]);
  return undefined;
}
const noMount = canMount();

async function listen(app: App) {
  await new Promise<void>((r) => app.server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
}

/** Fills the filesystem of `d` until it refuses (ENOSPC), in 4 KiB pages. */
function fill(d: string) {
  const r = spawnSync('dd', ['if=/dev/zero', `of=${path.join(d, 'filler')}`, 'bs=4096'], { encoding: 'utf8' });
  expect(r.stderr).toMatch(/No space left on device/);
}

describe('item 1: a write the disk cuts short', () => {
  it.skipIf(!!noMount)(`on a full 2 MiB tmpfs: the cut line answers 503 state_unavailable, is not billed, and after the space returns and a restart the counts equal the answers${noMount ? ` (skipped: cannot mount a tmpfs here: ${noMount})` : ''}`, async () => {
    const mnt = dir();
    expect(spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=2m', 'tmpfs', mnt]).status).toBe(0);
    try {
      const state = path.join(mnt, 'state');
      mkdirSync(state);
      let app = createApp({ dist: inject('sharedDist'), stateDir: state, log: quiet });
      let base = await listen(app);
      const key = app.keys.create('development', 'disk full').secret;
      const meter = app.keys.verify(key)!.id;
      const get = () => fetch(`${base}/apis/elements/Fe`, { headers: { 'x-service-key': key } });
      let served = 0;
      for (let i = 0; i < 3; i++) if ((await get()).status === 200) served++;
      // Counts to leave the journal's last page with less room than one line.
      const journal = journalOf(state);
      const line = `${meter} ${monthOf(Date.now())} ${Math.floor(Date.now() / 1000)}\n`.length;
      while (4096 - (statSync(journal).size % 4096) >= line) {
        app.quota.count(meter);
        served++;
      }
      const room = 4096 - (statSync(journal).size % 4096);
      expect(room).toBeGreaterThan(0);
      fill(state);
      const refused = await get();
      expect(refused.status).toBe(503);
      expect((await refused.json()).error.code).toBe('state_unavailable');
      // Nothing of the refused line stays in the journal, and it was not counted.
      expect(readFileSync(journal, 'utf8').endsWith('\n')).toBe(true);
      expect(app.quota.used(meter)).toBe(served);
      rmSync(path.join(state, 'filler'));
      for (let i = 0; i < 5; i++) {
        expect((await get()).status).toBe(200);
        served++;
      }
      await app.close();
      for (const l of readFileSync(journal, 'utf8').split('\n').slice(0, -1)) expect(l).toMatch(lineOk);
      app = createApp({ dist: inject('sharedDist'), stateDir: state, log: quiet });
      base = await listen(app);
      try {
        expect(app.quota.used(meter)).toBe(served);
      } finally {
        await app.close();
      }
    } finally {
      spawnSync('umount', ['-l', mnt]);
    }
  });

  it('an injected short write (half a line, then ENOSPC) answers 503, is not counted, and leaves the journal whole', async () => {
    const d = dir();
    let mode: 'ok' | 'half' | 'half-then-zero' = 'ok';
    const io: JournalIo = {
      write: (fd, buf, off, len) => {
        if (mode === 'ok') return writeSync(fd, buf, off, len);
        if (mode === 'half') {
          mode = 'ok-but-full' as typeof mode;
          return writeSync(fd, buf, off, Math.ceil(len / 2));
        }
        if (mode === 'half-then-zero') {
          mode = 'zero' as typeof mode;
          return writeSync(fd, buf, off, Math.ceil(len / 2));
        }
        if ((mode as string) === 'zero') return 0;
        throw Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
      },
    };
    const app = createApp({ dist: inject('sharedDist'), stateDir: d, log: quiet, quota: { io } });
    const base = await listen(app);
    try {
      const { secret, record } = app.keys.create('basic');
      const get = () => fetch(`${base}/apis/elements/H`, { headers: { 'x-service-key': secret } });
      expect((await get()).status).toBe(200);
      for (const m of ['half', 'half-then-zero'] as const) {
        mode = m;
        const r = await get();
        expect(r.status, m).toBe(503);
        expect((await r.json()).error.code).toBe('state_unavailable');
        mode = 'ok';
        expect(readFileSync(journalOf(d), 'utf8').endsWith('\n'), m).toBe(true);
      }
      expect((await get()).status).toBe(200);
      expect(app.quota.used(record.id)).toBe(2);
      await app.close();
      for (const l of readFileSync(journalOf(d), 'utf8').split('\n').slice(0, -1)) expect(l).toMatch(lineOk);
      expect(new QuotaStore(d, { log: quiet }).used(record.id)).toBe(2);
    } finally {
      await app.close();
    }
  });

  it('when cutting the torn bytes back fails too, every later write is refused until the cut succeeds; nothing is glued', () => {
    const d = dir();
    let full = false, spent = false, truncFails = true;
    const io: JournalIo = {
      write: (fd, buf, off, len) => {
        if (!full) return writeSync(fd, buf, off, len);
        if (spent) throw Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
        spent = true;
        return writeSync(fd, buf, off, 5);
      },
      truncate: (fd, len) => {
        if (truncFails) throw Object.assign(new Error('input/output error'), { code: 'EIO' });
        truncateSync(`/proc/self/fd/${fd}`, len);
      },
    };
    const q = new QuotaStore(d, { log: quiet, io });
    q.open();
    q.count('key_aaaaaaaaaaaa');
    full = true;
    expect(() => q.count('key_aaaaaaaaaaaa')).toThrow(/cannot append .*5 of 36 bytes written, not yet cut off again/);
    full = false;
    expect(() => q.count('key_aaaaaaaaaaaa')).toThrow(/cannot cut a torn write off .*EIO.*nothing is counted until it can be/);
    expect(q.used('key_aaaaaaaaaaaa')).toBe(1);
    truncFails = false;
    q.count('key_aaaaaaaaaaaa');
    q.close();
    for (const l of readFileSync(journalOf(d), 'utf8').split('\n').slice(0, -1)) expect(l).toMatch(lineOk);
    expect(new QuotaStore(d, { log: quiet }).used('key_aaaaaaaaaaaa')).toBe(2);
  });

  it('a torn last line is repaired at start: the lines before it are kept, the fragment dropped, and the next line starts clean', () => {
    const d = dir();
    const q = new QuotaStore(d, { log: quiet });
    q.open();
    for (let i = 0; i < 30; i++) q.count('key_aaaaaaaaaaaa');
    q.close();
    const journal = journalOf(d);
    appendFileSync(journal, `key_aaaaaaaaaaaa ${monthOf(Date.now())} 17`); // a write torn mid-timestamp: never answered
    const logs: string[] = [];
    const again = new QuotaStore(d, { log: (m) => logs.push(m) });
    expect(again.used('key_aaaaaaaaaaaa')).toBe(30);
    again.open();
    expect(logs.join('\n')).toMatch(/torn last line .* removed/);
    again.count('key_bbbbbbbbbbbb');
    again.close();
    const lines = readFileSync(journal, 'utf8').split('\n');
    expect(lines.pop()).toBe('');
    for (const l of lines) expect(l).toMatch(lineOk);
    const after = new QuotaStore(d, { log: quiet });
    expect([after.used('key_aaaaaaaaaaaa'), after.used('key_bbbbbbbbbbbb')]).toEqual([30, 1]);
  });
});

describe('item 2: a journal cut at a line boundary', () => {
  function stateWith(n: number) {
    const d = dir();
    const q = new QuotaStore(d, { log: quiet });
    q.open();
    for (let i = 0; i < n; i++) q.count('key_aaaaaaaaaaaa');
    q.close();
    return { d, journal: journalOf(d) };
  }

  it('cut down to its header line: refused loudly, naming the file, the counts lost and the fix', () => {
    const { d, journal } = stateWith(100);
    const header = readFileSync(journal, 'utf8').split('\n')[0];
    writeFileSync(journal, `${header}\n`);
    expect(() => new QuotaStore(d, { log: quiet })).toThrow(StateError);
    expect(() => new QuotaStore(d, { log: quiet })).toThrow(/usage\.\d+\.journal holds 0 counts .* but usage\.mark recorded 100 .* was cut .*Fix: restore it from a backup/);
  });

  it('cut at any line boundary is refused; a journal only longer than its checkpoint loads; removing usage.mark accepts the cut', () => {
    const { d, journal } = stateWith(100);
    const full = readFileSync(journal, 'utf8');
    const lines = full.split('\n');
    for (const keep of [1, 2, 50, 100]) {
      writeFileSync(journal, lines.slice(0, keep).join('\n') + '\n');
      expect(() => new QuotaStore(d, { log: quiet }), `kept ${keep}`).toThrow(/was cut/);
    }
    // Lines appended after the last checkpoint (the last second before a crash) are fine.
    writeFileSync(journal, full + `key_aaaaaaaaaaaa ${monthOf(Date.now())} ${Math.floor(Date.now() / 1000)}\n`);
    expect(new QuotaStore(d, { log: quiet }).used('key_aaaaaaaaaaaa')).toBe(101);
    // The same length with other lines is refused (the checkpoint holds a checksum).
    writeFileSync(journal, full.replace(/key_aaaaaaaaaaaa/g, 'key_cccccccccccc'));
    expect(() => new QuotaStore(d, { log: quiet })).toThrow(/was cut or replaced/);
    // The fix the message names.
    writeFileSync(journal, lines.slice(0, 51).join('\n') + '\n');
    rmSync(path.join(d, 'usage.mark'));
    expect(new QuotaStore(d, { log: quiet }).used('key_aaaaaaaaaaaa')).toBe(50);
    expect(existsSync(path.join(d, 'usage.mark'))).toBe(false);
  });

  it('the checkpoint follows the periodic fsync (a kill without close is checked); a damaged slot falls back to the other', async () => {
    const d = dir();
    const q = new QuotaStore(d, { log: quiet, fsyncMs: 20 });
    q.open();
    for (let i = 0; i < 40; i++) {
      q.count('key_aaaaaaaaaaaa');
      await new Promise((r) => setTimeout(r, 5));
    }
    await new Promise((r) => setTimeout(r, 150));
    // As if killed now: no close, only what the periodic fsync recorded.
    const journal = journalOf(d);
    const text = readFileSync(journal, 'utf8');
    const header = text.split('\n')[0] + '\n';
    writeFileSync(journal, header);
    expect(() => new QuotaStore(d, { log: quiet })).toThrow(/was cut/);
    const mark = path.join(d, 'usage.mark');
    const good = readFileSync(mark);
    for (const slot of [0, 1]) {
      const bytes = Buffer.from(good);
      bytes.fill(0x20, slot * 256 + 10, slot * 256 + 40);
      writeFileSync(mark, bytes);
      writeFileSync(journal, header);
      expect(() => new QuotaStore(d, { log: quiet }), `slot ${slot} damaged`).toThrow(/was cut/);
      writeFileSync(journal, text);
      expect(new QuotaStore(d, { log: quiet }).used('key_aaaaaaaaaaaa')).toBe(40);
    }
    writeFileSync(mark, good);
    q.close();
  });

  it('the checkpoint moves to the new journal at a compaction', () => {
    const d = dir();
    const q = new QuotaStore(d, { log: quiet, compactBytes: 1 << 30 });
    q.open();
    for (let i = 0; i < 10; i++) q.count('key_aaaaaaaaaaaa');
    q.compact();
    for (let i = 0; i < 10; i++) q.count('key_aaaaaaaaaaaa');
    q.close();
    const journal = journalOf(d);
    expect(journal).toMatch(/usage\.2\.journal$/);
    const text = readFileSync(journal, 'utf8');
    writeFileSync(journal, text.split('\n')[0] + '\n');
    expect(() => new QuotaStore(d, { log: quiet })).toThrow(/holds 0 counts .* recorded 10 /);
    writeFileSync(journal, text);
    expect(new QuotaStore(d, { log: quiet }).used('key_aaaaaaaaaaaa')).toBe(20);
  });
});
