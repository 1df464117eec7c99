/**
 * The background check of a release's files (server/release/background-check.ts; issue 41,
 * item 4's tail): a damaged pack is found with no request reading it, a file checked in the
 * background is not hashed again by its first read, a file changed while checked is not
 * recorded, and a release switch or shutdown stops the check.
 */
import { cpSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { build } from '../server/cli/build.ts';
import { currentPointer, keyBucketPath, packPath, releaseDir } from '../pipeline/paths.ts';
import { readCurrent } from '../pipeline/writer.ts';
import { fsRelease } from '../server/release/fs-reader.ts';
import { checkOrder } from '../server/release/background-check.ts';
import type { Release } from '../server/release/release.ts';
import { createApp } from '../server/node/server.ts';
import { runInTurns } from '../server/search/turns.ts';
import elements from '../sources/elements.ts';
import { quiet } from './helpers.ts';
import { tempDirs } from './temp.ts';

const dir = tempDirs('almanac-bgcheck-');

async function tinyRelease() {
  const dist = dir();
  await build({ env: { ALMANAC_DIST: dist, ALMANAC_CACHE: dir() }, sources: [elements], log: quiet });
  return { dist, rel: releaseDir(dist, readCurrent(dist)!) };
}

/** Counts the release's scans (the reads that hash a pack), and lets a test hold or alter them. */
function countScans(r: Release, around?: (p: string, between: (() => Promise<void>) | undefined) => Promise<void>) {
  const calls: { path: string; background: boolean }[] = [];
  const scan = r.reader.scan!.bind(r.reader);
  Object.assign(r.reader, {
    scan: async (p: string, between?: () => Promise<void>) => {
      calls.push({ path: p, background: !!between });
      await around?.(p, between);
      return scan(p, between);
    },
  });
  return calls;
}

/** Polls `cond` every 20 ms until it holds (a generous bound for a busy machine: a behaviour test, not a timing). */
async function until(cond: () => boolean | Promise<boolean>, what: string, ms = 20_000) {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 20))) if (await cond()) return;
  throw new Error(`timed out waiting for ${what}`);
}

async function listening(dist: string, verify = true) {
  const logs: string[] = [];
  const app = createApp({ dist, stateDir: dir(), log: (m) => logs.push(m), verify });
  await new Promise<void>((r) => app.server.listen(0, '127.0.0.1', r));
  return { app, logs, base: `http://127.0.0.1:${(app.server.address() as { port: number }).port}` };
}

describe('background check of a release', () => {
  it('orders scripture packs first, then the other packs, then every other file once', () => {
    const r = fsRelease(inject('sharedDist'));
    const order = checkOrder(r.datasets, Object.keys(r.manifest.files));
    expect(order.length).toBe(Object.keys(r.manifest.files).length);
    expect(new Set(order.map((o) => o.rel)).size).toBe(order.length);
    const firstOther = order.findIndex((o) => !o.pack);
    expect(order.slice(firstOther).every((o) => !o.pack)).toBe(true);
    const scripture = order.filter((o) => o.pack && /^bible(\/|-study\/)/.test(o.rel)).length;
    if (scripture) expect(order.slice(0, scripture).every((o) => /^bible(\/|-study\/)/.test(o.rel))).toBe(true);
  });

  it("gives the 'background' lane a turn only when no request slice or index load waits", async () => {
    const order: string[] = [];
    function* steps(name: string, n: number): Generator<void, void> {
      for (let i = 0; i < n; i++) {
        order.push(name);
        yield;
      }
    }
    // The check begins first; a load and a request's ranking begun after it still go first.
    const check = runInTurns(steps('check', 20), 0, 'background');
    await Promise.all([check, runInTurns(steps('load', 20), 0, 'load'), runInTurns(steps('request', 20), 0, 'request')]);
    const lastOther = Math.max(order.lastIndexOf('load'), order.lastIndexOf('request'));
    expect(order.slice(0, lastOther).filter((n) => n === 'check').length).toBeLessThanOrEqual(1); // its first slice, begun alone
    expect(order.length).toBe(60);
  });

  it('(a) reports a damaged pack corrupt with no request reading it: logged, and /healthz lists it', async () => {
    const { dist, rel } = await tinyRelease();
    const file = path.join(rel, packPath('elements', 0));
    const bytes = readFileSync(file);
    bytes.write('Hydrogem', bytes.indexOf('Hydrogen')); // the same size: only the sha256 tells
    writeFileSync(file, bytes);
    const { app, base, logs } = await listening(dist);
    try {
      app.warm();
      await until(() => logs.some((l) => /checked against their sha256 in the background/.test(l)), 'the background check to finish');
      expect(logs.join('\n')).toMatch(/elements\/packs\/0\.ndjson does not match its manifest checksum/);
      expect(logs.join('\n')).toMatch(/, 1 corrupt/);
      const h = await (await fetch(`${base}/healthz`)).json();
      expect(h).toMatchObject({ status: 'degraded', corrupt_files: ['elements/packs/0.ndjson'] });
    } finally {
      await app.close();
    }
  });

  it('is off with verify: false (ALMANAC_VERIFY=off): a damaged pack waits for its first read', async () => {
    const { dist, rel } = await tinyRelease();
    const file = path.join(rel, packPath('elements', 0));
    const bytes = readFileSync(file);
    bytes.write('Hydrogem', bytes.indexOf('Hydrogen'));
    writeFileSync(file, bytes);
    const { app, base } = await listening(dist, false);
    try {
      const calls = countScans(app.release());
      app.warm();
      await until(async () => (await (await fetch(`${base}/readyz`)).json()).status === 'ready', 'the warm to end');
      await new Promise((r) => setTimeout(r, 200));
      expect(calls).toEqual([]);
      expect((await (await fetch(`${base}/healthz`)).json()).status).toBe('ok');
    } finally {
      await app.close();
    }
  });

  it('(b) records what a first read records: the first read of a pack neither scans nor hashes it, nor does that of a key bucket', async () => {
    const { dist, rel } = await tinyRelease();
    const bucket = path.join(rel, keyBucketPath('elements', 0));
    const T = Math.floor(Date.now() / 1000) - 60; // whole seconds: a mtime that can be put back exactly
    utimesSync(bucket, T, T);
    const r = fsRelease(dist);
    const done = await r.checkInBackground(() => false)!;
    expect(done).toMatchObject({ stopped: false, corrupt: 0, checked: Object.keys(r.manifest.files).length });
    const calls = countScans(r);
    const record = await r.record('elements', 5);
    expect(JSON.parse(record.toString()).id).toBeTruthy();
    expect(calls).toEqual([]); // without the background check: one scan, which hashes the pack
    // A key bucket (read whole): its bytes changed under the same signature (size, inode,
    // mtime put back) are served as checked, so its first read did not hash them.
    const b = readFileSync(bucket);
    const i = b.indexOf('"H"');
    b.write('"h"', i);
    writeFileSync(bucket, b);
    utimesSync(bucket, T, T);
    expect(await r.lookup('elements', 'h')).toBeTypeOf('number'); // a first read that hashed would answer release_corrupt
    expect(r.corrupt.size).toBe(0);
  });

  it('does not record a file that changed while it was checked: its first read checks it', async () => {
    const { dist, rel } = await tinyRelease();
    const r = fsRelease(dist);
    const file = path.join(rel, packPath('elements', 0));
    const scan = r.reader.scan!.bind(r.reader);
    let touched = false;
    // Rewritten (a later mtime: any write sets one) after the check opened it, before its step is hashed.
    Object.assign(r.reader, {
      scan: (p: string, between?: () => Promise<void>) => scan(p, between && (async () => {
        await between();
        if (!touched && p.endsWith(packPath('elements', 0))) {
          touched = true;
          const t = new Date(Date.now() + 5000);
          utimesSync(file, t, t);
        }
      })),
    });
    const done = await r.checkInBackground(() => false)!;
    expect(touched).toBe(true);
    expect(done.left).toBe(1);
    const calls = countScans(r);
    await r.record('elements', 5);
    expect(calls).toEqual([{ path: `releases/${r.id}/${packPath('elements', 0)}`, background: false }]);
    expect(r.corrupt.size).toBe(0);
  });

  it('(c) stops when the server switches to another release, and on close', async () => {
    const { dist, rel } = await tinyRelease();
    const id2 = 'ffffffffffff';
    cpSync(rel, releaseDir(dist, id2), { recursive: true });
    const { app, logs } = await listening(dist);
    try {
      const first = app.release();
      let open!: () => void;
      const gate = new Promise<void>((res) => (open = res));
      const calls = countScans(first, async (_p, between) => {
        if (between) await gate; // the check of the first release held at its first file
      });
      app.warm();
      await until(() => calls.length === 1, 'the first release\'s check to begin');
      writeFileSync(currentPointer(dist), id2);
      await until(() => app.release() !== first, 'the switch to the second release');
      open();
      await until(() => logs.some((l) => l.includes(`release ${id2}:`) && /in the background/.test(l)), 'the second release\'s check to finish');
      // The first release's check read nothing after the switch (without the stop: every file of it).
      expect(calls.length).toBe(1);
      expect(logs.some((l) => l.includes(`release ${first.id}:`) && /in the background/.test(l))).toBe(false);
    } finally {
      await app.close();
    }
    // On close: a check held at its first step never holds the close, and reads nothing after it.
    const again = await listening(dist);
    const r = again.app.release();
    let open!: () => void;
    const gate = new Promise<void>((res) => (open = res));
    const calls = countScans(r, async (_p, between) => {
      if (between) await gate;
    });
    again.app.warm();
    await until(() => calls.length === 1, 'the check to begin');
    await again.app.close();
    open();
    await new Promise((res) => setTimeout(res, 200));
    expect(calls.length).toBe(1);
  });
});
