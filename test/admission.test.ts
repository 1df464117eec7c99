/**
 * The Node server's admission (server/node/admission.ts): at most `max` requests worked on
 * at once, the rest started in arrival order as slots free, a failure frees its slot, 0
 * means no limit; ALMANAC_MAX_ACTIVE is checked. Issue 38 item 3: a lane per cost class, so
 * a lookup waits only for lookups (unit and over HTTP; `npm run bench:lanes` measures it
 * under 40 clients of cold study ranges), and a request whose client left is dropped.
 * Issue 41: a slot is not held while the request waits for its turn's count, so a full
 * lookup lane no longer splits a turn's requests into journal writes of four.
 * (What the limit does to the first seconds after a start: `npm run bench:traffic`.)
 */
import { useReadyPanels } from '../server/api/v1/study-panels.ts';
import { writeSync } from 'node:fs';
import { describe, expect, inject, it } from 'vitest';
import { Admission, DEFAULT_MAX_ACTIVE, laneSizes, maxActive } from '../server/node/admission.ts';
import type { CoreRequest } from '../server/http/request.ts';
import { createCore } from '../server/core/app.ts';
import { localState, type Metered } from '../server/core/state.ts';
import { fsRelease } from '../server/release/fs-reader.ts';
import { KeyStore } from '../server/state/keys.ts';
import { Limits, TurnBatcher } from '../server/state/limits.ts';
import { QuotaStore } from '../server/state/quota.ts';
import { reviewsIn } from '../server/state/reviews.ts';
import { createApp } from '../server/node/server.ts';
import { cleanup, quiet, startServer, tempDir } from './helpers.ts';

const deferred = () => {
  let resolve!: () => void, reject!: (e: Error) => void;
  const promise = new Promise<void>((res, rej) => { resolve = res; reject = rej; });
  return { promise, resolve, reject };
};
// Two turns: a slot passes to the next waiter on the next turn of the event loop (issue 41).
const tick = () => new Promise((r) => setImmediate(() => setImmediate(r)));

describe('admission', () => {
  it('runs at most max at once, the others in arrival order as slots free; a failure frees its slot', async () => {
    const a = new Admission(2);
    const gates = Array.from({ length: 5 }, deferred);
    const started: number[] = [];
    let running = 0, most = 0;
    const done = gates.map((g, i) => a.run(async () => {
      started.push(i);
      most = Math.max(most, ++running);
      try {
        await g.promise;
      } finally {
        running--;
      }
      return i;
    }).catch((e: Error) => e.message));
    await tick();
    expect(started).toEqual([0, 1]);
    expect(a.queued()).toBe(3);
    gates[1].reject(new Error('boom'));
    await tick();
    expect(started).toEqual([0, 1, 2]);
    gates[0].resolve();
    await tick();
    expect(started).toEqual([0, 1, 2, 3]);
    for (const g of gates.slice(2)) g.resolve();
    expect(await Promise.all(done)).toEqual([0, 'boom', 2, 3, 4]);
    expect(most).toBe(2);
    expect(a.queued()).toBe(0);
    // The slots are all free again: two start at once.
    const more = [deferred(), deferred()];
    const seen: number[] = [];
    const runs = more.map((g, i) => a.run(async () => { seen.push(i); await g.promise; }));
    await tick();
    expect(seen).toEqual([0, 1]);
    for (const g of more) g.resolve();
    await Promise.all(runs);
  });

  it('0 means no limit', async () => {
    const a = new Admission(0);
    const gates = Array.from({ length: 50 }, deferred);
    let running = 0;
    const runs = gates.map((g) => a.run(async () => { running++; await g.promise; }));
    await tick();
    expect(running).toBe(50);
    for (const g of gates) g.resolve();
    await Promise.all(runs);
  });

  it('ALMANAC_MAX_ACTIVE: a whole number from 0 to 10000, else a clear error', () => {
    expect(maxActive({})).toBe(DEFAULT_MAX_ACTIVE);
    expect(maxActive({ ALMANAC_MAX_ACTIVE: '0' })).toBe(0);
    expect(maxActive({ ALMANAC_MAX_ACTIVE: '32' })).toBe(32);
    for (const bad of ['-1', '1.5', 'eight', '', '20000']) expect(() => maxActive({ ALMANAC_MAX_ACTIVE: bad }), bad).toThrow(/ALMANAC_MAX_ACTIVE must be a whole number/);
  });

  it('ALMANAC_LANES: off (one queue), or search=N,range=N; anything else a clear error; ALMANAC_MAX_ACTIVE=0 turns every lane off', () => {
    expect(laneSizes({})).toEqual({ lookup: 4, search: 2, range: 2, shared: false });
    expect(laneSizes({ ALMANAC_LANES: 'range=1', ALMANAC_MAX_ACTIVE: '8' })).toEqual({ lookup: 8, search: 2, range: 1, shared: false });
    expect(laneSizes({ ALMANAC_LANES: ' range = 3 , search=5' })).toEqual({ lookup: 4, search: 5, range: 3, shared: false });
    expect(laneSizes({ ALMANAC_LANES: 'off' })).toEqual({ lookup: 4, search: 4, range: 4, shared: true });
    expect(laneSizes({ ALMANAC_MAX_ACTIVE: '0', ALMANAC_LANES: 'range=1' })).toEqual({ lookup: 0, search: 0, range: 0, shared: false });
    for (const bad of ['lookup=2', 'range', 'range=-1', 'range=two', 'on']) expect(() => laneSizes({ ALMANAC_LANES: bad }), bad).toThrow(/ALMANAC_LANES/);
  });
});

describe('lanes (issue 38, item 3)', () => {
  it('a lookup waits only for lookups: with the range and search lanes full and queued, it starts at once', async () => {
    const a = new Admission({ lookup: 2, search: 1, range: 1, shared: false });
    const gates = Array.from({ length: 10 }, deferred);
    const started: string[] = [];
    const runs = gates.map((g, i) => a.run(async () => { started.push(`${i < 5 ? 'range' : 'search'} ${i}`); await g.promise; }, i < 5 ? 'range' : 'search'));
    await tick();
    expect(started).toEqual(['range 0', 'search 5']);
    expect([a.queued('range'), a.queued('search'), a.queued('lookup')]).toEqual([4, 4, 0]);
    let looked = false;
    await a.run(async () => { looked = true; }, 'lookup');
    expect(looked).toBe(true);
    expect(a.enter('free')).toBeUndefined(); // /healthz, /readyz
    for (const g of gates) g.resolve();
    await Promise.all(runs);
    expect(a.queued()).toBe(0);
  });

  it('ALMANAC_LANES=off puts every class in one first-come queue (the behaviour before issue 38)', async () => {
    const a = new Admission(laneSizes({ ALMANAC_LANES: 'off', ALMANAC_MAX_ACTIVE: '1' }));
    const g = deferred();
    const first = a.run(() => g.promise, 'range');
    await tick();
    let looked = false;
    const lookup = a.run(async () => { looked = true; }, 'lookup');
    await tick();
    expect(looked).toBe(false);
    g.resolve();
    await Promise.all([first, lookup]);
    expect(looked).toBe(true);
  });

  it('a request whose client left while it waited is dropped when its turn comes, and its slot passes on', async () => {
    const a = new Admission({ lookup: 1, search: 1, range: 1, shared: false });
    const req = (gone: boolean): CoreRequest => ({ method: 'GET', url: '/', header: () => undefined, gone: () => gone });
    expect(a.enter('range', req(false))).toBeUndefined();
    const left = a.enter('range', req(true))!;
    const stays = a.enter('range', req(false))!;
    a.leave('range');
    expect(await left).toBe(false);
    expect(await stays).toBe(true);
    a.leave('range');
    expect(a.enter('range', req(false))).toBeUndefined(); // the lane is free again
    a.leave('range');
  });

  it('over HTTP: a lookup sent after ten study ranges is answered before all but a few of them (one queue: after five or more)', async () => {
    const srv = await startServer(inject('sharedDist'));
    // The ranges expand their tuples (the stored ready panels would answer each in a few
    // milliseconds, before the lookup is even sent): the lanes are about work that takes long.
    useReadyPanels(false);
    try {
      const key = srv.key();
      const h = { authorization: `Bearer ${key}` };
      const ref = (c: number) => `/api/v1/study/kjv/range?from=gen.${c}.1&to=gen.${c + 1}.5`;
      const ok = await fetch(srv.base + ref(1), { headers: h });
      expect(ok.status, await ok.text()).toBe(200);
      let done = 0;
      // Counted when the head arrives: the server composes the whole body before it answers.
      const ranges = Array.from({ length: 10 }, (_, i) => fetch(srv.base + ref(3 + i * 2), { headers: h }).then(async (r) => {
        done++;
        await r.arrayBuffer();
        return r.status;
      }));
      // Every range is in the server (admitted or queued) before the lookup is sent.
      for (let i = 0; i < 1000 && srv.app.admission.queued() < 5; i++) await new Promise((r) => setTimeout(r, 5));
      expect(srv.app.admission.queued()).toBeGreaterThanOrEqual(5);
      const lookup = await fetch(`${srv.base}/apis/elements/Fe`, { headers: h });
      const before = done;
      expect(lookup.status).toBe(200);
      expect(before).toBeLessThanOrEqual(3);
      expect(await Promise.all(ranges)).toEqual(Array(10).fill(200));
    } finally {
      useReadyPanels(true);
      await srv.close();
    }
  });

  it('issue 41: 32 keyed lookups read in one turn are counted with one journal write, not one per lane-full of 4', async () => {
    const dir = tempDir('almanac-lane-batch-');
    let writes = 0;
    const app = createApp({ dist: inject('sharedDist'), stateDir: dir, log: quiet, quota: { io: { write: (fd, buf, off, len) => (writes++, writeSync(fd, buf, off, len)) } } });
    try {
      const key = app.keys.create('development', 'batch').secret;
      const req = (): CoreRequest => ({ method: 'GET', url: '/apis/elements/Fe', header: (n) => (n === 'x-service-key' ? key : undefined), gone: () => false });
      expect((await app.core.handle(req())).status).toBe(200); // the body is composed and cached
      writes = 0;
      const out = await Promise.all(Array.from({ length: 32 }, () => app.core.handle(req())));
      expect(out.map((r) => r.status)).toEqual(Array(32).fill(200));
      expect(writes).toBe(1);
      expect(app.quota.used(app.keys.verify(key)!.id)).toBe(33);
    } finally {
      await app.close();
      cleanup(dir);
    }
  });

  it('issue 41: a request that found its lane full and whose client left while it waited is answered nothing and not billed', async () => {
    const dir = tempDir('almanac-lane-gone-');
    const app = createApp({ dist: inject('sharedDist'), stateDir: dir, log: quiet });
    try {
      const key = app.keys.create('development', 'gone').secret;
      const id = app.keys.verify(key)!.id;
      let left = false;
      const req = (gone: () => boolean): CoreRequest => ({ method: 'GET', url: '/apis/elements/Fe', header: (n) => (n === 'x-service-key' ? key : undefined), gone });
      // Every lookup slot taken by work that has not finished.
      const held = Array.from({ length: DEFAULT_MAX_ACTIVE }, deferred);
      const holders = held.map((g) => app.admission.run(() => g.promise));
      const waiting = app.core.handle(req(() => left));
      for (let i = 0; i < 100 && !app.admission.queued('lookup'); i++) await tick();
      expect(app.admission.queued('lookup')).toBe(1);
      left = true;
      for (const g of held) g.resolve();
      await Promise.all(holders);
      expect((await waiting).status).toBe(499);
      expect(app.quota.used(id)).toBe(0);
      // One that waits and stays is billed once, when its turn comes.
      const again = Array.from({ length: DEFAULT_MAX_ACTIVE }, deferred);
      const holders2 = again.map((g) => app.admission.run(() => g.promise));
      const stays = app.core.handle(req(() => false));
      for (let i = 0; i < 100 && !app.admission.queued('lookup'); i++) await tick();
      for (const g of again) g.resolve();
      await Promise.all(holders2);
      expect((await stays).status).toBe(200);
      expect(app.quota.used(id)).toBe(1);
    } finally {
      await app.close();
      cleanup(dir);
    }
  });

  it('issue 41: a request billed once its answer is known gives its lane slot back before it waits for the count', async () => {
    const dir = tempDir('almanac-lane-bill-');
    const quota = new QuotaStore(dir, { log: quiet });
    quota.open();
    try {
      const keys = new KeyStore(dir, quiet);
      const key = keys.create('development', 'later').secret;
      const limits = new Limits(quota);
      const local = localState(keys, new TurnBatcher((k, n) => limits.chargeMany(k, n)), () => reviewsIn(dir));
      const gate = new Admission(1);
      const slotHeldAtBill: boolean[] = [];
      const state = { ...local, bill: (k: Metered, n: number) => (slotHeldAtBill.push(gate.busy('lookup')), local.bill(k, n)) };
      const release = fsRelease(inject('sharedDist'));
      const core = createCore({ release: () => release, state, log: quiet, gate });
      const req = (url: string): CoreRequest => ({ method: 'GET', url, header: (n) => (n === 'x-service-key' ? key : undefined), gone: () => false });
      const g = deferred();
      const holder = gate.run(() => g.promise);
      const waiting = core.handle(req('/apis/elements/He')); // finds the lane full: admitted, billed when its turn comes
      for (let i = 0; i < 100 && !gate.queued('lookup'); i++) await tick();
      expect(gate.queued('lookup')).toBe(1);
      g.resolve();
      await holder;
      expect((await waiting).status).toBe(200);
      expect(slotHeldAtBill).toEqual([false]); // held through the count's turn, a full lane fed itself
      expect(quota.used(keys.verify(key)!.id)).toBe(1);
    } finally {
      quota.close();
      cleanup(dir);
    }
  });
});
