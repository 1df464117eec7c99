/**
 * Issue 9 faults 2–7: state that its own tools cannot corrupt, and that says so when it is
 * corrupt. Locks, the keys CLI under concurrency, bad keys.json at startup and while
 * running, untrustworthy quota state, and a journal that cannot be written.
 */
import { spawn } from 'node:child_process';
import { appendFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { PROJECT_ROOT } from '../pipeline/paths.ts';
import { createApp } from '../server/node/server.ts';
import { runKeys } from '../server/cli/keys-commands.ts';
import { KeyStore } from '../server/state/keys.ts';
import { tryLock } from '../server/state/lock.ts';
import { monthOf } from '../server/state/plans.ts';
import { QuotaStore, StateError } from '../server/state/quota.ts';
import { quiet, startServer, runTsx } from './helpers.ts';
import { tempDirs } from './temp.ts';

const dir = tempDirs('almanac-state-');
const tsx = runTsx;

/** A state folder with a snapshot and a journal holding `n` counts for key_aaaaaaaaaaaa. */
function stateWith(n: number) {
  const d = dir();
  const q = new QuotaStore(d, { log: quiet });
  q.open();
  for (let i = 0; i < n; i++) q.count('key_aaaaaaaaaaaa');
  q.close();
  const journal = readdirSync(d).find((f) => f.endsWith('.journal'))!;
  return { d, journal: path.join(d, journal), snapshot: path.join(d, 'usage.snapshot.json') };
}

describe('fault 4: one server per state folder', () => {
  it('a second server on the same folder refuses to start, naming the lock and its holder', async () => {
    const srv = await startServer(inject('sharedDist'), dir());
    try {
      expect(() => createApp({ dist: inject('sharedDist'), stateDir: srv.stateDir, log: quiet }))
        .toThrow(new RegExp(`server\\.lock is held by pid ${process.pid}`));
    } finally {
      await srv.close();
    }
    // Closed, the folder is free again.
    const again = await startServer(inject('sharedDist'), srv.stateDir);
    await again.close();
  });

  it('a lock left by a process killed with SIGKILL is taken over (its pid is not running)', async () => {
    const d = dir();
    const child = spawn(process.execPath, ['--import', 'tsx', '-e', `import('./server/state/lock.ts').then((m) => { m.tryLock(${JSON.stringify(path.join(d, 'server.lock'))}); console.log('held'); setInterval(() => {}, 1000); })`], {
      cwd: PROJECT_ROOT, stdio: ['ignore', 'pipe', 'inherit'],
    });
    await new Promise<void>((r) => child.stdout.on('data', (c) => String(c).includes('held') && r()));
    expect(() => tryLock(path.join(d, 'server.lock'))).toThrow(new RegExp(`held by pid ${child.pid}`));
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    const logs: string[] = [];
    const release = tryLock(path.join(d, 'server.lock'), (m) => logs.push(m));
    expect(logs.join()).toMatch(new RegExp(`stale lock of pid ${child.pid}`));
    release();
  });
});

describe('fault 3: the keys CLI under concurrency', () => {
  it('10 parallel creates and a revoke beside them all land, and the revoke stays', async () => {
    const d = dir();
    const victim = new KeyStore(d, quiet).create('basic', 'victim').record.id;
    const runs = await Promise.all([
      ...Array.from({ length: 10 }, () => tsx(['server/cli/keys.ts', 'create', '--plan', 'basic'], { ALMANAC_STATE_DIR: d })),
      tsx(['server/cli/keys.ts', 'revoke', victim], { ALMANAC_STATE_DIR: d }),
    ]);
    expect(runs.map((r) => r.code), runs.map((r) => r.err).join('\n')).toEqual(Array(11).fill(0));
    const store = new KeyStore(d, quiet);
    expect(store.keys()).toHaveLength(11);
    expect(store.find(victim)!.status).toBe('revoked');
    for (const r of runs.slice(0, 10)) expect(store.verify(r.out.trim().split('\n').pop()!)?.status).toBe('active');
  });
});

describe('fault 2: a bad keys.json never crashes the server or leaks its contents', () => {
  it('while running: reported once naming the file, never its contents; the last good keys keep serving', async () => {
    const logs: string[] = [];
    const d = dir();
    const app = createApp({ dist: inject('sharedDist'), stateDir: d, log: (m) => logs.push(m) });
    await new Promise<void>((r) => app.server.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
    try {
      const key = app.keys.create('standard').secret;
      writeFileSync(path.join(d, 'keys.json'), `{"keys": {"${key}": tru`);
      for (let i = 0; i < 3; i++) expect((await fetch(`${base}/apis/elements/H`, { headers: { 'x-service-key': key } })).status).toBe(200);
      const reports = logs.filter((l) => l.includes('keys.json'));
      expect(reports).toHaveLength(1);
      expect(reports[0]).toMatch(/keys\.json: is not valid JSON/);
      expect(reports[0]).not.toContain(key.slice(4, 12));
    } finally {
      await app.close();
    }
  });

  it('at startup: refused with the file named and what is wrong', () => {
    const d = dir();
    writeFileSync(path.join(d, 'keys.json'), '{"keys": {"alm_secretsecretsecret": ');
    expect(() => createApp({ dist: inject('sharedDist'), stateDir: d, log: quiet })).toThrow(/keys\.json: is not valid JSON/);
    try {
      createApp({ dist: inject('sharedDist'), stateDir: d, log: quiet });
    } catch (err) {
      expect((err as Error).message).not.toContain('secretsecret');
    }
  });

  it('fault 6: a key with an unknown plan is refused at startup naming the key, not a 500 per request', () => {
    const d = dir();
    const store = new KeyStore(d, quiet);
    const { record } = store.create('basic');
    const file = JSON.parse(readFileSync(store.file, 'utf8'));
    file.keys[record.id].plan = 'platinum';
    writeFileSync(store.file, JSON.stringify(file));
    expect(() => createApp({ dist: inject('sharedDist'), stateDir: d, log: quiet })).toThrow(new RegExp(`key ${record.id} has an unknown plan`));
  });
});

describe('faults 5 and 6: quota state the server cannot trust is refused with the file and the fix', () => {
  it('fault 5: a snapshot ahead of its journal (a restored backup) is refused, the journal kept', () => {
    const { d, journal, snapshot } = stateWith(50);
    const snap = JSON.parse(readFileSync(snapshot, 'utf8'));
    writeFileSync(snapshot, JSON.stringify({ ...snap, generation: snap.generation + 3, folded: undefined }));
    expect(() => new QuotaStore(d)).toThrow(StateError);
    expect(() => new QuotaStore(d)).toThrow(/older than .*usage\.snapshot\.json.*restored backup.*Fix:/);
    expect(readdirSync(d)).toContain(path.basename(journal));
  });

  it('fault 5: a journal newer than the snapshot is refused', () => {
    const { d, journal } = stateWith(5);
    const gen = Number(/usage\.(\d+)\.journal/.exec(journal)![1]);
    writeFileSync(path.join(d, `usage.${gen + 2}.journal`), `key_aaaaaaaaaaaa ${monthOf(Date.now())} ${Math.floor(Date.now() / 1000)}\n`);
    expect(() => new QuotaStore(d)).toThrow(/newer than/);
  });

  it('fault 6: a journal of random bytes is refused naming the line', () => {
    const { d, journal } = stateWith(3);
    appendFileSync(journal, Buffer.from([0x8f, 0x00, 0xff, 0x12, 0x0a, 0x41, 0x0a]));
    expect(() => new QuotaStore(d)).toThrow(/line 5 is not .*damaged/);
  });

  it('fault 6: a deleted journal is refused instead of counting from zero', () => {
    const { d, journal } = stateWith(1000);
    rmSync(journal);
    expect(() => new QuotaStore(d)).toThrow(/is missing.*Fix: restore it from a backup, or create it holding only the line "# almanac usage journal \d+" and remove .*usage\.mark/);
  });

  it('issue 26 item 12: an emptied journal is refused like a deleted one; its header line accepts the snapshot\'s counts', () => {
    const { d, journal } = stateWith(1000);
    expect(readFileSync(journal, 'utf8').split('\n')[0]).toMatch(/^# almanac usage journal \d+$/);
    writeFileSync(journal, '');
    expect(() => new QuotaStore(d)).toThrow(/is empty: it was emptied or replaced.*Fix: restore it from a backup, or write the line "# almanac usage journal \d+" at its start and remove .*usage\.mark/);
    // The fix the message names works: the snapshot's counts (0 here: none folded yet) are kept.
    const gen = /usage\.(\d+)\.journal$/.exec(journal)![1];
    writeFileSync(journal, `# almanac usage journal ${gen}\n`);
    rmSync(path.join(d, 'usage.mark'));
    expect(new QuotaStore(d).used('key_aaaaaaaaaaaa')).toBe(0);
    // A journal replaced by another's lines (no header) is refused too.
    writeFileSync(journal, `key_aaaaaaaaaaaa ${monthOf(Date.now())} ${Math.floor(Date.now() / 1000)}\n`);
    expect(() => new QuotaStore(d)).toThrow(/does not start with its header line/);
  });

  it('a state folder of the version before journal headers still loads, and its next compaction starts one', () => {
    const d = dir();
    writeFileSync(path.join(d, 'usage.snapshot.json'), JSON.stringify({ generation: 4, counts: { key_aaaaaaaaaaaa: { [monthOf(Date.now())]: 7 } }, last_used: {} }));
    writeFileSync(path.join(d, 'usage.4.journal'), `key_aaaaaaaaaaaa ${monthOf(Date.now())} ${Math.floor(Date.now() / 1000)}\n`);
    const q = new QuotaStore(d, { log: quiet });
    expect(q.used('key_aaaaaaaaaaaa')).toBe(8);
    q.open();
    q.compact();
    q.count('key_aaaaaaaaaaaa');
    q.close();
    expect(readFileSync(path.join(d, 'usage.5.journal'), 'utf8')).toMatch(/^# almanac usage journal 5\nkey_aaaaaaaaaaaa /);
    expect(new QuotaStore(d).used('key_aaaaaaaaaaaa')).toBe(9);
  });

  it('fault 6: a snapshot of {} is refused at startup, not a 500 per request', () => {
    const { d, snapshot } = stateWith(3);
    writeFileSync(snapshot, '{}');
    expect(() => createApp({ dist: inject('sharedDist'), stateDir: d, log: quiet })).toThrow(/usage\.snapshot\.json: has no valid "generation"/);
  });

  it('fault 6: a journal line with a huge timestamp is refused, and `keys usage` reports it without crashing', () => {
    const { d, journal } = stateWith(2);
    appendFileSync(journal, `key_aaaaaaaaaaaa ${monthOf(Date.now())} 99999999999999\n`);
    expect(() => new QuotaStore(d)).toThrow(/line 4: timestamp 99999999999999 is out of range/);
    expect(() => runKeys(['usage'], { ALMANAC_STATE_DIR: d }, () => {})).toThrow(/out of range/);
  });

  it('a torn line inside a journal of a version before issue 38 is still skipped and reported, not refused', () => {
    const { d, journal } = stateWith(2);
    appendFileSync(journal, `key_aaaaaaaaaaaa 2026-1\n`);
    const logs: string[] = [];
    expect(new QuotaStore(d, { log: (m) => logs.push(m) }).used('key_aaaaaaaaaaaa')).toBe(2);
    expect(logs.join()).toMatch(/skipped 1 line/);
  });

  it('a crash between writing a snapshot and removing the journal it folded is recovered', () => {
    const d = dir();
    const q = new QuotaStore(d, { log: quiet, compactBytes: 1 << 30 });
    q.open();
    for (let i = 0; i < 20; i++) q.count('key_bbbbbbbbbbbb');
    const before = readdirSync(d).find((f) => f.endsWith('.journal'))!;
    const kept = readFileSync(path.join(d, before));
    q.compact();
    q.close();
    writeFileSync(path.join(d, before), kept); // as if the removal never happened
    expect(new QuotaStore(d, { log: quiet }).used('key_bbbbbbbbbbbb')).toBe(20);
  });
});

describe('fault 7: a failed durable write is not billed', () => {
  it('a journal write that fails answers 503 state_unavailable and is not counted', async () => {
    let fail = false;
    const d = dir();
    const app = createApp({
      dist: inject('sharedDist'), stateDir: d, log: quiet,
      quota: { io: { write: (fd, buf, off, len) => {
        if (fail) throw Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
        return writeSync(fd, buf, off, len);
      } } },
    });
    await new Promise<void>((r) => app.server.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
    try {
      const { secret, record } = app.keys.create('basic');
      expect((await fetch(`${base}/apis/elements/H`, { headers: { 'x-service-key': secret } })).status).toBe(200);
      fail = true;
      const r = await fetch(`${base}/apis/elements/H`, { headers: { 'x-service-key': secret } });
      expect(r.status).toBe(503);
      expect((await r.json()).error.code).toBe('state_unavailable');
      fail = false;
      expect((await fetch(`${base}/apis/elements/He`, { headers: { 'x-service-key': secret } })).status).toBe(200);
      expect(app.quota.used(record.id)).toBe(2);
    } finally {
      await app.close();
    }
  });

  it('a compaction that cannot write its snapshot keeps serving and counting, and is logged', async () => {
    const d = dir();
    const logs: string[] = [];
    const app = createApp({ dist: inject('sharedDist'), stateDir: d, log: (m) => logs.push(m), quota: { compactBytes: 300 } });
    // The snapshot's temp file cannot be created: a folder stands in its place.
    mkdirSync(path.join(d, `usage.snapshot.json.tmp-${process.pid}`));
    await new Promise<void>((r) => app.server.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
    try {
      const { secret, record } = app.keys.create('development');
      for (let i = 0; i < 20; i++) expect((await fetch(`${base}/apis/elements/H`, { headers: { 'x-service-key': secret } })).status).toBe(200);
      expect(app.quota.used(record.id)).toBe(20);
      // The snapshot is written on the thread pool (issue 41): its failure is logged when that write returns.
      for (let t = 0; t < 200 && !logs.some((l) => l.includes('compaction failed')); t++) await new Promise((r) => setTimeout(r, 10));
      expect(logs.filter((l) => l.includes('compaction failed'))).toHaveLength(1);
    } finally {
      await app.close();
    }
    rmSync(path.join(d, `usage.snapshot.json.tmp-${process.pid}`), { recursive: true });
    expect(new QuotaStore(d, { log: quiet }).used(app.keys.keys()[0].id)).toBe(20);
  });
});
