/**
 * The Node server's admission (server/node/admission.ts): at most `max` requests worked on
 * at once, the rest started in arrival order as slots free, a failure frees its slot, 0
 * means no limit; ALMANAC_MAX_ACTIVE is checked. (That /healthz is never queued, and what
 * the limit does to the first seconds after a start, is measured by `npm run bench:traffic`.)
 */
import { describe, expect, it } from 'vitest';
import { Admission, DEFAULT_MAX_ACTIVE, maxActive } from '../server/node/admission.ts';

const deferred = () => {
  let resolve!: () => void, reject!: (e: Error) => void;
  const promise = new Promise<void>((res, rej) => { resolve = res; reject = rej; });
  return { promise, resolve, reject };
};
const tick = () => new Promise((r) => setImmediate(r));

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
    expect(a.queued).toBe(3);
    gates[1].reject(new Error('boom'));
    await tick();
    expect(started).toEqual([0, 1, 2]);
    gates[0].resolve();
    await tick();
    expect(started).toEqual([0, 1, 2, 3]);
    for (const g of gates.slice(2)) g.resolve();
    expect(await Promise.all(done)).toEqual([0, 'boom', 2, 3, 4]);
    expect(most).toBe(2);
    expect(a.queued).toBe(0);
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
});
