/**
 * `npm run edge` as an operator runs it (issue 39, items 2, 5 and 6; issue 38, items 4 and
 * 10 for the edge): a child process on the test release, its output read line by line.
 * It prints its ready line only once a release is published and the keys are synced, and
 * a keyed request is never called invalid before; it answers malformed requests as the
 * Node server does, with a Date header; it asks nothing of the network at start; a killed
 * workerd is started again; SIGTERM lets the answers in flight finish; --help is help.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { connect, createServer as netServer } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startLocalEdge, type LocalEdge } from '../edge/local.ts';
import { publishRelease } from '../edge/publish.ts';
import { syncKeys } from '../edge/sync.ts';
import { PROJECT_ROOT } from '../pipeline/paths.ts';
import { KeyStore } from '../server/state/keys.ts';
import { cleanup, quiet, startServer, tempDir, type Running } from './helpers.ts';

const dist = inject('sharedDist');

interface Runner { child: ChildProcess; lines: string[]; err: string[]; exited: Promise<number | null> }

/** `npm run edge` (edge/local.ts under tsx, as the npm script runs it), with NODE_ENV unset as in a shell. */
function runEdge(args: string[], env: Record<string, string>, preload?: string): Runner {
  const { NODE_ENV: _n, VITEST: _v, ...rest } = process.env;
  const child = spawn(process.execPath, [...(preload ? ['--import', preload] : []), '--import', 'tsx', 'edge/local.ts', ...args], {
    cwd: PROJECT_ROOT, env: { ...rest, ...env }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const err: string[] = [];
  const split = (into: string[]) => {
    let buf = '';
    return (c: Buffer) => {
      buf += c;
      const parts = buf.split('\n');
      buf = parts.pop()!;
      into.push(...parts);
    };
  };
  child.stdout!.on('data', split(lines));
  child.stderr!.on('data', split(err));
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  return { child, lines, err, exited };
}

async function until<T>(what: string, f: () => T | undefined, ms = 300_000): Promise<T> {
  for (const end = Date.now() + ms; ;) {
    const v = f();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** One raw request; resolves with the status line's code and the body. */
function raw(port: number, text: string): Promise<{ status: number; head: string; body: string }> {
  return new Promise((resolve, reject) => {
    const s = connect(port, '127.0.0.1', () => s.write(text));
    let data = '';
    s.on('data', (c) => {
      data += c;
      const [head, body = ''] = data.split('\r\n\r\n');
      const len = /content-length: *(\d+)/i.exec(head)?.[1];
      if (len !== undefined && Buffer.byteLength(body) >= Number(len)) s.end();
    });
    s.on('end', () => {
      const [head, body = ''] = data.split('\r\n\r\n');
      resolve({ status: Number(head.split(' ')[1]), head, body });
    });
    s.on('error', reject);
    s.setTimeout(20_000, () => s.destroy(new Error('no answer')));
  });
}

/** Pids of the processes below `pid` (children, grandchildren, …). */
function descendants(pid: number): { pid: number; comm: string }[] {
  const all = readdirSync('/proc').filter((d) => /^\d+$/.test(d)).flatMap((d) => {
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      return [{ pid: Number(d), ppid: Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]), comm }];
    } catch {
      return [];
    }
  });
  const out: { pid: number; comm: string }[] = [];
  const walk = (p: number) => all.filter((x) => x.ppid === p).forEach((x) => (out.push(x), walk(x.pid)));
  walk(pid);
  return out;
}

// Requests a Worker never sees behind Cloudflare's front end, which workerd's own server answered its own way.
const MALFORMED = [
  'GET * HTTP/1.1\r\nHost: x\r\n\r\n',
  'GET http://x/apis/elements/Fe HTTP/1.1\r\nHost: x\r\n\r\n',
  'OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n',
  'CONNECT x:443 HTTP/1.1\r\nHost: x\r\n\r\n',
  'GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n',
  'FOO /healthz HTTP/1.1\r\nHost: x\r\n\r\n',
  'GET /healthz HTTP/1.1\r\n\r\n',
  'GET /healthz HTTP/1.0\r\n\r\n',
  'GET /apis/elements/Fe HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n',
  'GET /healthz HTTP/9.9\r\nHost: x\r\n\r\n',
];

describe('npm run edge', () => {
  let state: string;
  let watch: string;
  let run: Runner;
  let node: Running;
  let url: string;
  let key: string;
  beforeAll(async () => {
    state = tempDir('almanac-edge-runner-');
    node = await startServer(dist, tempDir('almanac-edge-runner-node-'));
    // Every name the runner looks up is written to its stderr.
    watch = path.join(state, 'dns-watch.mjs');
    writeFileSync(watch, `import dns from 'node:dns';
const orig = dns.lookup;
dns.lookup = function (host, ...rest) { process.stderr.write('dns lookup: ' + host + '\\n'); return orig.call(this, host, ...rest); };
`);
    run = runEdge([], { ALMANAC_STATE_DIR: state, ALMANAC_DIST: dist, PORT: '0', HOST: '127.0.0.1', ALMANAC_DRAIN_SECONDS: '30' }, watch);
    const ready = await until('the ready line', () => run.lines.find((l) => l.startsWith('ready; try: ')) ?? (run.child.exitCode !== null ? 'exited' : undefined));
    expect(ready, run.err.join('\n')).not.toBe('exited');
    url = /(http:\/\/\S+)\/apis/.exec(ready)![1];
    key = /X-Service-Key: (\S+)'/.exec(ready)![1];
  }, 600_000);
  afterAll(async () => {
    if (run.child.exitCode === null) run.child.kill('SIGKILL');
    await node?.close();
    cleanup(state);
  });

  it('prints its ready line only after publishing and syncing, and the printed key works at once', async () => {
    const published = run.lines.findIndex((l) => l.startsWith('published '));
    expect(published).toBeGreaterThanOrEqual(0);
    expect(published).toBeLessThan(run.lines.findIndex((l) => l.startsWith('ready; ')));
    const r = await fetch(`${url}/apis/elements/Fe`, { headers: { 'x-service-key': key } });
    expect(r.status).toBe(200);
  });

  it('asks nothing of the network at start', () => {
    const names = run.err.filter((l) => l.startsWith('dns lookup: ')).map((l) => l.slice(12)).filter((h) => !['localhost', '127.0.0.1', '::1'].includes(h));
    expect(names).toEqual([]);
  });

  it('answers malformed requests with the status and error code the Node server gives', async () => {
    const port = (u: string) => Number(new URL(u).port);
    for (const text of MALFORMED) {
      const [a, b] = [await raw(port(node.base), text), await raw(port(url), text)];
      const code = (r: { body: string }) => { try { return JSON.parse(r.body).error?.code ?? JSON.parse(r.body).status; } catch { return r.body.slice(0, 40); } };
      expect([b.status, code(b)], text.split('\r\n')[0]).toEqual([a.status, code(a)]);
    }
  }, 120_000);

  it('sends a Date header, on answers and on errors', async () => {
    for (const p of ['/healthz', '/apis/elements/Fe', '/nothing-here']) {
      const r = await fetch(url + p, { headers: { 'x-service-key': key } });
      expect(Math.abs(Date.parse(r.headers.get('date') ?? '') - Date.now()), p).toBeLessThan(5000);
    }
  });

  it('starts workerd again when it is killed, on the same storage: the release and keys still there', async () => {
    const workerd = descendants(run.child.pid!).filter((p) => p.comm === 'workerd');
    expect(workerd.length).toBe(1);
    process.kill(workerd[0].pid, 'SIGKILL');
    let last = 0;
    for (const end = Date.now() + 60_000; Date.now() < end; await new Promise((r) => setTimeout(r, 250))) {
      last = await fetch(`${url}/apis/elements/Fe`, { headers: { 'x-service-key': key } }).then((r) => r.status, () => -1);
      if (last === 200) break;
    }
    expect(last).toBe(200);
    expect(run.lines.some((l) => /workerd started again/.test(l))).toBe(true);
    expect(descendants(run.child.pid!).filter((p) => p.comm === 'workerd').map((p) => p.pid)).not.toContain(workerd[0].pid);
  }, 120_000);

  it('on SIGTERM stops accepting, finishes the answers in flight, then exits 0', async () => {
    // Six study ranges of 83–100 verses never asked before (~1 MB each, identity, composed
    // cold), read slowly: the signal comes while they are being composed and sent.
    const refs = ['Gen 1:1-4:20', 'Exod 1:1-4:31', 'Lev 1:1-5:15', 'Num 1:1-2:34', 'Deut 1:1-2:37', 'Josh 1:1-5:12'];
    const port = Number(new URL(url).port);
    const slow = refs.map((ref) => new Promise<{ length: number; got: number }>((resolve, reject) => {
      const s = connect(port, '127.0.0.1', () => s.write(`GET /api/v1/study/kjv/range?ref=${encodeURIComponent(ref)} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nConnection: close\r\n\r\n`));
      const chunks: Buffer[] = [];
      s.once('data', () => {
        s.pause();
        setTimeout(() => s.resume(), 1500);
      });
      s.on('data', (c) => chunks.push(c));
      s.on('end', () => {
        const all = Buffer.concat(chunks);
        const at = all.indexOf('\r\n\r\n');
        const head = all.subarray(0, at).toString();
        if (!/^HTTP\/1\.1 200/.test(head)) return reject(new Error(head.split('\r\n')[0]));
        resolve({ length: Number(/content-length: (\d+)/i.exec(head)![1]), got: all.length - at - 4 });
      });
      s.on('error', reject);
    }));
    await new Promise((r) => setTimeout(r, 100)); // all six under way
    run.child.kill('SIGTERM');
    const stopping = await until('the stop line', () => run.lines.find((l) => /SIGTERM: accepting no more connections/.test(l)), 20_000);
    // They were being composed or sent when the signal came.
    expect(Number(/finishing the (\d+) answer/.exec(stopping)?.[1])).toBeGreaterThan(0);
    const refused = await fetch(`${url}/healthz`).then(() => 'answered', (e: Error & { cause?: { code?: string } }) => e.cause?.code);
    expect(refused).toBe('ECONNREFUSED');
    const bodies = await Promise.all(slow);
    for (const b of bodies) expect(b.got).toBe(b.length);
    expect(bodies.reduce((n, b) => n + b.length, 0)).toBeGreaterThan(3e6);
    expect(await run.exited).toBe(0);
    expect(run.lines.at(-1)).toBe('edge: stopped');
  }, 120_000);
});

describe('npm run edge, at the command line', () => {
  it('answers --help with its usage, exit 0, without starting anything', async () => {
    const r = runEdge(['--help'], { ALMANAC_STATE_DIR: tempDir(), ALMANAC_DIST: tempDir() });
    expect(await r.exited).toBe(0);
    expect(r.lines[0]).toMatch(/^usage: npm run edge/);
    expect(r.err.join('\n')).not.toMatch(/\n\s+at /);
  }, 120_000);

  it('refuses an unknown option naming it, exit 2', async () => {
    const r = runEdge(['--bogus-option'], { ALMANAC_STATE_DIR: tempDir(), ALMANAC_DIST: tempDir() });
    expect(await r.exited).toBe(2);
    expect(r.err.join('\n')).toMatch(/Unknown option '--bogus-option'/);
  }, 120_000);

  it('a port in use is one line naming it, exit 1, no stack trace', async () => {
    const busy = netServer();
    await new Promise<void>((r) => busy.listen(0, '127.0.0.1', r));
    const port = (busy.address() as { port: number }).port;
    try {
      const r = runEdge([], { ALMANAC_STATE_DIR: tempDir(), ALMANAC_DIST: tempDir(), PORT: String(port), HOST: '127.0.0.1' });
      expect(await r.exited).toBe(1);
      expect(r.err.join('\n')).toMatch(new RegExp(`^edge: 127\\.0\\.0\\.1:${port} is already in use`));
      expect(r.err.join('\n')).not.toMatch(/\n\s+at /);
    } finally {
      await new Promise<void>((r) => busy.close(() => r()));
    }
  }, 120_000);
});

describe('before a release and the key index are there', () => {
  let state: string;
  let edge: LocalEdge;
  beforeAll(async () => {
    state = tempDir('almanac-edge-ready-');
    edge = await startLocalEdge({ stateDir: state, dist, port: 0, log: quiet, bundled: true, publish: false, sync: false });
  }, 300_000);
  afterAll(async () => {
    await edge?.close(0);
    cleanup(state);
  });

  it('answers a valid key 503 not_ready with Retry-After, never 401, until both are there', async () => {
    const { secret } = new KeyStore(state, quiet).create('basic', 'early');
    const get = () => fetch(`${edge.url}/apis/elements/Fe`, { headers: { 'x-service-key': secret } });
    const expectNotReady = async () => {
      const r = await get();
      expect([r.status, (await r.json()).error.code]).toEqual([503, 'not_ready']);
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
    };
    await expectNotReady(); // nothing yet
    await publishRelease({ ...edge, dist, log: quiet });
    await expectNotReady(); // a release, no key index
    await syncKeys(edge, state);
    let status = 0;
    for (const end = Date.now() + 10_000; Date.now() < end && status !== 200; await new Promise((r) => setTimeout(r, 200))) status = (await get()).status;
    expect(status).toBe(200);
    // A key the index does not know is refused as before.
    const wrong = await fetch(`${edge.url}/apis/elements/Fe`, { headers: { 'x-service-key': 'alm_not-a-key-of-this-deployment' } });
    expect([wrong.status, (await wrong.json()).error.code]).toEqual([401, 'invalid_key']);
  }, 300_000);
});
