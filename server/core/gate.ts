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
