/**
 * One request's state between the core's steps (core/app.ts: parse → authenticate → limit →
 * resolve → send), shared by the modules that implement them.
 */
import type { Cost } from '../api/routes.ts';
import type { Ctx, Usage } from '../api/handlers.ts';
import type { Query } from '../http/query.ts';
import type { Release } from '../release/release.ts';
import type { CoreRequest, HeaderList } from '../http/request.ts';
import type { Caller } from '../state/accounts.ts';
import type { Metered } from './state.ts';
import type { Surface } from './surfaces.ts';
import { NO_QUERY, type Target } from './targets.ts';

export interface Turn {
  req: CoreRequest;
  target: Target;
  rawPath: string;
  /** The query's parameters, made when first asked for (searchOf). */
  search?: URLSearchParams;
  surface: Surface;
  match: ReturnType<Surface['router']['match']>;
  /** The RateLimit headers to send. */
  limitHeaders: HeaderList;
  /** The key to bill once the answer is known (never for /api/v1/key, a 304, or a 429). */
  billKey?: Metered;
  key?: Caller;
  usage?: Usage;
  /** Its cost class, and the lane slot it holds ('free': none). */
  cost: Cost;
  admitted: Cost;
}

/** The query's parameters (NO_QUERY, shared and never written to, when there is none). */
export const searchOf = (t: Turn) => (t.search ??= t.target.query ? new URLSearchParams(t.target.query) : NO_QUERY);

/**
 * A handler's context, made by this function only: the core's rehearsals (the study
 * warm-up) then have the same fields in the same order as a request's, so the code V8
 * optimizes while the server warms still fits the requests after it (docs/benchmarks.md,
 * "Cold study ranges, thirteenth pass": a context of another shape undid it at the first
 * real range).
 */
export const handlerContext = (release: Release, params: Record<string, string>, query: Query, path: string, key: Ctx['key'], usage: Ctx['usage'], reviews: Ctx['reviews'], ready: Ctx['ready'], uncached: boolean): Ctx =>
  ({ release, params, query, path, key, usage, reviews, ready, uncached });
