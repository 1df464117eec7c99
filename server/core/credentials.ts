/**
 * Credentials of both surfaces: which headers (and query parameter) carry a key, and the
 * catalogue codes their failures get. A key arrives on /apis as `X-Service-Key: <key>` or
 * `Authorization: Bearer <key>`, on /api/v1 also as `X-Scripture-Key` or `key=`; several
 * may be sent only if they carry the same key. Whether a key may be served and what it
 * may do (its access and limits) is the state's to say (core/state.ts).
 */
import { ApiError } from '../http/errors.ts';
import type { CoreRequest } from '../http/request.ts';

/**
 * The members of a credential header: repeated fields arrive joined with ", " (both
 * runtimes, http/request.ts), and a key never holds a comma, so each member is one
 * credential. Two members with different keys are a conflict, never "the first one":
 * guessing would bill the wrong key.
 */
function members(v: string | undefined): string[] {
  if (v === undefined) return [];
  // One field with one member, nearly every request: no split, map and filter arrays (issue 41).
  if (!v.includes(',')) {
    const m = v.trim();
    return m ? [m] : [];
  }
  return v.split(',').map((m) => m.trim()).filter(Boolean);
}

const BEARER = /^Bearer[ ]+(\S+)$/i;
function bearers(header: string | undefined, invalid: () => ApiError): string[] {
  const all = members(header);
  for (let i = 0; i < all.length; i++) {
    const b = BEARER.exec(all[i]);
    if (!b) throw invalid();
    all[i] = b[1];
  }
  return all;
}

/** Two lists of credentials as one, without a copy when one is empty. */
const both = (a: string[], b: string[]) => (!a.length ? b : !b.length ? a : a.concat(b));

const MALFORMED = 'the Authorization header must have the form "Bearer <key>"';

/** How a surface reads credentials and which catalogue codes its failures get. */
export interface CredentialRules {
  /** Every credential the request carries, in order of preference. */
  read(req: CoreRequest, search: URLSearchParams, invalid: () => ApiError): string[];
  /** No credential this surface reads; names the other surface's credential when one was sent instead (issue 28). */
  missing: (req: CoreRequest, search: URLSearchParams) => ApiError;
  invalid: (why: string) => ApiError;
  /** A malformed Authorization header: the invalid key of this surface (one function, not one per request). */
  malformed: () => ApiError;
  inactive: () => ApiError;
  /** Credentials that disagree (README "Authentication"): 401 on /apis, 403 on /api/v1. */
  conflict: () => ApiError;
  /** A known, unrevoked key whose project has no live subscription or exception. */
  unsubscribed: (why: string, details: Record<string, unknown>) => ApiError;
}

/**
 * WWW-Authenticate of a 401 (RFC 9110 §11.6.1): the Bearer challenge (RFC 6750, with
 * `error="invalid_token"` when a key was sent but refused), then a `ServiceKey` challenge
 * naming the header (and query parameter) that carry a key the other way. Clients that do
 * not know the second scheme skip it.
 */
function challenge(other: string, invalid?: string): Record<string, string> {
  const bearerParams = invalid ? `realm="almanac", error="invalid_token", error_description="${invalid.replace(/["\\]/g, '')}"` : 'realm="almanac"';
  return { 'www-authenticate': `Bearer ${bearerParams}, ServiceKey realm="almanac", ${other}` };
}
const PLATFORM_OTHER = 'header="X-Service-Key"';
const SCRIPTURE_OTHER = 'header="X-Scripture-Key", query="key"';

/** /apis: X-Service-Key or Authorization: Bearer. */
export const PLATFORM_CREDENTIALS: CredentialRules = {
  read: (req, _s, invalid) => both(members(req.header('x-service-key')), bearers(req.header('authorization'), invalid)),
  missing: (req, search) => new ApiError('authentication_required', req.header('x-scripture-key') !== undefined || search.has('key')
    ? `/apis does not read ${req.header('x-scripture-key') !== undefined ? 'X-Scripture-Key' : 'the key= parameter'} (that is /api/v1's); send the same key in X-Service-Key or Authorization: Bearer`
    : 'send a key in X-Service-Key or Authorization: Bearer', undefined, challenge(PLATFORM_OTHER)),
  invalid: (why) => new ApiError('invalid_key', why, undefined, challenge(PLATFORM_OTHER, why)),
  malformed: () => PLATFORM_CREDENTIALS.invalid(MALFORMED),
  inactive: () => new ApiError('invalid_key', 'the key has been revoked', undefined, challenge(PLATFORM_OTHER, 'the key has been revoked')),
  conflict: () => new ApiError('conflicting_credentials', 'the credentials sent carry different keys; send one key', undefined, challenge(PLATFORM_OTHER, 'the credentials sent carry different keys')),
  // The platform spec: a credential that is not accepted is a 401, whatever the reason.
  unsubscribed: (why, details) => new ApiError('subscription_inactive', why, details, challenge(PLATFORM_OTHER, 'the key has no active subscription'), 'apis'),
};

/** /api/v1: Authorization: Bearer (preferred), X-Scripture-Key, or the key= query parameter. */
export const SCRIPTURE_CREDENTIALS: CredentialRules = {
  read: (req, search, invalid) => {
    const given = both(bearers(req.header('authorization'), invalid), members(req.header('x-scripture-key')));
    return search.has('key') ? given.concat(search.getAll('key')) : given;
  },
  // 401 only when no key was sent; a refused key is a 403 here (scripture spec), which carries no challenge.
  missing: (req) => new ApiError('api_key_required', req.header('x-service-key') !== undefined
    ? '/api/v1 does not read X-Service-Key (that is /apis\'s); send the same key as Authorization: Bearer <key>, X-Scripture-Key, or key='
    : 'send a key as Authorization: Bearer <key>, X-Scripture-Key, or key=', undefined, challenge(SCRIPTURE_OTHER)),
  invalid: (why) => new ApiError('invalid_api_key', why),
  malformed: () => SCRIPTURE_CREDENTIALS.invalid(MALFORMED),
  inactive: () => new ApiError('inactive_api_key', 'the key has been revoked or is not active'),
  conflict: () => new ApiError('invalid_api_key', 'the credentials sent carry different keys; send one key'),
  unsubscribed: (why, details) => new ApiError('subscription_inactive', why, details),
};

/**
 * The key a request carries: one, or several forms of the same one. None is the surface's
 * 401; different keys are a conflict (401 on /apis, 403 on /api/v1); a malformed Authorization header is an invalid key.
 */
export function credentialOf(req: CoreRequest, search: URLSearchParams, rules: CredentialRules): string {
  const given = rules.read(req, search, rules.malformed);
  // An empty key= is no credential (headers' empty members are already dropped).
  let first: string | undefined;
  for (const c of given) {
    if (!c) continue;
    if (first === undefined) first = c;
    else if (c !== first) throw rules.conflict();
  }
  if (first === undefined) throw rules.missing(req, search);
  return first;
}
