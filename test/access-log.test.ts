/**
 * Issue 38 item 6: one JSON access log line per request (never a key), X-Request-Id echoed
 * or generated, the same id in the error log lines about the request, and the log off or
 * sampled by ALMANAC_ACCESS_LOG.
 */
import { spawn } from 'node:child_process';
import net from 'node:net';
import { writeSync } from 'node:fs';
import { describe, expect, inject, it } from 'vitest';
import { createApp, type App } from '../server/node/server.ts';
import { AccessLog, accessLogSample, redactTarget, requestId } from '../server/node/access-log.ts';
import { tempDirs } from './temp.ts';

const dir = tempDirs('almanac-access-');

async function withServer(sample: number, run: (a: { app: App; base: string; lines: () => Record<string, unknown>[]; logs: string[] }) => Promise<void>, quota?: Parameters<typeof createApp>[0]['quota']) {
  let text = '';
  const logs: string[] = [];
  const app = createApp({ dist: inject('sharedDist'), stateDir: dir(), log: (m) => logs.push(m), accessLog: new AccessLog({ sample, sink: (t) => (text += t) }), quota });
  await new Promise<void>((r) => app.server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(app.server.address() as net.AddressInfo).port}`;
  const lines = () => text.split('\n').filter(Boolean).map((l) => JSON.parse(l));
  try {
    await run({ app, base, lines, logs });
  } finally {
    await app.close();
  }
}
const settle = () => new Promise((r) => setTimeout(r, 30));

describe('access log', () => {
  it('one JSON line per request: time, id, method, path, status, bytes, ms, key id (never the key), lane; the id is X-Request-Id', async () => {
    await withServer(1, async ({ app, base, lines }) => {
      const { secret, record } = app.keys.create('development', 'log');
      const r = await fetch(`${base}/apis/elements/Fe`, { headers: { 'x-service-key': secret } });
      await r.arrayBuffer();
      const unknown = await fetch(`${base}/apis/elements?q=iron&limit=2`, { headers: { 'x-service-key': 'alm_not_a_real_key' } });
      await unknown.arrayBuffer();
      await settle();
      const [one, two] = lines();
      expect(one).toMatchObject({ id: r.headers.get('x-request-id'), method: 'GET', path: '/apis/elements/Fe', status: 200, bytes: Number(r.headers.get('content-length')), key: record.id, lane: 'lookup' });
      expect(new Date(String(one.time)).toISOString()).toBe(one.time);
      // The wall clock when it was logged (made at the flush from the monotonic clock: issue 41).
      expect(Math.abs(Date.parse(String(one.time)) - Date.now())).toBeLessThan(5_000);
      expect(one.ms).toBeGreaterThanOrEqual(0);
      expect(one.ip).toBe('127.0.0.1');
      expect(two).toMatchObject({ path: '/apis/elements', query: 'q=iron&limit=2', status: 401, lane: 'search' });
      expect(two.key).toBeUndefined();
      expect(JSON.stringify(lines())).not.toContain(secret);
      expect(r.headers.get('access-control-expose-headers')).toMatch(/X-Request-Id/);
    });
  });

  it('never a credential: key= (plain or percent-encoded) and key-shaped values are REDACTED', async () => {
    await withServer(1, async ({ app, base, lines }) => {
      const { secret } = app.keys.create('development', 'log');
      for (const url of [`/api/v1/translations?key=${secret}`, `/api/v1/translations?k%65y=${secret}`, `/apis/elements/${secret}`, `/apis/elements?name=${secret}`]) {
        await (await fetch(base + url)).arrayBuffer();
      }
      await settle();
      const text = JSON.stringify(lines());
      expect(lines()).toHaveLength(4);
      expect(text).not.toContain(secret.slice(4));
      expect(lines().map((l) => `${l.path}${l.query ? `?${l.query}` : ''}`)).toEqual([
        '/api/v1/translations?key=REDACTED', '/api/v1/translations?key=REDACTED', '/apis/elements/REDACTED', '/apis/elements?name=REDACTED',
      ]);
    });
  });

  it('X-Request-Id: a plain token sent is echoed, anything else replaced; the same id begins the error log line about the request', async () => {
    let fail = false;
    await withServer(1, async ({ app, base, lines, logs }) => {
      const { secret } = app.keys.create('development', 'log');
      const echoed = await fetch(`${base}/healthz`, { headers: { 'x-request-id': 'lb-7f3a.42' } });
      expect(echoed.headers.get('x-request-id')).toBe('lb-7f3a.42');
      const replaced = await fetch(`${base}/healthz`, { headers: { 'x-request-id': 'two words"<script>' } });
      expect(replaced.headers.get('x-request-id')).toMatch(/^[0-9a-f]{8}-[0-9a-z]+$/);
      fail = true;
      const refused = await fetch(`${base}/apis/elements/H`, { headers: { 'x-service-key': secret, 'x-request-id': 'trace-503' } });
      expect(refused.status).toBe(503);
      expect(refused.headers.get('x-request-id')).toBe('trace-503');
      await settle();
      expect(logs.find((l) => l.includes('could not be counted'))).toMatch(/^request trace-503: /);
      expect(lines().at(-1)).toMatchObject({ id: 'trace-503', status: 503 });
    }, { io: { write: (fd, buf, off, len) => {
      if (fail) throw Object.assign(new Error('no space'), { code: 'ENOSPC' });
      return writeSync(fd, buf, off, len);
    } } });
  });

  it('a client that leaves while its request waits for a slot: the request is dropped, logged 499 and aborted', async () => {
    process.env.ALMANAC_LANES = 'range=1';
    try {
      await withServer(1, async ({ app, base, lines }) => {
        const { secret } = app.keys.create('development', 'log');
        const range = (c: number) => `/api/v1/study/kjv/range?from=gen.${c}.1&to=gen.${c + 1}.5`;
        const first = fetch(base + range(1), { headers: { authorization: `Bearer ${secret}` } });
        // The second range waits for the first's slot; its client leaves meanwhile.
        const socket = net.connect(Number(new URL(base).port), '127.0.0.1');
        socket.write(`GET ${range(7)} HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer ${secret}\r\n\r\n`);
        for (let j = 0; j < 500 && !app.admission.queued('range'); j++) await new Promise((r) => setTimeout(r, 2));
        expect(app.admission.queued('range')).toBe(1);
        socket.destroy();
        expect((await first).status).toBe(200);
        for (let i = 0; i < 100 && lines().length < 2; i++) await settle();
        expect(lines().find((l) => l.status === 499)).toMatchObject({ path: '/api/v1/study/kjv/range', status: 499, aborted: true, lane: 'range' });
      });
    } finally {
      delete process.env.ALMANAC_LANES;
    }
  });

  it('lines are made at the flush from what was taken when each request was logged: in order, every field, the time of logging', async () => {
    let text = '';
    const log = new AccessLog({ sample: 1, sink: (t) => (text += t) });
    const start = performance.now();
    const before = Date.now();
    for (let i = 0; i < 3000; i++) {
      log.log({ id: `r-${i}`, method: 'GET', url: i % 3 ? `/apis/elements/${i}` : `/apis/é?q=${i}&key=alm_x`, status: 200 + (i % 3), bytes: i, start, key: i % 2 ? 'key_0123456789ab' : undefined, lane: 'lookup', ip: '::1', aborted: i === 7 || undefined });
    }
    const after = Date.now();
    log.flushSync();
    const lines = text.trimEnd().split('\n').map((l) => JSON.parse(l));
    expect(lines.map((l) => l.id)).toEqual(Array.from({ length: 3000 }, (_, i) => `r-${i}`));
    expect(lines[1]).toMatchObject({ method: 'GET', path: '/apis/elements/1', status: 201, bytes: 1, key: 'key_0123456789ab', lane: 'lookup', ip: '::1' });
    expect(lines[0]).toMatchObject({ path: '/apis/é', query: 'q=0&key=REDACTED', status: 200 });
    expect(lines[0].key).toBeUndefined();
    expect(lines[7].aborted).toBe(true);
    for (const l of lines) {
      const t = Date.parse(l.time);
      expect(t).toBeGreaterThanOrEqual(before - 50);
      expect(t).toBeLessThanOrEqual(after + 50);
      expect(l.ms).toBeGreaterThanOrEqual(0);
    }
  });

  it('sampled: a fraction logs about that share, and every 5xx; off logs nothing', async () => {
    await withServer(0.25, async ({ base, lines }) => {
      for (let i = 0; i < 200; i++) await (await fetch(`${base}/healthz`)).arrayBuffer();
      await settle();
      expect(lines().length).toBeGreaterThan(20);
      expect(lines().length).toBeLessThan(90);
    });
    const off = new AccessLog({ sample: 0, sink: () => { throw new Error('logged while off'); } });
    expect(off.on).toBe(false);
    let text = '';
    const sampled = new AccessLog({ sample: 0.000001, sink: (t) => (text += t) });
    sampled.log({ id: 'x', method: 'GET', url: '/', status: 503, bytes: 0, start: performance.now() });
    await settle();
    expect(JSON.parse(text)).toMatchObject({ status: 503 });
  });

  // Stdout as a pipe, the way a supervisor or container runtime collects it (issue 41): a
  // child logs 20,000 lines (~4 MB) while its reader pauses. Node makes that pipe
  // non-blocking, so a write to the full pipe failed (EAGAIN) and the lines were lost
  // uncounted (1,103 of 20,000 arrived, no "dropped" line, before the fix).
  const childLogging = (lines: number, readAfterMs: number, closeReader = false) => new Promise<{ logged: number; dropped: number; stderr: string; code: number | null }>((resolve) => {
    const c = spawn(process.execPath, ['--import', 'tsx', '-e', `
      import { AccessLog } from './server/node/access-log.ts';
      console.log('up'); // as the server's start lines: process.stdout exists, its pipe non-blocking
      const log = new AccessLog({ sample: 1 });
      let maxLag = 0, last = performance.now();
      const tick = setInterval(() => { const now = performance.now(); maxLag = Math.max(maxLag, now - last - 5); last = now; }, 5);
      for (let i = 0; i < ${lines}; i += 100) {
        for (let j = 0; j < 100; j++) log.log({ id: 'r' + (i + j), method: 'GET', url: '/apis/elements/' + 'x'.repeat(120), status: 200, bytes: 1, start: performance.now() });
        await new Promise((r) => setImmediate(r));
      }
      await new Promise((r) => setTimeout(r, ${readAfterMs} + 800));
      clearInterval(tick);
      log.flushSync();
      process.stderr.write(JSON.stringify({ maxLag, alive: true }));
    `], { cwd: process.cwd(), stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NODE_OPTIONS: '' } });
    let out = '', stderr = '';
    c.stderr.on('data', (d) => (stderr += d));
    c.stdout.pause();
    setTimeout(() => (closeReader ? c.stdout.destroy() : c.stdout.on('data', (d) => (out += d)).resume()), readAfterMs);
    c.on('close', (code) => {
      const got = out.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l));
      resolve({ logged: got.filter((l) => l.id).length, dropped: got.reduce((n, l) => n + (l.dropped ?? 0), 0), stderr, code });
    });
  });

  it('stdout a pipe whose reader pauses: up to 1 MiB waits, the rest is dropped and counted, serving never stalls', async () => {
    const r = await childLogging(20_000, 1500);
    expect(r.code).toBe(0);
    expect(r.logged + r.dropped).toBe(20_000);
    expect(r.logged).toBeGreaterThan(5000); // ~1 MiB of lines waited for the reader
    expect(r.dropped).toBeGreaterThan(0);
    expect(JSON.parse(r.stderr).maxLag).toBeLessThan(500);
  }, 30_000);

  it('stdout a pipe whose reader is gone (EPIPE): logging stops, the process goes on', async () => {
    const r = await childLogging(20_000, 300, true);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stderr)).toMatchObject({ alive: true });
  }, 30_000);

  it('ALMANAC_ACCESS_LOG: on, off or a fraction, else a clear error; request ids are unique', () => {
    expect(accessLogSample({})).toBe(1);
    expect(accessLogSample({ ALMANAC_ACCESS_LOG: 'off' })).toBe(0);
    expect(accessLogSample({ ALMANAC_ACCESS_LOG: '0.1' })).toBe(0.1);
    for (const bad of ['yes', '2', '-0.5', '10%']) expect(() => accessLogSample({ ALMANAC_ACCESS_LOG: bad }), bad).toThrow(/ALMANAC_ACCESS_LOG must be/);
    expect(redactTarget('/a/b?x=1&KEY=alm_abc')).toEqual({ path: '/a/b', query: 'x=1&KEY=REDACTED' });
    expect(new Set(Array.from({ length: 1000 }, () => requestId(undefined))).size).toBe(1000);
  });
});
