/**
 * ALMANAC_HEAP_GROWING_PERCENT (server/node/heap.ts): the default, the operator's own node flag
 * winning, bad values refused, and the flag really bounding the heap of a process that sets
 * it at start-up, as the server does.
 */
import { execFileSync } from 'node:child_process';
import v8 from 'node:v8';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { applyHeapGrowth, BUILD_HEAP_GROWING_PERCENT, DEFAULT_HEAP_GROWING_PERCENT } from '../server/node/heap.ts';
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
