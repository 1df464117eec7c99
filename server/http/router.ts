/**
 * Matches a request path against the route table. Literal-only routes are a map
 * lookup; parameterised routes are tried with literal segments first, so a literal
 * (`search`, `convert`) always wins over a path parameter. Literals match in any case.
 */
import { ApiError } from './errors.ts';

/** What the router needs of a route (api/routes.ts Route): its path template and its parameters' names. */
export interface Routable {
  path: string;
  pathParams: { name: string }[];
}

interface Compiled<R> {
  route: R;
  segments: (string | null)[];
}

/**
 * The parameterised routes of one length, in match order, also split by the literal at one
 * segment (`at`, the one with the most distinct literals: the dataset of /apis/{ds}/…), so
 * a path is tried only against the routes that can match there (issue 41: a lookup was
 * compared with ~50 routes of its length, lower-casing a segment each time). A list of
 * `byLiteral` holds the routes with that literal or a parameter there, in match order.
 */
interface Bucket<R> {
  all: Compiled<R>[];
  at: number;
  byLiteral: Map<string, Compiled<R>[]>;
  /** The routes with a parameter at `at`: what a segment no literal names can match. */
  wild: Compiled<R>[];
}

export class Router<R extends Routable> {
  private exact = new Map<string, R>();
  /** Parameterised routes by their number of segments: a path is tried only against routes of its length. */
  private patterns = new Map<number, Bucket<R>>();

  constructor(routes: R[]) {
    const byLength = new Map<number, Compiled<R>[]>();
    for (const route of routes) {
      const segments = route.path.split('/').slice(1).map((s) => (s.startsWith('{') ? null : s));
      if (segments.every((s) => s !== null)) this.exact.set(route.path, route);
      else {
        const same = byLength.get(segments.length) ?? [];
        same.push({ route, segments });
        byLength.set(segments.length, same);
      }
    }
    for (const [length, all] of byLength) {
      // More literal segments first; ties keep table order.
      all.sort((a, b) => b.segments.filter((s) => s !== null).length - a.segments.filter((s) => s !== null).length);
      this.patterns.set(length, bucket(all, length));
    }
  }

  /** Route and decoded path parameters; null when nothing matches. */
  match(rawPath: string): { route: R; params: Record<string, string> } | null {
    // Literal segments match in any case (/apis/units/SEARCH is the search endpoint, never
    // unit "SEARCH"); parameter values keep theirs.
    const exact = this.exact.get(rawPath) ?? this.exact.get(rawPath.toLowerCase());
    if (exact) return { route: exact, params: {} };
    const parts = rawPath.split('/').slice(1);
    const b = this.patterns.get(parts.length);
    if (!b) return null;
    const candidates = b.at < 0 ? b.all : b.byLiteral.get(parts[b.at].toLowerCase()) ?? b.wild;
    let lower: string[] | undefined;
    for (const { route, segments } of candidates) {
      // Literals first, so the values of a route that does not match are never decoded.
      let ok = true;
      for (let i = 0; i < segments.length && ok; i++) {
        const lit = segments[i];
        if (lit !== null) ok = lit === parts[i] || lit === (lower ??= parts.map((p) => p.toLowerCase()))[i];
        else ok = parts[i] !== '';
      }
      if (!ok) continue;
      const params: Record<string, string> = {};
      for (let i = 0, n = 0; i < segments.length; i++) if (segments[i] === null) params[route.pathParams[n++].name] = decodeSegment(parts[i]);
      return { route, params };
    }
    return null;
  }
}

/** Splits routes of one length by the literal segment that tells most of them apart (none if a literal is not lower case: they match in any case). */
function bucket<R>(all: Compiled<R>[], length: number): Bucket<R> {
  let at = -1, most = 1;
  for (let i = 0; i < length; i++) {
    const lits = new Set(all.map((c) => c.segments[i]).filter((x) => x !== null));
    if (lits.size > most) [at, most] = [i, lits.size];
  }
  const lowerCase = all.every((c) => c.segments.every((x) => x === null || x === x.toLowerCase()));
  if (!lowerCase) at = -1;
  const byLiteral = new Map<string, Compiled<R>[]>();
  if (at >= 0) {
    for (const c of all) {
      const lit = c.segments[at];
      if (lit !== null && !byLiteral.has(lit)) byLiteral.set(lit, all.filter((o) => o.segments[at] === lit || o.segments[at] === null));
    }
  }
  return { all, at, byLiteral, wild: at >= 0 ? all.filter((c) => c.segments[at] === null) : all };
}

export function decodeSegment(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    throw new ApiError('malformed_path', 'the path contains invalid percent-encoding');
  }
}
