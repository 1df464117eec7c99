/**
 * Admission by cost (issue 38, item 3), as the core sees it: the cost class of a request,
 * from its route, and the gate an adapter may give the core (the Node server's lanes,
 * server/node/admission.ts). The Worker gives none: each request has an isolate's time.
 */
import type { Cost, Route } from '../api/routes.ts';
import type { CoreRequest, CoreResponse } from '../http/request.ts';

/**
 * Where a request waits for its turn, by the cost class of its route: `enter` answers
 * undefined when it may start now, else a promise of true when its turn comes (false: its
 * client has gone meanwhile, so it is not worked on); `leave` when it is answered.
 */
export interface Gate {
  enter(cost: Cost, req: CoreRequest): Promise<boolean> | undefined;
  leave(cost: Cost): void;
  /** Whether a request of this class would wait now (every slot of its lane taken). */
  busy?(cost: Cost): boolean;
}

/** The cost class of a request: its route's (`lookup` when it names none, or no route matched), a list page with `q=` a search. */
export function costOf(route: Route | undefined, search: URLSearchParams): Cost {
  const c = route?.cost ?? 'lookup';
  return c === 'q' ? (search.has('q') ? 'search' : 'lookup') : c;
}

/** The answer to a request whose client left while it waited: never sent (499 is what the access log shows). */
export const gone = (): CoreResponse => ({ status: 499, headers: [] });

/** What lanes() reads and writes of a request: its own request, and the lane slot it holds ('free': none). */
interface InLane { req: CoreRequest; admitted: Cost }

/** The core's use of a gate (or of none): a request enters the lane of its cost, leaves it once, and may ask whether it would wait. */
export function lanes(gate: Gate | undefined) {
  return {
    /** Waits for a slot of the lane of `cost` (none for `free`, or without a gate); false: the client left meanwhile. */
    async enter(t: InLane, cost: Cost): Promise<boolean> {
      if (cost === 'free' || !gate) return true;
      const wait = gate.enter(cost, t.req);
      if (wait && !(await wait)) return false;
      t.admitted = cost;
      return true;
    },
    /** Gives the request's lane slot back (once). */
    leave(t: InLane) {
      if (t.admitted === 'free') return;
      gate!.leave(t.admitted);
      t.admitted = 'free';
    },
    /** Whether a request of this class would wait for a slot now (every slot of its lane taken). */
    busy: (cost: Cost) => (cost !== 'free' && gate?.busy?.(cost)) || false,
  };
}
