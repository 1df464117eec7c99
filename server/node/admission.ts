/**
 * How many requests the Node server works on at once (issue 27, "the first seconds").
 *
 * Every request that reaches the server used to start at once. On one event loop that is
 * fair only while requests are cheap: in the first seconds after a start, 32 connections
 * of mixed traffic each touch files not read before (a pack read and hashed, a filter index
 * parsed), every turn of the loop ran a step of each of them, and a `/healthz` waited
 * behind all 32 (p99 150–250 ms, measured by `npm run bench:traffic`). Admitted a few at a
 * time, in arrival order, the others wait without costing anything (their headers are
 * parsed, nothing else), each turn runs a few steps, and `/healthz`, which is never queued,
 * is answered within a turn. The machine's work is the same, so throughput is too: the
 * admitted requests still overlap their reads and hashes on the thread pool.
 *
 * ALMANAC_MAX_ACTIVE sets the number (default 4; 0: no limit). The queue is bounded by the
 * connections: a connection sends its next request after its answer (HTTP/1.1), and the
 * server's header and request timeouts close idle and slow ones.
 */
export const DEFAULT_MAX_ACTIVE = 4;

export class Admission {
  private active = 0;
  private readonly waiting: (() => void)[] = [];
  constructor(readonly max: number) {}

  /** Runs `work` now if fewer than `max` run, else when an earlier one is done. */
  run<T>(work: () => Promise<T>): Promise<T> {
    if (this.max <= 0) return work();
    return new Promise<void>((start) => {
      if (this.active < this.max) {
        this.active++;
        start();
      } else this.waiting.push(start);
    }).then(work).finally(() => {
      const next = this.waiting.shift();
      if (next) next(); // the slot passes on: `active` is unchanged
      else this.active--;
    });
  }

  /** Requests waiting for a slot (tests). */
  get queued() {
    return this.waiting.length;
  }
}

/** ALMANAC_MAX_ACTIVE, checked: a whole number from 0 (no limit) to 10,000. */
export function maxActive(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.ALMANAC_MAX_ACTIVE ?? String(DEFAULT_MAX_ACTIVE);
  if (!/^\d{1,5}$/.test(raw) || Number(raw) > 10_000) throw new Error(`ALMANAC_MAX_ACTIVE must be a whole number from 0 (no limit) to 10000 (got ${JSON.stringify(raw)})`);
  return Number(raw);
}
