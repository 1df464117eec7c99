/**
 * Issue 38 items 4 and 7: a server stopped by SIGTERM (alone, and with --workers) finishes
 * the responses in flight before it exits, within a deadline, refusing new connections
 * meanwhile; readiness (/readyz) is apart from liveness (/healthz): 503 not_ready while
 * draining, warming the search indexes, or unable to write the state folder.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { describe, expect, inject, it, vi } from 'vitest';
import { PROJECT_ROOT } from '../pipeline/paths.ts';
import { serve } from '../server/cli/serve.ts';
import { Release } from '../server/release/release.ts';
import { KeyStore } from '../server/state/keys.ts';
import { QuotaStore } from '../server/state/quota.ts';
import { drainMs } from '../server/node/stop.ts';
import { quiet, startServer } from './helpers.ts';
import { tempDirs } from './temp.ts';

const dir = tempDirs('almanac-lifecycle-');
/** The platform's OpenAPI document: 3.7 MB (the body), more than the kernel's socket buffers hold for a slow client. */
const BIG = '/apis/openapi.json';
/** A keyed answer of about 1 MB (a study range), to check it is counted before the state closes. */
const KEYED = '/api/v1/study/kjv/range?from=gen.1.1&to=gen.4.20';

/** `npm run serve` as a process (through tsx, as quota.test.ts does), with its base URL once it listens. */
async function spawnServe(env: Record<string, string>, args: string[] = []) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/cli/serve.ts', ...args], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, ALMANAC_DIST: inject('sharedDist'), PORT: '0', HOST: '127.0.0.1', ALMANAC_ACCESS_LOG: 'off', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr!.on('data', (c) => (err += c));
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (c) => {
      out += c;
      const m = /on http:\/\/[\d.]+:(\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    child.once('exit', (code) => reject(new Error(`serve exited ${code}: ${err}`)));
  });
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  return { child, port, exited, stderr: () => err };
}

/**
 * A GET from a client with a small receive buffer (8 KiB) that reads 8 KiB every 10 ms, or
 * nothing (`stall`): the kernel then holds little of the ~1 MB body and the server holds the
 * rest, which a stop that closes sockets at once loses (a client of Node's own cannot shrink
 * its socket's buffer, so this one is Python's standard library, as sqlite-bundle.test.ts uses).
 */
const CLIENT = String.raw`
import socket, sys, time
port, target, key, stall = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4] == '1'
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
s.connect(('127.0.0.1', port))
s.sendall(('GET %s HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer %s\r\n\r\n' % (target, key)).encode())
data = s.recv(8192)
print('started', flush=True)
if stall:
    time.sleep(600)
while True:
    c = s.recv(8192)
    if not c:
        break
    data += c
    time.sleep(0.002)
head, _, body = data.partition(b'\r\n\r\n')
length = [l for l in head.decode().split('\r\n') if l.lower().startswith('content-length:')]
print('done', head.split(b' ')[1].decode(), length[0].split(':')[1].strip() if length else -1, len(body), flush=True)
`;
const hasPython = spawnSync('python3', ['--version']).status === 0;
function slowGet(port: number, target: string, key: string, stall = false) {
  const py = spawn('python3', ['-c', CLIENT, String(port), target, key, stall ? '1' : '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  let first: () => void;
  const started = new Promise<void>((r) => (first = r));
  py.stdout.on('data', (c) => {
    out += c;
    if (out.includes('started')) first();
  });
  const done = new Promise<{ status: number; length: number; got: number }>((resolve) => py.once('exit', () => {
    const m = /done (\d+) (-?\d+) (\d+)/.exec(out);
    resolve(m ? { status: Number(m[1]), length: Number(m[2]), got: Number(m[3]) } : { status: 0, length: -1, got: 0 });
  }));
  return { started, done, kill: () => py.kill('SIGKILL') };
}
const NEEDS_PYTHON = hasPython ? '' : ' (skipped: needs python3 for a client with a small receive buffer)';

const refused = (port: number) => new Promise<boolean>((resolve) => {
  const s = net.connect(port, '127.0.0.1');
  s.once('connect', () => { s.destroy(); resolve(false); });
  s.once('error', (e: NodeJS.ErrnoException) => resolve(e.code === 'ECONNREFUSED'));
});

async function stopWhileSending(workers?: string) {
  const state = dir();
  const { secret, record } = new KeyStore(state).create('development', 'drain');
  const srv = await spawnServe({ ALMANAC_STATE_DIR: state, ALMANAC_DRAIN_MS: '60000' }, workers ? ['--workers', workers] : []);
  try {
    const get = slowGet(srv.port, BIG, secret);
    const keyed = slowGet(srv.port, KEYED, secret);
    await Promise.all([get.started, keyed.started]);
    srv.child.kill('SIGTERM');
    // New connections are refused at once, while the response in flight goes on.
    for (let i = 0; i < 100 && !(await refused(srv.port)); i++) await new Promise((r) => setTimeout(r, 20));
    expect(await refused(srv.port)).toBe(true);
    for (const g of [await get.done, await keyed.done]) {
      expect(g.status).toBe(200);
      expect(g.length).toBeGreaterThan(500_000);
      expect(g.got).toBe(g.length);
    }
    expect(await srv.exited).toBe(0);
    expect(new QuotaStore(state, { readOnly: true, log: quiet }).used(record.id)).toBe(1);
  } finally {
    srv.child.kill('SIGKILL');
  }
}

describe('item 4: SIGTERM lets the responses in flight finish', () => {
  it.skipIf(!hasPython)(`one process: the whole body arrives, new connections are refused meanwhile, exit 0, the request counted${NEEDS_PYTHON}`, () => stopWhileSending());

  it.skipIf(!hasPython)(`--workers 2: the same through a worker, the primary counting until its workers have drained${NEEDS_PYTHON}`, () => stopWhileSending('2'));

  it.skipIf(!hasPython)(`a response still in flight at ALMANAC_DRAIN_MS is cut, and the process exits (a client that never reads cannot hold it)${NEEDS_PYTHON}`, async () => {
    const state = dir();
    const { secret } = new KeyStore(state).create('development', 'stall');
    const srv = await spawnServe({ ALMANAC_STATE_DIR: state, ALMANAC_DRAIN_MS: '1500' });
    try {
      const get = slowGet(srv.port, BIG, secret, true);
      await get.started;
      const t = performance.now();
      srv.child.kill('SIGTERM');
      expect(await srv.exited).toBe(0);
      expect(performance.now() - t).toBeGreaterThan(1400);
      expect(srv.stderr()).toMatch(/responses still in flight after 1500 ms are cut/);
      get.kill();
    } finally {
      srv.child.kill('SIGKILL');
    }
  });

  it('ALMANAC_DRAIN_MS is checked at start', () => {
    expect(drainMs({})).toBe(10_000);
    expect(drainMs({ ALMANAC_DRAIN_MS: '0' })).toBe(0);
    for (const bad of ['-1', '1.5', '10s', '', '700000']) expect(() => drainMs({ ALMANAC_DRAIN_MS: bad }), bad).toThrow(/ALMANAC_DRAIN_MS must be/);
  });
});

describe('item 7: readiness apart from liveness', () => {
  it.skipIf(!hasPython)(`/readyz is 200 when ready; 503 not_ready while draining, with /healthz still 200${NEEDS_PYTHON}`, async () => {
    const srv = await startServer(inject('sharedDist'), dir());
    const key = srv.key();
    try {
      const ready = await fetch(`${srv.base}/readyz`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toMatchObject({ status: 'ready', release: srv.app.release().id });
      // A request in flight keeps the server draining; ask the core itself meanwhile.
      const get = slowGet(Number(new URL(srv.base).port), BIG, key);
      await get.started;
      const closing = srv.app.close(30_000);
      const ask = (url: string) => srv.app.core.handle({ method: 'GET', url, header: () => undefined });
      const during = await ask('/readyz');
      expect(during.status).toBe(503);
      const body = JSON.parse(String(during.body));
      expect(body.error).toMatchObject({ code: 'not_ready', details: { reasons: ['draining: the server is shutting down'] } });
      expect((await ask('/healthz')).status).toBe(200);
      expect((await get.done).status).toBe(200);
      await closing;
    } finally {
      await srv.close();
    }
  });

  it('/readyz is 503 warming until the search indexes are loaded, while /healthz and lookups answer', async () => {
    const state = dir();
    let finish: () => void = () => {};
    const warm = vi.spyOn(Release.prototype, 'warmSearch').mockImplementation(() => new Promise<void>((resolve) => (finish = resolve)));
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    const before = (['SIGINT', 'SIGTERM'] as const).map((s) => process.listeners(s));
    try {
      const app = await serve({ ALMANAC_DIST: inject('sharedDist'), ALMANAC_STATE_DIR: state, HOST: '127.0.0.1', PORT: '0', ALMANAC_ACCESS_LOG: 'off' });
      try {
        const base = `http://127.0.0.1:${(app.server.address() as net.AddressInfo).port}`;
        const r = await fetch(`${base}/readyz`);
        expect(r.status).toBe(503);
        expect((await r.json()).error.details.reasons[0]).toMatch(/^warming: the search indexes of release \S+ are loading$/);
        expect(r.headers.get('retry-after')).toBe('5');
        expect((await fetch(`${base}/healthz`)).status).toBe(200);
        expect((await fetch(`${base}/readyz`)).status).toBe(503);
        finish();
        // Then the panels check and one warm-up study (api/v1/study-warm.ts, a 100-verse range: ~0.1 s).
        let status = 0;
        for (let i = 0; i < 500 && status !== 200; i++) {
          await new Promise((res) => setTimeout(res, 20));
          status = (await fetch(`${base}/readyz`)).status;
        }
        expect(status).toBe(200);
      } finally {
        await app.close();
      }
    } finally {
      warm.mockRestore();
      log.mockRestore();
      (['SIGINT', 'SIGTERM'] as const).forEach((s, k) => process.listeners(s).filter((l) => !before[k].includes(l)).forEach((l) => process.off(s, l)));
    }
  });

  it('/readyz is 503 while the state folder cannot be written, and ready again once it can (probed at most once a second)', async () => {
    const srv = await startServer(inject('sharedDist'), dir());
    try {
      expect((await fetch(`${srv.base}/readyz`)).status).toBe(200);
      // The probe's file cannot be created: a folder stands in its place (as a full or read-only disk refuses it).
      const blocker = path.join(srv.stateDir, `.probe-${process.pid}`);
      mkdirSync(blocker);
      await new Promise((r) => setTimeout(r, 1100));
      const r = await fetch(`${srv.base}/readyz`);
      expect(r.status).toBe(503);
      expect((await r.json()).error.details.reasons).toEqual([expect.stringMatching(/^the state folder .* cannot be written \(EISDIR\)$/)]);
      expect((await fetch(`${srv.base}/healthz`)).status).toBe(200);
      rmSync(blocker, { recursive: true });
      await new Promise((r) => setTimeout(r, 1100));
      expect((await fetch(`${srv.base}/readyz`)).status).toBe(200);
    } finally {
      await srv.close();
    }
  });
});
