/**
 * Loaded with --import into the node servers bench/scale.ts measures (the floor, sirv and
 * almanac alike), it writes to BENCH_GC_FILE, one line each:
 *   gc <start> <pause> <pid>     each full collection (mark-compact);
 *   stall <start> <ms> <pid>     each time the event loop was held STALL_MS or more (a 50 ms
 *                                timer that late), whatever held it.
 * Times in ms, starts on the wall clock. scale.ts then says what the worst rounds held
 * (issue 41, item 3): a full collection, another stall of the server's loop, or neither
 * (the delay was not in the server's loop). Plain JavaScript: the compiled server runs
 * without tsx. A few lines a minute, and a timer a server does not wait for (unref): every
 * 50 ms, as a timer every 10 ms cost an idle node process ~10 ms of CPU a second.
 */
import { appendFileSync } from 'node:fs';
import { PerformanceObserver, constants, performance } from 'node:perf_hooks';

/** At 256 connections one event-loop turn holds every connection's request: 10–25 ms here. */
const STALL_MS = 30;
const TICK_MS = 50;
const file = process.env.BENCH_GC_FILE;
if (file) {
  const write = (kind, at, ms) => appendFileSync(file, `${kind} ${at.toFixed(1)} ${ms.toFixed(2)} ${process.pid}\n`);
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) if (e.detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) write('gc', performance.timeOrigin + e.startTime, e.duration);
  }).observe({ entryTypes: ['gc'] });
  let last = performance.now();
  setInterval(() => {
    const now = performance.now();
    const late = now - last - TICK_MS;
    if (late >= STALL_MS) write('stall', performance.timeOrigin + last + TICK_MS, late);
    last = now;
  }, TICK_MS).unref();
}
