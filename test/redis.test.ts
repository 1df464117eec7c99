/**
 * ALMANAC_REDIS_URL (issue 14): quota counters in a real redis-server shared by two server
 * processes (one of them with two workers). Skips, saying so, only where redis-server is
 * not installed (`.ci/run` installs it).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import path from 'node:path';
import { createClient } from '@redis/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build } from '../server/cli/build.ts';
import { PROJECT_ROOT } from '../pipeline/paths.ts';
import elements from '../sources/elements.ts';
import { KeyStore } from '../server/state/keys.ts';
import { keysViaRedis } from '../server/cli/redis.ts';
import { RedisDoc } from '../server/state/redis-doc.ts';
import { POLL_MS, redisState, reviewsDoc } from '../server/state/redis-state.ts';
import { reviewsIn, withDecision } from '../server/state/reviews.ts';
import { monthOf } from '../server/state/plans.ts';
import { cleanup, quiet, tempDir } from './helpers.ts';

const REDIS = (() => {
  try {
    return execFileSync('which', ['redis-server'], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
})();
const suite = REDIS ? describe : describe.skip;
const NEEDS = REDIS ? '' : ' (skipped: redis-server is not installed; apt-get install -y redis-server)';

const dirs: string[] = [];
const dir = (p: string) => {
  const d = tempDir(p);
  dirs.push(d);
  return d;
};
const kids: ChildProcess[] = [];
const exited = (c: ChildProcess) => new Promise((r) => (c.exitCode !== null || c.signalCode !== null ? r(null) : c.once('exit', r)));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

let dist: string;
let redisDir: string;
let redisPort: number;
let redisProc: ChildProcess | undefined;
let url: string;

async function startRedis() {
  redisProc = spawn(REDIS!, ['--port', String(redisPort), '--bind', '127.0.0.1', '--dir', redisDir, '--appendonly', 'yes', '--appendfsync', 'everysec', '--save', '', '--daemonize', 'no'], { stdio: 'ignore' });
  kids.push(redisProc);
  const c = createClient({ url });
  c.on('error', () => {});
  for (let i = 0; ; i++) {
    try {
      await c.connect();
      break;
    } catch (err) {
      if (i > 50) throw err;
      await sleep(100);
    }
  }
  return c;
}

beforeAll(async () => {
  if (!REDIS) return;
  dist = dir('almanac-redis-dist-');
  await build({ env: { ALMANAC_DIST: dist, ALMANAC_CACHE: dir('almanac-redis-cache-') }, sources: [elements], log: quiet });
  redisDir = dir('almanac-redis-data-');
  redisPort = await freePort();
  url = `redis://127.0.0.1:${redisPort}`;
  await (await startRedis()).close();
});
afterAll(async () => {
  for (const k of kids) {
    k.kill('SIGKILL');
    await exited(k);
  }
  cleanup(...dirs);
});

/** A server process on its own state folder (holding a copy of the shared keys.json), counting in Redis. */
function serve(state: string, workers = 1): Promise<{ child: ChildProcess; base: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/cli/serve.ts', ...(workers > 1 ? ['--workers', String(workers)] : [])], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, ALMANAC_DIST: dist, ALMANAC_STATE_DIR: state, ALMANAC_REDIS_URL: url, PORT: '0', HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  kids.push(child);
  let out = '';
  child.stderr!.on('data', (c) => { out += c; });
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (c) => {
      out += c;
      const m = /on (http:\/\/[\d.]+:\d+)/.exec(out);
      if (m) resolve({ child, base: m[1] });
    });
    child.on('exit', (code) => reject(new Error(`server exited ${code}: ${out}`)));
  });
}

/** The keys CLI against Redis, in this process (server/cli/redis.ts); its output lines. */
async function keysCli(args: string[], state = dir('almanac-redis-cli-'), redisUrl = url) {
  const lines: string[] = [];
  const code = await keysViaRedis(args, { ALMANAC_STATE_DIR: state, ALMANAC_REDIS_URL: redisUrl }, (l) => lines.push(l));
  return { code, lines };
}

/** The keys CLI as a process (`npm run keys` without npm), against Redis. */
function keysProcess(args: string[], redisUrl = url): Promise<{ code: number | null; out: string; err: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/cli/keys.ts', ...args], {
    cwd: PROJECT_ROOT, env: { ...process.env, ALMANAC_STATE_DIR: dir('almanac-redis-cli-'), ALMANAC_REDIS_URL: redisUrl }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  kids.push(child);
  let out = '', err = '';
  child.stdout!.on('data', (c) => { out += c; });
  child.stderr!.on('data', (c) => { err += c; });
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, out, err })));
}

/** Two machines: state folders of their own (empty), keys in Redis, a key made by the CLI. */
async function twoMachines(plan: 'development' | 'basic' = 'development') {
  const a = dir('almanac-redis-state-'), b = dir('almanac-redis-state-');
  const { code, lines } = await keysCli(['create', '--plan', plan, '--label', 'redis test']);
  expect(code).toBe(0);
  return { a, b, secret: lines.at(-1)!, id: /created (key_\w+)/.exec(lines[0])![1] };
}

/** Polls `base` with the key until the answer's status is `want`; the milliseconds it took. */
async function until(base: string, secret: string, want: number, limitMs = 10_000): Promise<number> {
  const t0 = Date.now();
  for (;;) {
    const r = await fetch(`${base}/apis/elements/Fe`, { headers: { 'x-service-key': secret } });
    await r.arrayBuffer();
    if (r.status === want) return Date.now() - t0;
    if (Date.now() - t0 > limitMs) throw new Error(`${base}: still ${r.status}, not ${want}, after ${limitMs} ms`);
    await sleep(20);
  }
}

async function hammer(bases: string[], secret: string, total: number, clients = 24) {
  const codes: Record<string, number> = {};
  let next = 0;
  await Promise.all(Array.from({ length: clients }, async () => {
    while (next < total) {
      const i = next++;
      const r = await fetch(`${bases[i % bases.length]}/apis/elements/Fe`, { headers: { 'x-service-key': secret } });
      const code = r.status === 200 ? '200' : (await r.json()).error.code;
      if (r.status === 200) await r.arrayBuffer();
      codes[code] = (codes[code] ?? 0) + 1;
    }
  }));
  return codes;
}

suite(`ALMANAC_REDIS_URL${NEEDS}`, () => {
  it('two servers (one with two workers) on one Redis share a key’s monthly quota exactly', async () => {
    const { a, b, secret, id } = await twoMachines();
    const c = createClient({ url });
    await c.connect();
    const counter = `almanac:m:${id}:${monthOf(Date.now())}`;
    await c.set(counter, String(10_000_000 - 200));
    const [s1, s2] = await Promise.all([serve(a, 2), serve(b)]);
    try {
      expect(await hammer([s1.base, s2.base], secret, 400)).toEqual({ 200: 200, monthly_quota_exceeded: 200 });
      expect(await c.get(counter)).toBe('10000000');
      // /api/v1/key is admitted, not billed (auth.ts ChargeMode): it answers with the month used up, and the counter stays.
      for (const base of [s1.base, s2.base]) {
        const k = await fetch(`${base}/api/v1/key`, { headers: { authorization: `Bearer ${secret}` } });
        expect(k.status).toBe(200);
        expect((await k.json()).data).toMatchObject({ remaining_calls: 0 });
      }
      expect(await c.get(counter)).toBe('10000000');
    } finally {
      s1.child.kill('SIGTERM');
      s2.child.kill('SIGTERM');
      await Promise.all([exited(s1.child), exited(s2.child)]);
      await c.close();
    }
  });

  it('one burst bucket across both servers', async () => {
    const { a, b, secret } = await twoMachines('basic'); // 10 a second
    const [s1, s2] = await Promise.all([serve(a), serve(b)]);
    try {
      const codes = await hammer([s1.base, s2.base], secret, 40, 40);
      expect(codes['200']).toBeGreaterThanOrEqual(10);
      expect(codes['200']).toBeLessThan(20);
      expect(codes.rate_limited).toBe(40 - codes['200']);
    } finally {
      s1.child.kill('SIGTERM');
      s2.child.kill('SIGTERM');
      await Promise.all([exited(s1.child), exited(s2.child)]);
    }
  });

  it('loses no count when a server is killed with SIGKILL, nor when Redis (appendonly, everysec) is killed and restarted; answers 503 while it is down', async () => {
    const { a, secret, id } = await twoMachines();
    const s = await serve(a);
    const counter = `almanac:m:${id}:${monthOf(Date.now())}`;
    let ok = 0;
    let stop = false;
    const clients = Array.from({ length: 8 }, async () => {
      while (!stop) {
        try {
          const r = await fetch(`${s.base}/apis/elements/Fe`, { headers: { 'x-service-key': secret } });
          await r.arrayBuffer();
          if (r.status === 200) ok++;
        } catch { /* the server was killed */ }
      }
    });
    while (ok < 300) await sleep(20);
    s.child.kill('SIGKILL');
    await exited(s.child);
    stop = true;
    await Promise.all(clients);
    const c = createClient({ url });
    await c.connect();
    const counted = Number(await c.get(counter));
    // Every answered request was counted before its answer; at most the 8 in flight were counted unanswered.
    expect(counted).toBeGreaterThanOrEqual(ok);
    expect(counted).toBeLessThanOrEqual(ok + 8);
    await c.close();

    // Redis killed right after a burst of counts: appendonly wrote each before replying.
    const s2 = await serve(a);
    try {
      let more = 0;
      for (let i = 0; i < 50; i++) {
        const r = await fetch(`${s2.base}/apis/elements/Fe`, { headers: { 'x-service-key': secret } });
        await r.arrayBuffer();
        if (r.status === 200) more++;
      }
      expect(more).toBe(50);
      redisProc!.kill('SIGKILL');
      await exited(redisProc!);
      const down = await fetch(`${s2.base}/apis/elements/Fe`, { headers: { 'x-service-key': secret } });
      expect(down.status).toBe(503);
      expect((await down.json()).error.code).toBe('state_unavailable');
      const c2 = await startRedis();
      // The policy allows losing up to ~1 s of counts on an OS crash; a killed Redis process loses none.
      expect(Number(await c2.get(counter))).toBe(counted + 50);
      await c2.close();
      // The server reconnects by itself.
      const deadline = Date.now() + 10_000;
      let status = 0;
      while (status !== 200 && Date.now() < deadline) {
        const r = await fetch(`${s2.base}/apis/elements/Fe`, { headers: { 'x-service-key': secret } });
        await r.arrayBuffer();
        status = r.status;
        if (status !== 200) await sleep(200);
      }
      expect(status).toBe(200);
    } finally {
      s2.child.kill('SIGTERM');
      await exited(s2.child);
    }
  });

  it('keeps a JSON document (the keys document) with optimistic concurrency: 40 parallel writers on 4 connections all land', async () => {
    type Doc = { keys: Record<string, { id: string; status: string }>; requests: Record<string, unknown> };
    const clients = await Promise.all(Array.from({ length: 4 }, async () => {
      const c = createClient({ url });
      await c.connect();
      return c;
    }));
    try {
      const docs = clients.map((c) => new RedisDoc<Doc>(c, 'keys-test', () => ({ keys: {}, requests: {} })));
      await Promise.all(Array.from({ length: 40 }, (_, i) => docs[i % 4].update((d) => {
        d.keys[`key_${String(i).padStart(12, '0')}`] = { id: `key_${String(i).padStart(12, '0')}`, status: 'active' };
        return i;
      })));
      // A pure transition (doc) => doc' beside them: a revoke.
      await docs[0].transition((d) => ({ ...d, keys: { ...d.keys, key_000000000007: { ...d.keys.key_000000000007, status: 'revoked' } } }));
      const { doc, version } = await docs[3].read();
      expect(Object.keys(doc.keys).length).toBe(40);
      expect(doc.keys.key_000000000007.status).toBe('revoked');
      expect(version).toBe(41);
      expect(await docs[1].version()).toBe(41);
    } finally {
      await Promise.all(clients.map((c) => c.close()));
    }
  });
  it(`keys in Redis: a key made by the keys CLI works on two servers with empty state folders, and a revoke applies on both within the documented bound (${POLL_MS} ms poll; the change message makes it milliseconds)`, async () => {
    const a = dir('almanac-redis-state-'), b = dir('almanac-redis-state-');
    const [s1, s2] = await Promise.all([serve(a), serve(b)]);
    try {
      // Created after both servers started: they learn of it from Redis, not from a file.
      const made = await keysProcess(['create', '--plan', 'standard', '--label', 'two machines', '--by', 'tester']);
      expect(made.code).toBe(0);
      const secret = made.out.trim().split('\n').at(-1)!;
      const id = /created (key_\w+)/.exec(made.out)![1];
      for (const base of [s1.base, s2.base]) await until(base, secret, 200, 30_000); // a generous deadline: propagation, not its speed (bench), is tested
      // `keys usage` reads Redis's counts: one 200 on each server (refusals are not counted).
      const usage = (await keysCli(['usage', id])).lines[0].split('\t');
      expect(usage.slice(0, 3)).toEqual([id, monthOf(Date.now()), '2/100000']);
      expect(usage[3]).toMatch(/^last used 20/);
      const revoked = await keysProcess(['revoke', id, '--by', 'tester']);
      expect(revoked.code).toBe(0);
      expect(revoked.out).toContain(`${id} is now revoked`);
      // The bound is POLL_MS plus one read of the document; 2 s of slack for this loaded machine.
      for (const base of [s1.base, s2.base]) await until(base, secret, 401, 30_000);
      // Neither machine wrote keys to its state folder.
      expect(existsSync(path.join(a, 'keys.json')) || existsSync(path.join(b, 'keys.json'))).toBe(false);
      const audit = (await keysCli(['audit'])).lines.map((l) => JSON.parse(l));
      expect(audit.filter((e) => e.key === id && e.by === 'tester').map((e) => e.what)).toEqual(expect.arrayContaining(['key.issue', 'key.revoke']));
    } finally {
      s1.child.kill('SIGTERM');
      s2.child.kill('SIGTERM');
      await Promise.all([exited(s1.child), exited(s2.child)]);
    }
  });

  it('keys in Redis: ten parallel keys CLI processes all land, each in the audit log', async () => {
    const runs = await Promise.all(Array.from({ length: 10 }, (_, i) => keysProcess(['create', '--plan', 'basic', '--label', `parallel ${i}`])));
    for (const r of runs) expect(r.code, r.err).toBe(0);
    const ids = runs.map((r) => /created (key_\w+)/.exec(r.out)![1]);
    const list = (await keysCli(['list'])).lines.join('\n');
    for (const id of ids) expect(list).toContain(id);
    const audit = (await keysCli(['audit'])).lines.map((l) => JSON.parse(l));
    for (const id of ids) expect(audit.some((e) => e.what === 'key.issue' && e.key === id)).toBe(true);
  });

  it('keys in Redis: kill -9 of a writer mid-run loses no completed transition, and every rev is in the audit log', async () => {
    const state = dir('almanac-redis-cli-');
    const script = `import { keysViaRedis } from './server/cli/redis.ts';
for (let i = 0; ; i++) await keysViaRedis(['create', '--plan', 'basic', '--label', 'kill ' + i], process.env, (l) => { if (l.startsWith('created')) console.log(l.split(' ')[1]); });`;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: PROJECT_ROOT, env: { ...process.env, ALMANAC_STATE_DIR: state, ALMANAC_REDIS_URL: url }, stdio: ['ignore', 'pipe', 'pipe'],
    });
    kids.push(child);
    // A second writer beside it, so compare-and-set conflicts happen too.
    const other = keysProcess(['create', '--plan', 'basic', '--label', 'beside']);
    let printed = '';
    child.stdout!.on('data', (c) => { printed += c; });
    while (printed.split('\n').filter(Boolean).length < 8) await sleep(20);
    child.kill('SIGKILL');
    await exited(child);
    expect((await other).code).toBe(0);
    const done = printed.split('\n').filter((l) => /^key_\w+$/.test(l));
    const c = createClient({ url });
    await c.connect();
    try {
      const { doc } = await new RedisDoc<{ rev: number; keys: Record<string, unknown> }>(c, 'keys', () => ({ rev: 0, keys: {} })).read();
      for (const id of done) expect(doc.keys[id], id).toBeDefined();
      const revs = new Set((await c.lRange('almanac:doc:keys:log', 0, -1)).map((l) => JSON.parse(l).rev));
      for (let r = 1; r <= doc.rev; r++) expect(revs.has(r), `rev ${r} in the audit log`).toBe(true);
    } finally {
      await c.close();
    }
  });

  it('reviews in Redis: a review written on one machine shows on another; a local keys.json seeds an empty Redis once', async () => {
    const a = dir('almanac-redis-state-'), b = dir('almanac-redis-state-');
    const logs: string[] = [];
    const [ma, mb] = await Promise.all([redisState(url, a, (m) => logs.push(m)), redisState(url, b, (m) => logs.push(m))]);
    const c = createClient({ url });
    await c.connect();
    try {
      await reviewsDoc(c).change((d) => ({ next: withDecision(d, 'oshb-hebrew:gen.1.1:1', 'verified', 'checked', 'tester').next, result: undefined }));
      const t0 = Date.now();
      // Each machine hears of the write on its own (a message, else its poll): wait for both.
      while (!(mb.reviews.get('oshb-hebrew:gen.1.1:1') && ma.reviews.get('oshb-hebrew:gen.1.1:1')) && Date.now() - t0 < 30_000) await sleep(10);
      // What the study routes read for machine b's state folder.
      expect(reviewsIn(b).get('oshb-hebrew:gen.1.1:1')).toMatchObject({ decision: 'verified', note: 'checked', reviewer: 'tester' });
      expect(ma.reviews.get('oshb-hebrew:gen.1.1:1')?.decision).toBe('verified');
      expect(existsSync(path.join(b, 'reviews.json'))).toBe(false);
    } finally {
      await Promise.all([ma.close(), mb.close(), c.close()]);
    }
    // Seeding: database 2 of the same Redis is empty; a machine's keys.json goes in once.
    const local = dir('almanac-redis-seed-');
    const { record } = new KeyStore(local).create('basic', 'from the file');
    const seeded = await keysCli(['list'], local, `${url}/2`);
    expect(seeded.lines.join('\n')).toContain(record.id);
    // Another machine's file does not go in: Redis already holds the document.
    const other = dir('almanac-redis-seed-');
    const second = new KeyStore(other).create('basic', 'second file').record;
    expect((await keysCli(['list'], other, `${url}/2`)).lines.join('\n')).not.toContain(second.id);
    const audit = (await keysCli(['audit'], local, `${url}/2`)).lines.map((l) => JSON.parse(l));
    expect(audit.filter((e) => e.what === 'document.seed')).toHaveLength(1);
  });

  it('Redis unreachable: the server refuses to start naming the URL without its password; the CLI fails with a message and a non-zero code', async () => {
    const dead = `redis://:sekret@127.0.0.1:${await freePort()}`;
    const child = spawn(process.execPath, ['--import', 'tsx', 'server/cli/serve.ts'], {
      cwd: PROJECT_ROOT, env: { ...process.env, ALMANAC_DIST: dist, ALMANAC_STATE_DIR: dir('almanac-redis-state-'), ALMANAC_REDIS_URL: dead, PORT: '0' }, stdio: ['ignore', 'pipe', 'pipe'],
    });
    kids.push(child);
    let err = '';
    child.stderr!.on('data', (c) => { err += c; });
    const code = await new Promise((r) => child.on('exit', r));
    expect(code).not.toBe(0);
    expect(err).toMatch(/cannot reach Redis at redis:\/\/…@127\.0\.0\.1:\d+/);
    expect(err).not.toContain('sekret');
    const cli = await keysProcess(['create', '--plan', 'basic'], dead);
    expect(cli.code).not.toBe(0);
    expect(cli.err).toMatch(/cannot reach Redis at redis:\/\/…@127\.0\.0\.1:\d+/);
    expect(cli.err + cli.out).not.toContain('sekret');
  });
});
