/**
 * `serve --workers N` (issue 14): a real primary with two workers. The monthly quota is
 * exact across workers, a worker killed with SIGKILL mid-load loses no count and is
 * replaced, and a killed primary loses none either (README "Scale-out").
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build } from '../server/cli/build.ts';
import { PROJECT_ROOT } from '../pipeline/paths.ts';
import elements from '../sources/elements.ts';
import { KeyStore } from '../server/state/keys.ts';
import { monthOf } from '../server/state/plans.ts';
import { QuotaStore } from '../server/state/quota.ts';
import { cleanup, quiet, tempDir } from './helpers.ts';

let dist: string;
let cache: string;
const dirs: string[] = [];
beforeAll(async () => {
  dist = tempDir('almanac-cluster-dist-');
  cache = tempDir('almanac-cluster-cache-');
  await build({ env: { ALMANAC_DIST: dist, ALMANAC_CACHE: cache }, sources: [elements], log: quiet });
});
afterAll(() => cleanup(dist, cache, ...dirs));

interface Cluster { child: ChildProcess; base: string; pids: number[]; out: () => string }

function serveCluster(state: string, workers = 2): Promise<Cluster> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/cli/serve.ts', '--workers', String(workers)], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, ALMANAC_DIST: dist, ALMANAC_STATE_DIR: state, PORT: '0', HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stderr!.on('data', (c) => { out += c; });
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (c) => {
      out += c;
      const m = /on (http:\/\/[\d.]+:\d+) with \d+ workers \(pids ([\d ]+)\)/.exec(out);
      if (m) resolve({ child, base: m[1], pids: m[2].split(' ').map(Number), out: () => out });
    });
    child.on('exit', (code) => reject(new Error(`server exited ${code}: ${out}`)));
  });
}

const exited = (child: ChildProcess) => new Promise((r) => (child.exitCode !== null || child.signalCode !== null ? r(null) : child.once('exit', r)));
const alive = (pid: number) => { try { process.kill(pid, 0); return true; } catch { return false; } };

/** A state folder whose key has `left` requests left of the development plan's month. */
function stateWithRemaining(left: number) {
  const state = tempDir('almanac-cluster-state-');
  dirs.push(state);
  const { secret, record } = new KeyStore(state).create('development', 'cluster test');
  writeFileSync(path.join(state, 'usage.snapshot.json'), JSON.stringify({
    generation: 0, counts: { [record.id]: { [monthOf(Date.now())]: 10_000_000 - left } }, last_used: {},
  }));
  writeFileSync(path.join(state, 'usage.0.journal'), '');
  return { state, secret, id: record.id };
}

describe('serve --workers 2', () => {
  it('serves exactly the monthly quota across both workers under parallel load, then 429s', async () => {
    const { state, secret, id } = stateWithRemaining(200);
    const c = await serveCluster(state);
    try {
      expect(c.pids.length).toBe(2);
      const codes: Record<string, number> = {};
      let next = 0;
      // 24 clients in parallel, 400 requests: the two workers each see part of them.
      await Promise.all(Array.from({ length: 24 }, async () => {
        while (next < 400) {
          next++;
          const r = await fetch(`${c.base}/apis/elements/Fe`, { headers: { 'x-service-key': secret } });
          const code = r.status === 200 ? '200' : (await r.json()).error.code;
          if (r.status === 200) await r.arrayBuffer();
          codes[code] = (codes[code] ?? 0) + 1;
        }
      }));
      expect(codes).toEqual({ 200: 200, monthly_quota_exceeded: 200 });
    } finally {
      c.child.kill('SIGTERM');
      await exited(c.child);
    }
    expect(new QuotaStore(state).used(id)).toBe(10_000_000);
  });

  it('holds one burst bucket per key across workers', async () => {
    const state = tempDir('almanac-cluster-state-');
    dirs.push(state);
    const secret = new KeyStore(state).create('basic', 'burst').secret; // 10 per second
    const c = await serveCluster(state);
    try {
      const res = await Promise.all(Array.from({ length: 40 }, () => fetch(`${c.base}/apis/elements/H`, { headers: { 'x-service-key': secret } }).then(async (r) => { await r.arrayBuffer(); return r.status; })));
      const ok = res.filter((s) => s === 200).length;
      // 10 tokens, plus what refills (10 per second) while the 40 arrive.
      expect(ok).toBeGreaterThanOrEqual(10);
      expect(ok).toBeLessThan(20);
      expect(res.filter((s) => s === 429).length).toBe(40 - ok);
    } finally {
      c.child.kill('SIGTERM');
      await exited(c.child);
    }
  });

  it('keeps every count when a worker and then the primary are killed with SIGKILL, and replaces the worker', async () => {
    const { state, secret, id } = stateWithRemaining(1_000_000);
    const c = await serveCluster(state);
    let ok = 0;
    let failed = 0;
    let stop = false;
    const clients = Array.from({ length: 8 }, async () => {
      while (!stop) {
        try {
          const r = await fetch(`${c.base}/apis/elements/Fe`, { headers: { 'x-service-key': secret } });
          await r.arrayBuffer();
          if (r.status === 200) ok++;
          else failed++;
        } catch {
          failed++; // the connection was on the killed worker
        }
      }
    });
    try {
      while (ok < 150) await new Promise((r) => setTimeout(r, 20));
      process.kill(c.pids[0], 'SIGKILL');
      const before = ok;
      // The primary replaces it; requests keep being served meanwhile.
      const deadline = Date.now() + 60_000;
      while (!/starting another/.test(c.out()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(c.out()).toMatch(new RegExp(`worker pid ${c.pids[0]} exited \\(SIGKILL\\); starting another`));
      while (ok < before + 150 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(ok).toBeGreaterThanOrEqual(before + 150);
      c.child.kill('SIGKILL');
      await exited(c.child);
    } finally {
      stop = true;
      await Promise.all(clients);
      c.child.kill('SIGKILL');
    }
    // Every answered request is in the journal; at most the requests in flight when a
    // process died (8 clients) may be counted without an answer.
    const used = new QuotaStore(state).used(id) - (10_000_000 - 1_000_000);
    expect(used).toBeGreaterThanOrEqual(ok);
    expect(used).toBeLessThanOrEqual(ok + 16);
    // The workers leave once the primary is gone, and the next start takes the stale lock over.
    const deadline = Date.now() + 10_000;
    while (c.pids.slice(1).some(alive) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(c.pids.slice(1).filter(alive)).toEqual([]);
    const again = await serveCluster(state);
    try {
      const r = await fetch(`${again.base}/apis/elements/Fe`, { headers: { 'x-service-key': secret } });
      expect(r.status).toBe(200);
      expect(r.headers.get('ratelimit')).toMatch(new RegExp(`^"monthly";r=${1_000_000 - used - 1};`));
    } finally {
      again.child.kill('SIGTERM');
      await exited(again.child);
    }
  }, 180_000);
});
