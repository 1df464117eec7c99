/**
 * The two API surfaces share one server, key store, quota counter and error catalogue,
 * and differ in prefix, route table, credential rules and not-found wording:
 *   /apis     platform   X-Service-Key or Bearer; 401 for every credential failure
 *   /api/v1   scripture  Bearer, X-Scripture-Key or key=; 401 when missing, 403 when bad
 * Anything else (e.g. /healthz) is public and never counted.
 */
import { PLATFORM_CREDENTIALS, SCRIPTURE_CREDENTIALS, type CredentialRules } from './credentials.ts';
import { ApiError } from '../http/errors.ts';
import { Router } from '../http/router.ts';
import { ROUTES, type Route } from '../api/routes.ts';
import { V1_ROUTES } from '../api/v1/routes.ts';

export interface Surface {
  owns(path: string): boolean;
  router: Router<Route>;
  credentials?: CredentialRules;
  notFound(path: string): ApiError;
}

/** The /apis surface over a route table (tests add routes of test-only datasets). */
export function platformSurface(routes: Route[]): Surface {
  const datasetSegments = new Set(routes.map((r) => r.path.split('/')[2]).filter(Boolean));
  return {
    owns: (p) => p === '/apis' || p.startsWith('/apis/'),
    router: new Router(routes),
    credentials: PLATFORM_CREDENTIALS,
    notFound(path) {
      const seg = path.split('/')[2];
      if (seg && !datasetSegments.has(seg)) {
        return new ApiError('dataset_not_found', `no dataset '${seg.slice(0, 60)}'`, { dataset: seg.slice(0, 60) });
      }
      return new ApiError('not_found', 'no endpoint at this path');
    },
  };
}

export const PLATFORM = platformSurface(ROUTES.filter((r) => r.path.startsWith('/apis')));

export const SCRIPTURE: Surface = {
  owns: (p) => p === '/api/v1' || p.startsWith('/api/v1/'),
  router: new Router(V1_ROUTES),
  credentials: SCRIPTURE_CREDENTIALS,
  notFound: () => new ApiError('not_found', 'no endpoint at this path'),
};

export const PUBLIC: Surface = {
  owns: () => true,
  router: new Router(ROUTES.filter((r) => !r.path.startsWith('/apis'))),
  notFound: () => new ApiError('not_found', 'no endpoint at this path'),
};

export const SURFACES = [PLATFORM, SCRIPTURE];
