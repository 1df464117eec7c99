/**
 * The request target (path and query) as the core's steps read it: its surface, route,
 * cost class, docs path, and the query both as URLSearchParams and as the text a response
 * cache key holds. A target depends only on its own string (the route tables are fixed
 * when the core is made), and clients ask for the same targets again and again, so the
 * parse of a target is kept by its string (issue 41: on a cached lookup the parse — a
 * URLSearchParams, its text, the router, the docs check — was ~0.8 µs of the core's ~3).
 *
 * Not kept: targets over MAX_KEPT_LENGTH, and any that could carry a credential (`key`
 * anywhere, `alm_`, or anything percent-encoded, which could spell either): a key is never
 * held here.
 * The store is bounded (KEEP entries, emptied when full: a flood of distinct targets costs
 * one parse each, as without it). Kept parses are frozen: a handler that tried to change
 * its route parameters would throw in every test rather than corrupt the next request.
 */
import type { Cost } from '../api/routes.ts';
import { docsPath } from '../api/docs.ts';
import { costOf } from './gate.ts';
import { PUBLIC, type Surface } from './surfaces.ts';

export interface Target {
  rawPath: string;
  /** The query as sent, without `?` ('' when none). */
  query: string;
  surface: Surface;
  match: ReturnType<Surface['router']['match']>;
  cost: Cost;
  /** The release path under /docs this target names, or null. */
  docs: string | null;
  /** The query as a cache key holds it (URLSearchParams' serialisation), once known. */
  queryKey?: string;
}

/** Read-only stand-in for a target without a query (nothing on the hot path writes to it). */
export const NO_QUERY = new URLSearchParams();

const KEEP = 4096;
const MAX_KEPT_LENGTH = 512;
const CREDENTIAL_LIKE = /key|%|alm_/i;

export class Targets {
  private kept = new Map<string, Target>();
  constructor(private readonly surfaces: Surface[]) {}

  /** The target of `url` (path and query as sent); throws the router's malformed_path. */
  of(url: string): Target {
    const hit = this.kept.get(url);
    if (hit) return hit;
    const qi = url.indexOf('?');
    const rawPath = qi === -1 ? url : url.slice(0, qi);
    const query = qi === -1 ? '' : url.slice(qi + 1);
    const surface = this.surfaces.find((s) => s.owns(rawPath)) ?? PUBLIC;
    const match = surface.router.match(rawPath);
    const search = query ? new URLSearchParams(query) : NO_QUERY;
    const t: Target = { rawPath, query, surface, match, cost: costOf(match?.route, search), docs: docsPath(rawPath) };
    if (url.length > MAX_KEPT_LENGTH || CREDENTIAL_LIKE.test(url)) return t;
    t.queryKey = String(search);
    if (match) Object.freeze(match.params);
    if (this.kept.size >= KEEP) this.kept.clear();
    this.kept.set(url, Object.freeze(t));
    return t;
  }
}

/** Each kept target's last response cache key (cacheKeyOf); weak: a target dropped by Targets goes with it. */
const lastKey = new WeakMap<Target, { rel: string; sig: string; key: string }>();

/**
 * The response cache key of a request's target in a release at a staleness signature; its
 * query as the handler reads it (`search`, without `key=`, when the request made one). A kept
 * target keeps its last key, so the same string goes to the cache's Map again: a new string
 * per request was hashed on every lookup (0.2–0.3 µs of a cached lookup's ~3, issue 41).
 */
export function cacheKeyOf({ target, search }: { target: Target; search?: URLSearchParams }, rel: string, sig: string): string {
  if (target.queryKey === undefined) return `${rel} ${sig} ${target.rawPath}?${String(search ?? new URLSearchParams(target.query))}`;
  const last = lastKey.get(target);
  if (last && last.rel === rel && last.sig === sig) return last.key;
  const key = `${rel} ${sig} ${target.rawPath}?${target.queryKey}`;
  lastKey.set(target, { rel, sig, key });
  return key;
}
