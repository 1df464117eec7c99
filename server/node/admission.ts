/**
 * How many requests the Node server works on at once, in a lane per cost class (issue 27,
 * "the first seconds"; issue 38, item 3).
 *
 * Every request that reaches the server used to start at once. On one event loop that is
 * fair only while requests are cheap: 32 connections each touching files not read before
 * made a `/healthz` wait behind all of them (p99 150–250 ms in the first seconds). Admitted
 * a few at a time, the others wait without costing anything (their headers are parsed,
 * nothing else) and each turn of the loop runs a few steps.
 *
 * One first-come queue for everything (issue 27) then made a cheap lookup wait behind
 * expensive requests: with 40 clients asking cold 100-verse study ranges, `/apis/elements/Fe`
 * waited seconds for a slot. So each request has a cost class, given by its route
 * (api/routes.ts `cost`): lookups and list pages, searches, and ranges (study and
 * morphology ranges, text ranges, whole books), and each class has a lane of its own with
 * its own slots and queue. A lookup then waits only for other lookups; while it runs, the
 * expensive requests in their lanes give the event loop back between slices of their work
 * (a study range every 5 ms), so it is answered within a few slices. `free` requests
 * (/healthz, /readyz) never wait. The machine's work is the same; what changes is who waits.
 *
 * A request whose client has gone while it waited is dropped when its turn comes (its slot
 * passes on), so clients that give up and retry cannot pile work up.
 *
 * A slot is held only while a request is worked on (issue 41): its key is checked and
 * counted before it enters its lane (the count waits for the end of the event-loop turn,
 * which is not work), and a request billed once its answer is known gives the slot back
 * before that count. One that finds its lane full is only admitted by the limits then
 * and billed when its turn comes, so one dropped while it waited is never billed.
 *
 * ALMANAC_MAX_ACTIVE (default 4; 0: no limit in any lane) sizes the lookup lane;
 * ALMANAC_LANES sizes the others (`search=2,range=2`, the defaults) or, `off`, puts every
 * class in one first-come queue of ALMANAC_MAX_ACTIVE, as before issue 38. The queues are
 * bounded by the connections: a connection sends its next request after its answer
 * (HTTP/1.1), and the server's header and request timeouts close idle and slow ones.
 */
import type { Cost } from '../api/routes.ts';
import type { Gate } from '../core/gate.ts';
import type { CoreRequest } from '../http/request.ts';

export const DEFAULT_MAX_ACTIVE = 4;
export const DEFAULT_LANES = { search: 2, range: 2 } as const;
export type Lane = Exclude<Cost, 'free'>;
export const LANES: readonly Lane[] = ['lookup', 'search', 'range'];

interface Waiter { go: (admitted: boolean) => void; req: CoreRequest | undefined }

/** One lane: `max` at once, the others in arrival order. */
class Slots {
  active = 0;
  readonly waiting: Waiter[] = [];
  constructor(readonly max: number) {}

  enter(req?: CoreRequest): Promise<boolean> | undefined {
    if (this.max <= 0) return undefined;
    if (this.active < this.max) {
      this.active++;
      return undefined;
    }
    return new Promise<boolean>((go) => this.waiting.push({ go, req }));
  }

  get busy() {
    return this.max > 0 && this.active >= this.max;
  }

  leave() {
    if (this.max <= 0) return;
    for (let w = this.waiting.shift(); w; w = this.waiting.shift()) {
      if (w.req?.gone?.()) {
        w.go(false); // its client left: the slot stays free for the next
        continue;
      }
      // The slot passes on (`active` is unchanged), on the next turn of the event loop: a
      // microtask would run the next search or range in this same turn, one after another
      // with nothing else answered in between (/healthz p99 0.3-0.5 s in the first seconds).
      return void setImmediate(w.go, true);
    }
    this.active--;
  }
}

export interface LaneSizes { lookup: number; search: number; range: number; shared: boolean }

export class Admission implements Gate {
  private readonly lanes: Record<Lane, Slots>;

  /** `sizes` a number: one lane of that many for every class (tests, and ALMANAC_LANES=off). */
  constructor(sizes: LaneSizes | number) {
    if (typeof sizes === 'number' || sizes.shared) {
      const one = new Slots(typeof sizes === 'number' ? sizes : sizes.lookup);
      this.lanes = { lookup: one, search: one, range: one };
    } else this.lanes = { lookup: new Slots(sizes.lookup), search: new Slots(sizes.search), range: new Slots(sizes.range) };
  }

  /** Admits a request of class `cost` now (undefined), or later: true when its turn came, false when its client had gone. */
  enter(cost: Cost, req?: CoreRequest): Promise<boolean> | undefined {
    return cost === 'free' ? undefined : this.lanes[cost].enter(req);
  }

  leave(cost: Cost) {
    if (cost !== 'free') this.lanes[cost].leave();
  }

  busy(cost: Cost): boolean {
    return cost !== 'free' && this.lanes[cost].busy;
  }

  /** Runs `work` in the lane of `cost` (tests and callers outside the core). */
  async run<T>(work: () => Promise<T>, cost: Cost = 'lookup'): Promise<T> {
    const wait = this.enter(cost);
    if (wait) await wait;
    try {
      return await work();
    } finally {
      this.leave(cost);
    }
  }

  /** Requests waiting for a slot, in all lanes or one (tests). */
  queued(lane?: Lane): number {
    if (lane) return this.lanes[lane].waiting.length;
    return [...new Set(Object.values(this.lanes))].reduce((n, s) => n + s.waiting.length, 0);
  }
}

const whole = (name: string, raw: string) => {
  if (!/^\d{1,5}$/.test(raw) || Number(raw) > 10_000) throw new Error(`${name} must be a whole number from 0 (no limit) to 10000 (got ${JSON.stringify(raw.slice(0, 40))})`);
  return Number(raw);
};

/** ALMANAC_MAX_ACTIVE, checked: a whole number from 0 (no limit) to 10,000. */
export function maxActive(env: NodeJS.ProcessEnv = process.env): number {
  return whole('ALMANAC_MAX_ACTIVE', env.ALMANAC_MAX_ACTIVE ?? String(DEFAULT_MAX_ACTIVE));
}

/** The lanes from ALMANAC_MAX_ACTIVE and ALMANAC_LANES (`off`, or `search=N,range=N` in any order, either omitted). */
export function laneSizes(env: NodeJS.ProcessEnv = process.env): LaneSizes {
  const lookup = maxActive(env);
  const raw = (env.ALMANAC_LANES ?? '').trim();
  if (raw === 'off') return { lookup, search: lookup, range: lookup, shared: true };
  const sizes: LaneSizes = { lookup, ...DEFAULT_LANES, shared: false };
  for (const part of raw ? raw.split(',') : []) {
    const m = /^\s*(search|range)\s*=\s*(\S*)\s*$/.exec(part);
    if (!m) throw new Error(`ALMANAC_LANES must be "off" or a list like "search=2,range=2" (got ${JSON.stringify(raw.slice(0, 60))})`);
    sizes[m[1] as 'search' | 'range'] = whole(`ALMANAC_LANES ${m[1]}`, m[2]);
  }
  // No limit at all stays no limit: ALMANAC_MAX_ACTIVE=0 turns admission off, as before.
  if (lookup === 0) return { lookup: 0, search: 0, range: 0, shared: false };
  return sizes;
}
