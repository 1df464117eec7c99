/**
 * ALMANAC_GC_MAIN_THREAD (server/node/heap.ts): V8's collector moved onto the main thread
 * when the server has one CPU. The setting read and refused, the CPUs counted from the
 * affinity and a cgroup's quota, and the flags really taking the collector's work off
 * V8's background threads in a process that sets them once running, as the server does.
 */
import { execFileSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { describe, expect, it } from 'vitest';
import { cpusAvailable, gcOnMainThread, MAIN_THREAD_GC_FLAGS } from '../server/node/heap.ts';

describe('when the collector moves to the main thread', () => {
  const never = () => { throw new Error('the CPUs need not be counted'); };

  it('reads auto, on and off, and refuses anything else, naming the variable', () => {
    expect(gcOnMainThread({ ALMANAC_GC_MAIN_THREAD: 'off' }, never, [])).toBe(false);
    expect(gcOnMainThread({}, () => 2, [])).toBe(false);
    expect(gcOnMainThread({ ALMANAC_GC_MAIN_THREAD: 'auto' }, () => 4, [])).toBe(false);
    for (const bad of ['', 'yes', '1', 'single']) expect(() => gcOnMainThread({ ALMANAC_GC_MAIN_THREAD: bad }, never, []), bad).toThrow(/ALMANAC_GC_MAIN_THREAD must be auto, on or off/);
  });

  it('leaves node given --single-threaded-gc itself as it is', () => {
    expect(gcOnMainThread({ ALMANAC_GC_MAIN_THREAD: 'off' }, never, ['--single-threaded-gc'])).toBe(true);
    expect(gcOnMainThread({ NODE_OPTIONS: '--single_threaded_gc' }, () => 8, [])).toBe(true);
  });

  it('counts the CPUs from the affinity and the cgroup quotas on the way up, whichever is fewest', () => {
    const aff = availableParallelism();
    const files = (f: Record<string, string>) => (p: string) => {
      if (!(p in f)) throw new Error('ENOENT');
      return f[p];
    };
    const v2 = (own: string, max: Record<string, string>) => files({ '/proc/self/cgroup': `0::${own}\n`, ...Object.fromEntries(Object.entries(max).map(([d, m]) => [`/sys/fs/cgroup${d}/cpu.max`, `${m}\n`])) });
    expect(cpusAvailable(files({}))).toBe(aff);
    expect(cpusAvailable(v2('/', { '': 'max 100000' }))).toBe(aff);
    expect(cpusAvailable(v2('/', { '': '50000 100000' }))).toBe(1);
    expect(cpusAvailable(v2('/', { '': '100000 100000' }))).toBe(1);
    expect(cpusAvailable(v2('/', { '': '150000 100000' }))).toBe(Math.min(aff, 2));
    // A systemd unit's quota on the slice above the process's own cgroup.
    expect(cpusAvailable(v2('/system.slice/almanac.service', { '/system.slice/almanac.service': 'max 100000', '/system.slice': '100000 100000' }))).toBe(1);
    expect(cpusAvailable(v2('/system.slice/almanac.service', { '/system.slice/almanac.service': 'max 100000' }))).toBe(aff);
    // cgroup v1: the cpu controller's hierarchy.
    const v1 = (quota: string) => files({
      '/proc/self/cgroup': '5:memory:/docker/abc\n4:cpu,cpuacct:/docker/abc\n0::/\n',
      '/sys/fs/cgroup/cpu/cpu.cfs_period_us': '100000\n', '/sys/fs/cgroup/cpu/cpu.cfs_quota_us': '-1\n',
      '/sys/fs/cgroup/cpu/docker/abc/cpu.cfs_period_us': '100000\n', '/sys/fs/cgroup/cpu/docker/abc/cpu.cfs_quota_us': `${quota}\n`,
    });
    expect(cpusAvailable(v1('100000'))).toBe(1);
    expect(cpusAvailable(v1('-1'))).toBe(aff);
  });

  // A child keeps ~40 MB live and makes garbage beside it, then says how much CPU its main
  // thread and its other threads used meanwhile (Linux's per-thread schedstat). Measured
  // (node 20, 2 cores): the other threads 36–39 % of the whole plainly, 16–17 % with the
  // flags (what stays is V8's parallel marking in the final pause, which V8 will not turn
  // off once running, and its optimizing compiler).
  const share = (mode: string) => {
    const out = execFileSync(process.execPath, ['--import', 'tsx', '-e', `
      import { readdirSync, readFileSync } from 'node:fs';
      import { gcOnMainThread } from './server/node/heap.ts';
      const on = gcOnMainThread({ ALMANAC_GC_MAIN_THREAD: '${mode}' }, () => 1, []);
      const cpu = () => {
        let main = 0, other = 0;
        for (const t of readdirSync('/proc/self/task')) {
          const ns = Number(readFileSync('/proc/self/task/' + t + '/schedstat', 'utf8').split(' ')[0]);
          if (Number(t) === process.pid) main += ns; else other += ns;
        }
        return { main, other };
      };
      const keep = []; for (let i = 0; i < 3e5; i++) keep.push({ a: i, b: 'x' + i, c: [i] });
      const c0 = cpu();
      let junk = [];
      for (let r = 0; r < 200; r++) {
        for (let i = 0; i < 2e4; i++) junk.push({ i, s: [i, i] });
        if (junk.length > 2e5) junk = [];
        if (r % 20 === 0) keep.push(...junk.slice(0, 1e4));
      }
      const c1 = cpu();
      console.log(JSON.stringify({ on, other: (c1.other - c0.other) / (c1.other - c0.other + c1.main - c0.main), kept: keep.length }));
    `], { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } });
    return JSON.parse(out) as { on: boolean; other: number };
  };

  it.skipIf(process.platform !== 'linux')('takes most of the collector\'s work off the background threads (Linux: per-thread CPU)', () => {
    const plain = share('off');
    const main = share('on');
    expect(plain.on).toBe(false);
    expect(main.on).toBe(true);
    expect(plain.other).toBeGreaterThan(0.2);
    expect(main.other).toBeLessThan(plain.other * 0.7);
  }, 30_000);

  it('sets only flags V8 takes once running (--no-parallel-marking ends the process)', () => {
    expect(MAIN_THREAD_GC_FLAGS).not.toContain('--no-parallel-marking');
    const out = execFileSync(process.execPath, ['--expose-gc', '-e', `
      const v8 = require('node:v8');
      for (const f of ${JSON.stringify(MAIN_THREAD_GC_FLAGS)}) v8.setFlagsFromString(f);
      const a = []; for (let i = 0; i < 2e6; i++) a.push({ i });
      gc();
      a.length = 0;
      gc();
      console.log('ran');
    `], { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } });
    expect(out.trim()).toBe('ran');
  });
});
