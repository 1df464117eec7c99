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

export class Router<R extends Routable> {
  private exact = new Map<string, R>();
  /** Parameterised routes by their number of segments: a path is tried only against routes of its length. */
  private patterns = new Map<number, Compiled<R>[]>();

  constructor(routes: R[]) {
    for (const route of routes) {
      const segments = route.path.split('/').slice(1).map((s) => (s.startsWith('{') ? null : s));
      if (segments.every((s) => s !== null)) this.exact.set(route.path, route);
      else {
        const same = this.patterns.get(segments.length) ?? [];
        same.push({ route, segments });
        this.patterns.set(segments.length, same);
      }
    }
    // More literal segments first; ties keep table order.
    for (const same of this.patterns.values()) same.sort((a, b) => b.segments.filter((s) => s !== null).length - a.segments.filter((s) => s !== null).length);
  }

  /** Route and decoded path parameters; null when nothing matches. */
  match(rawPath: string): { route: R; params: Record<string, string> } | null {
    // Literal segments match in any case (/apis/units/SEARCH is the search endpoint, never
    // unit "SEARCH"); parameter values keep theirs.
    const exact = this.exact.get(rawPath) ?? this.exact.get(rawPath.toLowerCase());
    if (exact) return { route: exact, params: {} };
    const parts = rawPath.split('/').slice(1);
    for (const { route, segments } of this.patterns.get(parts.length) ?? []) {
      // Literals first, so the values of a route that does not match are never decoded.
      let ok = true;
      for (let i = 0; i < segments.length && ok; i++) {
        const lit = segments[i];
        if (lit !== null) ok = lit === parts[i] || lit === parts[i].toLowerCase();
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

export function decodeSegment(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    throw new ApiError('malformed_path', 'the path contains invalid percent-encoding');
  }
}
