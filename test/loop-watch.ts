/**
 * Setup file: names the test that blocked a worker's event loop for long.
 *
 * Vitest's worker talks to the runner over an RPC with a fixed 60 s timeout that no
 * option changes. A worker busy with synchronous work for that long reads the runner's
 * reply only after the timeout fired, and the run ends with "Timeout calling
 * onTaskUpdate" although every test passed. This watch says which test did it, so the
 * work can be moved to a child process or made to yield. It logs; it asserts nothing.
 *
 * Vitest runs a file's tests one after another through promises that settle at once, so
 * a run of synchronous tests never reaches the event loop's poll phase in between: the
 * runner's messages wait until the whole run is over. A timer before each test gives
 * the loop one turn there, so the longest block is one test's, not a file's.
 */
import { beforeEach, expect } from 'vitest';

beforeEach(() => new Promise<void>((resolve) => setTimeout(resolve, 0)));

const TICK_MS = 1_000;
const REPORT_MS = 10_000;
const g = globalThis as { __almanacLoopWatch?: boolean };

if (!g.__almanacLoopWatch) {
  g.__almanacLoopWatch = true;
  let last = Date.now();
  setInterval(() => {
    const now = Date.now();
    const blocked = now - last - TICK_MS;
    last = now;
    if (blocked >= REPORT_MS) {
      const name = expect.getState().currentTestName ?? '(between tests)';
      const file = expect.getState().testPath ?? '';
      process.stderr.write(`loop-watch: this worker's event loop was blocked ${(blocked / 1000).toFixed(1)} s, ending in ${file} > ${name}\n`);
    }
  }, TICK_MS).unref();
}
