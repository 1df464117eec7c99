/**
 * bench/gc-marks.mjs records a real full collection of the process it is loaded into, and
 * bench/scale-gc.ts sets rounds beside the marks (issue 41, item 3: which worst rounds held one).
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { gcLine, gcWatch, readMarks } from '../bench/scale-gc.ts';
import type { Round } from '../bench/scale-load.ts';
import { cleanup, tempDir } from './helpers.ts';

const round = (from: number, to: number, max: number): Round => ({ from, to, max, n: 1, seconds: 1, rps: 1, p50: 1, p99: 1, p999: 1, cpuUs: 1, errors: 0 });

describe('full collections beside the bench rounds', () => {
  it('gc-marks.mjs writes each mark-compact of its process with its wall-clock start, and only those', () => {
    const work = tempDir('almanac-gc-marks-');
    try {
      const w = gcWatch(work);
      const before = Date.now();
      // Two full collections asked for, and enough short-lived garbage for scavenges (not written).
      execFileSync(process.execPath, ['--expose-gc', ...w.flags, '-e', 'for (let i = 0; i < 2e5; i++) [i, {i}]; gc(); gc(); setTimeout(() => {}, 50)'], { env: { ...process.env, ...w.env } });
      const marks = readMarks(w.file);
      expect(marks.length).toBe(2);
      for (const m of marks) {
        expect(m.at).toBeGreaterThanOrEqual(before - 5);
        expect(m.at).toBeLessThanOrEqual(Date.now());
        expect(m.ms).toBeGreaterThan(0);
      }
      expect(path.dirname(w.file)).toBe(work);
    } finally {
      cleanup(work);
    }
  });

  it('says which rounds held a full collection, and which of the rounds over the limit', () => {
    const marks = [{ at: 1500, ms: 10.2 }, { at: 5200, ms: 8.1 }];
    const rounds = [round(1000, 2000, 62.2), round(3000, 4000, 55.0), round(5000, 6000, 31.0), round(7000, 8000, 20.5)];
    expect(gcLine('almanac', rounds, marks)).toBe('almanac: 2 of 4 rounds held one (pauses 8.1–10.2 ms), worst max 62.2 ms with one, 55.0 ms without; over 50 ms: 2, 1 of them holding one');
    expect(gcLine('floor', rounds.slice(3), [])).toBe('floor: 0 of 1 rounds held one, worst max – with one, 20.5 ms without; over 50 ms: 0, 0 of them holding one');
  });
});
