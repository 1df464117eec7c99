/**
 * The router's index (issue 41: routes of a path's length split by the literal that tells
 * them apart) must match exactly what a plain scan of the route table in match order
 * matches: the same route and parameters, or the same error, for every path. Checked
 * over every route of both surfaces and the public ones, with paths made from the table's
 * own segments in any case, parameter values of any characters, and broken encodings.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ROUTES, type Route } from '../server/api/routes.ts';
import { V1_ROUTES } from '../server/api/v1/routes.ts';
import { Router, decodeSegment } from '../server/http/router.ts';

/** The reference: every parameterised route of the path's length, most literals first, table order within. */
function scan(routes: Route[], rawPath: string): { route: Route; params: Record<string, string> } | null {
  const lits = (r: Route) => r.path.split('/').slice(1).filter((s) => !s.startsWith('{')).length;
  for (const r of routes) if (!r.path.includes('{') && (r.path === rawPath || r.path === rawPath.toLowerCase())) return { route: r, params: {} };
  const parts = rawPath.split('/').slice(1);
  const ordered = routes.filter((r) => r.path.includes('{') && r.path.split('/').length - 1 === parts.length).sort((a, b) => lits(b) - lits(a));
  for (const route of ordered) {
    const segs = route.path.split('/').slice(1);
    if (!segs.every((s, i) => (s.startsWith('{') ? parts[i] !== '' : s === parts[i] || s === parts[i].toLowerCase()))) continue;
    const params: Record<string, string> = {};
    let n = 0;
    segs.forEach((s, i) => {
      if (s.startsWith('{')) params[route.pathParams[n++].name] = decodeSegment(parts[i]);
    });
    return { route, params };
  }
  return null;
}

const outcome = (f: () => { route: Route; params: Record<string, string> } | null) => {
  try {
    const m = f();
    return m ? { path: m.route.path, params: m.params } : null;
  } catch (err) {
    return { error: (err as { code?: string }).code };
  }
};

const TABLES: [string, Route[]][] = [
  ['/apis', ROUTES.filter((r) => r.path.startsWith('/apis'))],
  ['/api/v1', V1_ROUTES],
  ['public', ROUTES.filter((r) => !r.path.startsWith('/apis'))],
];

describe('router index', () => {
  for (const [name, routes] of TABLES) {
    const router = new Router(routes);
    const segments = [...new Set(routes.flatMap((r) => r.path.split('/').slice(1)).filter((s) => !s.startsWith('{')))];

    it(`${name}: every route's own path (parameters filled) matches as the plain scan does`, () => {
      for (const r of routes) {
        const path = r.path.replace(/\{[^}]+\}/g, 'x1');
        expect(outcome(() => router.match(path)), path).toEqual(outcome(() => scan(routes, path)));
        const upper = r.path.split('/').map((s) => (s.startsWith('{') ? 'Fe' : s.toUpperCase())).join('/');
        expect(outcome(() => router.match(upper)), upper).toEqual(outcome(() => scan(routes, upper)));
      }
    });

    it(`${name}: any path of the table's segments, values and cases matches as the plain scan does`, () => {
      const value = fc.oneof(
        fc.constantFrom(...segments),
        fc.constantFrom(...segments).map((s) => s.toUpperCase()),
        fc.string({ maxLength: 6 }).map(encodeURIComponent),
        fc.constantFrom('', '%', '%E0%A4%A', 'Fe', 'search', 'SEARCH', '%2F'),
      );
      // A route's template with each segment kept (in any case) or replaced, or any run of segments.
      const caseOf = (lit: string) => fc.array(fc.boolean(), { minLength: lit.length, maxLength: lit.length }).map((up) => [...lit].map((c, i) => (up[i] ? c.toUpperCase() : c)).join(''));
      const fromRoute = fc.constantFrom(...routes).chain((r) => fc.tuple(...r.path.split('/').slice(1).map((seg) => (seg.startsWith('{') ? value : fc.oneof(caseOf(seg), value)))));
      fc.assert(fc.property(fc.oneof(fromRoute, fc.array(value, { minLength: 1, maxLength: 6 })), (segs) => {
        const path = `/${segs.join('/')}`;
        expect(outcome(() => router.match(path))).toEqual(outcome(() => scan(routes, path)));
      }), { numRuns: 3000 });
    });
  }

  it('a lookup is tried only against the routes that can match its dataset', () => {
    const routes = ROUTES.filter((r) => r.path.startsWith('/apis'));
    const router = new Router(routes) as unknown as { patterns: Map<number, { all: unknown[]; byLiteral: Map<string, unknown[]> }> };
    const three = router.patterns.get(3)!;
    const elements = three.byLiteral.get('elements')!;
    expect(three.all.length).toBeGreaterThan(20);
    expect(elements.length).toBeLessThan(6);
  });
});
