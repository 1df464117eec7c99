/**
 * Loaded with --import into the node servers bench/scale.ts measures (the floor, sirv and
 * almanac alike): each full collection (mark-compact) appended to BENCH_GC_FILE as its
 * wall-clock start (ms since the epoch) and its pause (ms), one line each. scale.ts then says
 * which of the worst rounds held one (issue 41, item 3: at 256 connections the rounds over
 * 30 ms were the rounds holding a mark-compact). Plain JavaScript: the compiled server runs
 * without tsx. A few lines a minute; the observer's cost per collection is a few µs.
 */
import { appendFileSync } from 'node:fs';
import { PerformanceObserver, constants, performance } from 'node:perf_hooks';

const file = process.env.BENCH_GC_FILE;
if (file) {
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      if (e.detail?.kind !== constants.NODE_PERFORMANCE_GC_MAJOR) continue;
      appendFileSync(file, `${(performance.timeOrigin + e.startTime).toFixed(1)} ${e.duration.toFixed(2)} ${process.pid}\n`);
    }
  }).observe({ entryTypes: ['gc'] });
}
