/** Monthly quotas and bursts: exhaustion, 429 details, and counters that survive restarts and kill -9. */
import { spawn } from 'node:child_process';
import { appendFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { PROJECT_ROOT } from '../pipeline/paths.ts';
import { KeyStore } from '../server/state/keys.ts';
import { monthOf } from '../server/state/plans.ts';
import { QuotaStore } from '../server/state/quota.ts';
import { cleanup, startServer } from './helpers.ts';
import { tempDirs } from './temp.ts';

let dist: string;
const dir = tempDirs();
beforeAll(async () => {
  dist = inject('sharedDist');
});

describe('QuotaStore', () => {
  it('counts per key and month and reloads the same counts', () => {
    const d = dir();
    const q = new QuotaStore(d);
    q.open();
    const nov = Date.UTC(2026, 10, 30, 23, 59);
    const dec = Date.UTC(2026, 11, 1, 0, 1);
    for (let i = 0; i < 3; i++) q.count('key_a', nov);
    q.count('key_a', dec);
    q.count('key_b', nov);
    q.close();
    const again = new QuotaStore(d);
    expect(again.used('key_a', nov)).toBe(3);
    expect(again.used('key_a', dec)).toBe(1);
    expect(again.used('key_b', nov)).toBe(1);
    expect(again.lastUsed('key_a')).toBe(Math.floor(dec / 1000));
  });

  it('compacts into a snapshot without losing counts, and ignores a torn last line', async () => {
    const d = dir();
    const q = new QuotaStore(d, { compactBytes: 200 });
    q.open();
    const journals = () => readdirSync(d).filter((f) => f.endsWith('.journal'));
    const first = journals();
    for (let i = 0; i < 100; i++) q.count('key_c');
    // Issue 41: appending switches to the next journal at once; the snapshot is written on
    // the thread pool, and only then is the old journal removed.
    expect(journals()).toHaveLength(2);
    expect(journals()).toContain(first[0]);
    for (let t = 0; t < 200 && journals().includes(first[0]); t++) await new Promise((r) => setTimeout(r, 10));
    expect(journals()).toHaveLength(1);
    expect(journals()).not.toEqual(first);
    for (let i = 0; i < 5; i++) q.count('key_c');
    // The new journal passed 200 bytes while the first snapshot was written: a second compaction.
    for (let t = 0; t < 200 && journals().length > 1; t++) await new Promise((r) => setTimeout(r, 10));
    q.close();
    expect(readdirSync(d).filter((f) => f.endsWith('.journal')).length).toBe(1);
    const journal = readdirSync(d).find((f) => f.endsWith('.journal'))!;
    expect(journal).not.toBe('usage.0.journal');
    // No newline: the last write was torn mid-timestamp, so it never completed and its
    // request was never answered (issue 38: a write is whole or refused): not counted.
    appendFileSync(path.join(d, journal), `key_c ${monthOf(Date.now())} 17`);
    expect(new QuotaStore(d).used('key_c')).toBe(105);
    // Reopening cuts the fragment off, so the next line is not glued to it.
    const reopened = new QuotaStore(d);
    reopened.open();
    reopened.count('key_c');
    reopened.close();
    appendFileSync(path.join(d, journal), `key_c 2026-1`); // a torn, unparseable fragment
    expect(new QuotaStore(d).used('key_c')).toBe(106);
  });
});

describe('limits over HTTP', () => {
  it('answers 429 monthly_quota_exceeded once the basic plan’s 25,000 are used, and does not count it', async () => {
    const srv = await startServer(dist, dir());
    try {
      const key = srv.key('basic');
      const id = srv.app.keys.verify(key)!.id;
      for (let i = 0; i < 24_999; i++) srv.app.quota.count(id);
      const last = await fetch(`${srv.base}/apis/elements/H`, { headers: { 'x-service-key': key } });
      expect(last.status).toBe(200);
      expect(last.headers.get('ratelimit')).toMatch(/^"monthly";r=0;/);
      const over = await fetch(`${srv.base}/apis/elements/H`, { headers: { authorization: `Bearer ${key}` } });
      expect(over.status).toBe(429);
      const body = await over.json();
      expect(body.error).toMatchObject({ code: 'monthly_quota_exceeded', status: 429, details: { plan: 'basic', monthly_quota: 25000 } });
      expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(over.headers.get('ratelimit-policy')).toMatch(/"monthly";q=25000/);
      expect(srv.app.quota.used(id)).toBe(25_000);
    } finally {
      await srv.close();
    }
  });

  it('answers 429 rate_limited past the per-second burst', async () => {
    const srv = await startServer(dist, dir());
    try {
      const key = srv.key('basic');
      const res = await Promise.all(Array.from({ length: 40 }, () => fetch(`${srv.base}/apis/elements/H`, { headers: { 'x-service-key': key } })));
      const codes = res.map((r) => r.status);
      expect(codes.filter((c) => c === 200).length).toBeGreaterThanOrEqual(10);
      const limited = res.filter((r) => r.status === 429);
      expect(limited.length).toBeGreaterThan(0);
      expect((await limited[0].json()).error.code).toBe('rate_limited');
      expect(limited[0].headers.get('retry-after')).toBe('1');
    } finally {
      await srv.close();
    }
  });

  it('keeps counters across a clean restart', async () => {
    const state = dir();
    let srv = await startServer(dist, state);
    const key = srv.key('standard');
    for (let i = 0; i < 7; i++) await fetch(`${srv.base}/apis/elements/${i + 1}`, { headers: { 'x-service-key': key } });
    await srv.close();
    srv = await startServer(dist, state);
    try {
      const r = await fetch(`${srv.base}/apis/elements/H`, { headers: { 'x-service-key': key } });
      expect(r.headers.get('ratelimit')).toMatch(new RegExp(`^"monthly";r=${100_000 - 8};`));
    } finally {
      await srv.close();
    }
  });

  it('loses no count when the server is killed with SIGKILL', async () => {
    const state = dir();
    const { secret, record } = new KeyStore(state).create('premium', 'kill test');
    const child = spawn(process.execPath, ['--import', 'tsx', 'server/cli/serve.ts'], {
      cwd: PROJECT_ROOT,
      env: { ...process.env, ALMANAC_DIST: dist, ALMANAC_STATE_DIR: state, PORT: '0', HOST: '127.0.0.1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const base = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (c) => {
          out += c;
          const m = /on (http:\/\/[\d.]+:\d+)/.exec(out);
          if (m) resolve(m[1]);
        });
        child.on('exit', (code) => reject(new Error(`server exited ${code}`)));
      });
      for (let i = 0; i < 40; i++) {
        const r = await fetch(`${base}/apis/elements/He`, { headers: { 'x-service-key': secret } });
        expect(r.status).toBe(200);
      }
    } finally {
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
    }
    expect(new QuotaStore(state).used(record.id)).toBe(40);
  });
});
