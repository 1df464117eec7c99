/**
 * ALMANAC_HEAP_GROWING_PERCENT (server/node/heap.ts): the default, the operator's own node flag
 * winning, bad values refused, and the flag really bounding the heap of a process that sets
 * it at start-up, as the server does.
 */
import { execFileSync } from 'node:child_process';
import v8 from 'node:v8';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { applyHeapGrowth, BUILD_HEAP_GROWING_PERCENT, DEFAULT_HEAP_GROWING_PERCENT, DEFAULT_HEAP_HEADROOM_MB, heapHeadroom, percentFor } from '../server/node/heap.ts';
import { buildHeapGrowth } from '../server/cli/build.ts';

afterEach(() => { vi.restoreAllMocks(); });

describe('applyHeapGrowth', () => {
  it('sets V8\'s growing factor to the default, or to the value asked for, and leaves V8 alone at 0', () => {
    const set = vi.spyOn(v8, 'setFlagsFromString').mockImplementation(() => {});
    expect(applyHeapGrowth({}, [])).toBe(DEFAULT_HEAP_GROWING_PERCENT);
    expect(set).toHaveBeenLastCalledWith(`--heap-growing-percent=${DEFAULT_HEAP_GROWING_PERCENT}`);
    expect(applyHeapGrowth({ ALMANAC_HEAP_GROWING_PERCENT: '25' }, [])).toBe(25);
    expect(set).toHaveBeenLastCalledWith('--heap-growing-percent=25');
    set.mockClear();
    expect(applyHeapGrowth({ ALMANAC_HEAP_GROWING_PERCENT: '0' }, [])).toBeNull();
    expect(set).not.toHaveBeenCalled();
  });

  it('gives the build its own default, and the operator\'s value wins there too', () => {
    const set = vi.spyOn(v8, 'setFlagsFromString').mockImplementation(() => {});
    expect(BUILD_HEAP_GROWING_PERCENT).toBeLessThan(DEFAULT_HEAP_GROWING_PERCENT);
    expect(buildHeapGrowth({})).toBe(BUILD_HEAP_GROWING_PERCENT);
    expect(set).toHaveBeenLastCalledWith(`--heap-growing-percent=${BUILD_HEAP_GROWING_PERCENT}`);
    expect(buildHeapGrowth({ ALMANAC_HEAP_GROWING_PERCENT: '70' })).toBe(70);
    expect(() => buildHeapGrowth({ ALMANAC_HEAP_GROWING_PERCENT: 'lots' })).toThrow(/whole number/);
  });

  it('leaves a value given to node itself in force, in its arguments or in NODE_OPTIONS', () => {
    const set = vi.spyOn(v8, 'setFlagsFromString').mockImplementation(() => {});
    expect(applyHeapGrowth({ ALMANAC_HEAP_GROWING_PERCENT: '25' }, ['--heap-growing-percent=80'])).toBe(80);
    expect(applyHeapGrowth({ NODE_OPTIONS: '--max-old-space-size=900 --heap_growing_percent=40' }, [])).toBe(40);
    expect(set).not.toHaveBeenCalled();
  });

  it('refuses a value that is not a whole number from 0 to 1000, naming the variable', () => {
    const set = vi.spyOn(v8, 'setFlagsFromString').mockImplementation(() => {});
    for (const bad of ['', 'abc', '-5', '1.5', '1001', '60%', ' 60']) {
      expect(() => applyHeapGrowth({ ALMANAC_HEAP_GROWING_PERCENT: bad }, []), bad).toThrow(/ALMANAC_HEAP_GROWING_PERCENT must be a whole number/);
    }
    expect(set).not.toHaveBeenCalled();
  });
});

describe('the flag set at start-up bounds the heap', () => {
  // A child keeps 122 MiB live and makes ~1.5 GiB of garbage beside it. With the factor at
  // 1.2, V8 must collect before the old space passes ~1.2× what was live (plus the young
  // generation); left to itself, V8 let the same child reach ~245 MiB (node 20, measured).
  const child = (percent: string) => JSON.parse(execFileSync(process.execPath, ['--import', 'tsx', '-e', `
    import { applyHeapGrowth } from './server/node/heap.ts';
    applyHeapGrowth({ ALMANAC_HEAP_GROWING_PERCENT: '${percent}' }, []);
    const live = [];
    for (let i = 0; i < 40; i++) live.push(new Array(400000).fill(0.5));
    let peak = 0, sink;
    for (let r = 0; r < 1500; r++) {
      sink = new Array(130000).fill(0.5);
      if (r % 10 === 0) peak = Math.max(peak, process.memoryUsage().heapUsed);
    }
    console.log(JSON.stringify({ liveMiB: 40 * 400000 * 8 / 2 ** 20, peakMiB: peak / 2 ** 20, keep: live.length + sink.length }));
  `], { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } })) as { liveMiB: number; peakMiB: number };

  it('keeps the peak heap within the growing factor of the live data, below what V8 chooses itself', () => {
    const bounded = child('20');
    const own = child('0');
    expect(bounded.peakMiB).toBeLessThan(bounded.liveMiB * 1.2 + 64);
    expect(own.peakMiB).toBeGreaterThan(bounded.peakMiB);
  });
});

describe('the headroom kept above a small live heap (ALMANAC_HEAP_HEADROOM_MB)', () => {
  const MiB = 2 ** 20;
  it('raises the factor while the live heap is small, in whole tens, never below the base nor above 1000', () => {
    expect(percentFor(28 * MiB, 60, 64 * MiB)).toBe(230);
    expect(percentFor(200 * MiB, 60, 64 * MiB)).toBe(60);
    expect(percentFor(107 * MiB, 60, 64 * MiB)).toBe(60);
    expect(percentFor(2 * MiB, 60, 64 * MiB)).toBe(1000);
    expect(percentFor(28 * MiB, 60, 0)).toBe(60);
    expect(percentFor(0, 60, 64 * MiB)).toBe(60);
  });

  it('reads the variable in MiB, 0 for none, and refuses anything else, naming it', () => {
    expect(heapHeadroom({})).toBe(DEFAULT_HEAP_HEADROOM_MB * MiB);
    expect(heapHeadroom({ ALMANAC_HEAP_HEADROOM_MB: '0' })).toBe(0);
    expect(heapHeadroom({ ALMANAC_HEAP_HEADROOM_MB: '128' })).toBe(128 * MiB);
    for (const bad of ['', 'lots', '-1', '1.5', '5000', '64MB']) expect(() => heapHeadroom({ ALMANAC_HEAP_HEADROOM_MB: bad }), bad).toThrow(/ALMANAC_HEAP_HEADROOM_MB must be a whole number/);
  });

  // A child with a ~30 MiB live heap keeps 120 MiB of buffers more (caches filling, 1 MiB
  // at a time, amid garbage) at the server's factor of 1.6: without headroom V8 collected
  // fully 4-5 times (node 20, measured); with 64 MiB kept free, once.
  const fullCollections = (headroomMb: number) => Number(execFileSync(process.execPath, ['--import', 'tsx', '-e', `
    import { PerformanceObserver, constants } from 'node:perf_hooks';
    import { applyHeapGrowth, keepHeapHeadroom } from './server/node/heap.ts';
    (async () => {
    keepHeapHeadroom(applyHeapGrowth({}, []), ${headroomMb} * 2 ** 20);
    const base = []; for (let i = 0; i < 30; i++) base.push(new Array(131072).fill(0.5));
    await new Promise((r) => setTimeout(r, 50));
    let majors = 0;
    new PerformanceObserver((l) => { for (const e of l.getEntries()) if (e.detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) majors++; }).observe({ entryTypes: ['gc'] });
    const kept = [];
    for (let i = 0; i < 120; i++) {
      kept.push(Buffer.alloc(2 ** 20, 1));
      for (let g = 0; g < 20; g++) new Array(20000).fill(0.5);
      await new Promise((r) => setImmediate(r));
    }
    await new Promise((r) => setTimeout(r, 50));
    console.log(majors + (base.length + kept.length) * 0);
    })();
  `], { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } }).trim());

  it('collects fully far less often while caches fill a small heap', () => {
    const without = fullCollections(0);
    const kept = fullCollections(64);
    expect(without).toBeGreaterThanOrEqual(3);
    expect(kept).toBeLessThanOrEqual(2);
    expect(kept).toBeLessThan(without);
  });
});
