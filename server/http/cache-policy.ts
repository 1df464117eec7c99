/**
 * The cache policy: one row per kind of response, the only place Cache-Control and Vary
 * are decided. README "Cache policy" shows the same table (a test compares them).
 *
 * The rule a CDN in front relies on: everything answered to a key is `private` (a shared
 * cache must not store it, RFC 9111 §5.2.2.7) and also varies on every credential header,
 * so even a cache that ignores `private` cannot hand one key's answer to another client.
 * Only public documents (no key, identical for everyone) are `public`.
 */
import { DEFAULT_REFRESH, type DatasetInfo } from '../../pipeline/shards.ts';

export type ResponseKind = 'reference' | 'live' | 'changing' | 'account' | 'health' | 'front' | 'document' | 'immutable' | 'download' | 'error';

/** Every header that can carry a key (both surfaces); `key=` is in the URL, which every cache keys on anyway. */
export const CREDENTIAL_HEADERS = 'Authorization, X-Service-Key, X-Scripture-Key';
const KEYED_VARY = `Accept-Encoding, ${CREDENTIAL_HEADERS}`;

/** Live feeds: max-age follows the dataset's expected refresh, bounded to [LIVE_MIN, LIVE_MAX] seconds. */
export const LIVE_MIN_MAX_AGE = 60;
export const LIVE_MAX_MAX_AGE = 300;

export interface PolicyRow {
  kind: ResponseKind;
  /** Which responses get it. */
  applies: string;
  cacheControl: string;
  vary: string;
}

export const CACHE_POLICY: readonly PolicyRow[] = [
  { kind: 'reference', applies: 'keyed data of a fixed release (reference datasets, translations, word study text)', cacheControl: 'private, max-age=86400', vary: KEYED_VARY },
  { kind: 'live', applies: "keyed data of a live feed (earthquakes, alerts, filings…)", cacheControl: `private, max-age=<refresh.expected_seconds, within ${LIVE_MIN_MAX_AGE}–${LIVE_MAX_MAX_AGE}>`, vary: KEYED_VARY },
  { kind: 'changing', applies: 'keyed answers that change without a new release: the catalogue (stale flags), /apis/downloads, study, morphology and source-coverage (reviews)', cacheControl: 'private, max-age=60', vary: KEYED_VARY },
  { kind: 'account', applies: '/api/v1/key (usage counters)', cacheControl: 'no-store', vary: KEYED_VARY },
  { kind: 'health', applies: '/healthz, /readyz', cacheControl: 'no-store', vary: 'Accept-Encoding' },
  { kind: 'front', applies: '/ (JSON, or an HTML page for a browser)', cacheControl: 'no-store', vary: 'Accept, Accept-Encoding' },
  { kind: 'document', applies: 'public documents: /apis/openapi.json, /api/v1/openapi, /docs pages', cacheControl: 'public, max-age=300', vary: 'Accept-Encoding' },
  { kind: 'immutable', applies: 'public files named by their content hash (docs assets: `name.<hash>.ext`)', cacheControl: 'public, max-age=31536000, immutable', vary: 'Accept-Encoding' },
  { kind: 'download', applies: 'bundle archives, download.json, SHA256SUMS (never content-encoded; Range)', cacheControl: 'private, max-age=3600', vary: CREDENTIAL_HEADERS },
  { kind: 'error', applies: 'every error (envelope or problem+json)', cacheControl: 'no-store', vary: 'Accept' },
];

const BY_KIND = new Map(CACHE_POLICY.map((r) => [r.kind, r]));

/** max-age of a live dataset's responses: its expected refresh, bounded. */
export function liveMaxAge(info: Pick<DatasetInfo, 'refresh'> | undefined): number {
  const expected = info?.refresh?.expected_seconds ?? DEFAULT_REFRESH.expected_seconds;
  return Math.min(LIVE_MAX_MAX_AGE, Math.max(LIVE_MIN_MAX_AGE, Math.floor(expected)));
}

/** The Cache-Control and Vary headers of a response of this kind (flat header list). */
export function policyHeaders(kind: ResponseKind, info?: Pick<DatasetInfo, 'refresh'>): string[] {
  const row = BY_KIND.get(kind)!;
  const cc = kind === 'live' ? `private, max-age=${liveMaxAge(info)}` : row.cacheControl;
  return ['cache-control', cc, 'vary', row.vary];
}

/**
 * Whether a public file name carries its content hash (`app.3f9a1c2e.js`, at least 8 hex
 * digits before the extension) and so may be cached for a year: the docs page's assets
 * should be named this way and served with policyHeaders(publicFileKind(name)).
 */
export const isContentHashed = (name: string) => /\.[0-9a-f]{8,}\.[a-z0-9]+$/i.test(name);
export const publicFileKind = (name: string): ResponseKind => (isContentHashed(name) ? 'immutable' : 'document');
