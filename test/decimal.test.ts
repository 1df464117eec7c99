/**
 * server/http/decimal.ts writes numbers as String() does, without V8's number-string cache
 * (what made a per-request string survive into the old generation): checked over any
 * number fast-check generates, not a list of cases.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decimal, hundredths } from '../server/http/decimal.ts';

describe('decimal text without the number-string cache', () => {
  it('decimal(n) is String(n) for every safe integer and any other number', () => {
    fc.assert(fc.property(fc.maxSafeNat(), (n) => decimal(n) === String(n)), { numRuns: 20_000 });
    fc.assert(fc.property(fc.double(), (x) => decimal(x) === String(x)), { numRuns: 5_000 });
    for (const n of [0, -0, 9, 10, 999, 1000, 1001, 999_999, 1_000_000, 25_000_000, Number.MAX_SAFE_INTEGER, -1, 1.5, NaN, Infinity]) {
      expect(decimal(n)).toBe(String(n));
    }
  });

  it('hundredths(x) is String(Math.round(x * 100) / 100) for durations and any other number', () => {
    const plain = (x: number) => String(Math.round(x * 100) / 100);
    fc.assert(fc.property(fc.double({ min: 0, max: 1e7, noNaN: true }), (x) => hundredths(x) === plain(x)), { numRuns: 20_000 });
    fc.assert(fc.property(fc.integer({ min: 0, max: 1e9 }), (c) => hundredths(c / 100) === plain(c / 100)), { numRuns: 20_000 });
    fc.assert(fc.property(fc.double(), (x) => hundredths(x) === plain(x)), { numRuns: 5_000 });
    for (const x of [0, -0, 0.004, 0.005, 0.05, 0.1, 1.5, 2, 12.34, 99.995, 1e13, 1e16, -3.2, NaN, Infinity]) {
      expect(hundredths(x)).toBe(plain(x));
    }
  });
});
