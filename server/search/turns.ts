/**
 * Long work in the server shares the event loop by turns (issue 27, "start-up without a
 * stall"): loading a search index part (search-index.ts) and ranking a broad query
 * (search-bounds.ts runYielding) run in slices of a few milliseconds, and at most ONE such
 * slice runs per event-loop turn, whoever it belongs to; I/O is polled between turns. A
 * request that needs no index (/healthz, a lookup) so waits for one slice at most, plus
 * the requests that arrived with it.
 *
 * Before, each load and each ranking gave the loop back on its own (setImmediate), and
 * Node runs every immediate queued when a turn begins: 32 loads under way made every turn
 * 32 slices long, and a freshly started server under traffic answered its first /healthz
 * after seconds.
 *
 * Which slice runs next: a request's own bounded work first ('request': a ranking, whose
 * indexes are loaded; the parse of a large filter index or column, json-slices.ts), then
 * index loads ('load'); within a lane, the computation that began first, so loads finish
 * in the order they began, each as soon as it can, and few indexes are half-loaded at
 * once. Measured with `npm run bench:traffic` against two other orders: smaller loads
 * first (a lane for texts over 1 MB given every 4th turn) let fewer searches wait over a
 * second in the first seconds after start, but the slowest waited 5.3 s against 1.9 s
 * (2.8 s against 1.2 s in steady traffic); earliest deadline first (a load's start plus
 * 50 ms per MB) did no better than this order (docs/benchmarks.md, "Traffic").
 * Last, 'background': work nobody waits for (the check of a release's files after start,
 * release/background-check.ts), given a turn only when no request or load slice waits.
 */

export type Lane = 'request' | 'load' | 'background';
/**
 * In a Worker (workerd) every request has an I/O context of its own: a turn scheduled by
 * one request cannot resume another's (workerd cancels it with the request, and the other
 * request hangs), and each isolate serves its own requests anyway. There each computation
 * gives the loop back on its own, as before.
 */
const OWN_TURNS = (globalThis as { navigator?: { userAgent?: string } }).navigator?.userAgent === 'Cloudflare-Workers';

interface Waiting { key: number; resume: () => void }
const lanes: Record<Lane, Waiting[]> = { request: [], load: [], background: [] };
let waitingCount = 0;
let scheduled = false;
/** Computations begun so far: the order within a lane. */
let started = 0;

function next(): Waiting | undefined {
  return lanes.request.shift() ?? lanes.load.shift() ?? lanes.background.shift();
}

/** One slice per turn: resumes the slice due, and comes back next turn if more wait. */
function pump() {
  scheduled = false;
  const w = next();
  if (w) waitingCount--;
  if (waitingCount) {
    scheduled = true;
    setImmediate(pump);
  }
  // The slice runs as a microtask right after this callback, before the loop's next phase.
  w?.resume();
}

/** Resolves on a later event-loop turn, when the slice of the computation with `key` in `lane` is due. */
function nextTurn(lane: Lane, key: number): Promise<void> {
  if (OWN_TURNS) return new Promise((resume) => setImmediate(resume));
  return new Promise((resume) => {
    const q = lanes[lane];
    let k = q.length;
    while (k > 0 && q[k - 1].key > key) k--;
    q.splice(k, 0, { key, resume });
    waitingCount++;
    if (!scheduled) {
      scheduled = true;
      setImmediate(pump);
    }
  });
}

/** How many slices are waiting for a turn (tests, benches). */
export const slicesWaiting = () => waitingCount;

/**
 * Runs a stepwise computation (a generator that yields where it may pause) in slices of
 * about `sliceMs`, one slice per turn among every such computation (see above for the order).
 */
export async function runInTurns<T>(steps: Generator<void, T>, sliceMs: number, lane: Lane = 'request'): Promise<T> {
  const key = started++;
  // With others waiting, a load's first slice waits its turn too: 32 requests arriving
  // together must not each run a slice in the turn they arrive in. A request's own work
  // starts at once (most rankings end within their first slice).
  if (waitingCount && lane !== 'request') await nextTurn(lane, key);
  let since = performance.now();
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
    if (performance.now() - since >= sliceMs) {
      await nextTurn(lane, key);
      since = performance.now();
    }
  }
}

/**
 * The same sharing for async work whose awaits mostly resolve at once (cached records):
 * those never give the loop back, so a 100-verse study range ran ~80–200 ms as one
 * block and every other request, /healthz too, waited (issue 27). Call the returned
 * function between steps; it waits for a turn once `sliceMs` are used.
 */
export function slicer(sliceMs: number, lane: Lane = 'request'): () => Promise<void> {
  const key = started++;
  let since = performance.now();
  return async () => {
    if (performance.now() - since < sliceMs) return;
    await nextTurn(lane, key);
    since = performance.now();
  };
}
