/**
 * Filters that compare rather than look up: numeric and date bounds (`min_magnitude`,
 * `from`, `to`), geographic ones (`bbox`, `near` + `radius_km`) and request-time expiry.
 * They scan a precomputed column (a field's values in list order), so they cost one pass
 * over the dataset's records; every dataset that has them is a feed of at most tens of
 * thousands of records. Equality filters keep their indexes (handlers.ts).
 *
 * Decisions (README "Query rules"): a bare date as an upper bound includes that whole
 * day (UTC); `bbox` is minLon,minLat,maxLon,maxLat as in GeoJSON, and minLon > maxLon
 * crosses the antimeridian; `near` is lat,lon; `radius_km` defaults to 100 and is at
 * most 20,000; a record with no value never matches a bound.
 */
import type { DatasetInfo } from '../../pipeline/shards.ts';
import { dateMs } from '../../pipeline/shards.ts';
import { ApiError } from '../http/errors.ts';
import { filterParam, type ParamSpec, type Query } from '../http/query.ts';
import type { Release } from '../release/release.ts';

const DAY_MS = 86_400_000;
const EARTH_KM = 6371.0088;
export const DEFAULT_RADIUS_KM = 100;
export const MAX_RADIUS_KM = 20_000;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;
const NUMBER = /^-?\d{1,12}(\.\d{1,12})?$/;

export const GEO_PARAMS: ParamSpec[] = [
  filterParam('bbox', 'Bounding box "minLon,minLat,maxLon,maxLat" (GeoJSON order, degrees); minLon > maxLon crosses the antimeridian.'),
  filterParam('near', 'Centre "lat,lon" (degrees) of a circle; with radius_km.'),
  filterParam('radius_km', `Radius of the near circle in km, above 0 and at most ${MAX_RADIUS_KM} (default ${DEFAULT_RADIUS_KM}).`),
];
export const INCLUDE_EXPIRED: ParamSpec = {
  name: 'include_expired',
  description: 'true keeps records whose expiry time has passed (by default they are left out, relative to the request time).',
  schema: { type: 'string', minLength: 1, maxLength: 5, enum: ['true', 'false'] },
};

const bad = (param: string, value: string, why: string) =>
  new ApiError('invalid_parameter', `parameter '${param}' ${why}`, { parameter: param, value: value.slice(0, 100) });

/** The bound a compare filter's value stands for (a number, or epoch ms for dates). */
export function boundValue(f: DatasetInfo['filters'][number], raw: string): number {
  if (f.compare!.type === 'number') {
    if (!NUMBER.test(raw)) throw bad(f.param, raw, 'must be a decimal number');
    return Number(raw);
  }
  if (!DATE.test(raw) && !DATE_TIME.test(raw)) throw bad(f.param, raw, 'must be a date YYYY-MM-DD or a date-time like 2024-05-01T12:00:00Z');
  const ms = dateMs(raw);
  // Date.parse rolls 2024-02-30 over to March 1; a calendar date must survive the round trip.
  if (Number.isNaN(ms) || (DATE.test(raw) && new Date(ms).toISOString().slice(0, 10) !== raw)) throw bad(f.param, raw, 'is not a real date');
  // "to=2024-05-01" means up to the end of that day.
  return f.compare!.op === 'max' && DATE.test(raw) ? ms + DAY_MS - 1 : ms;
}

function numbers(param: string, raw: string, n: number): number[] {
  const parts = raw.split(',');
  if (parts.length !== n || !parts.every((p) => NUMBER.test(p.trim()))) throw bad(param, raw, `must be ${n} comma-separated decimal numbers`);
  return parts.map(Number);
}
const lat = (param: string, raw: string, v: number) => {
  if (v < -90 || v > 90) throw bad(param, raw, 'has a latitude outside -90..90');
};
const lon = (param: string, raw: string, v: number) => {
  if (v < -180 || v > 180) throw bad(param, raw, 'has a longitude outside -180..180');
};

/** Great-circle distance in km (haversine). */
export function distanceKm(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const r = Math.PI / 180;
  const a = Math.sin(((lat2 - lat1) * r) / 2) ** 2 + Math.cos(lat1 * r) * Math.cos(lat2 * r) * Math.sin(((lon2 - lon1) * r) / 2) ** 2;
  return 2 * EARTH_KM * Math.asin(Math.min(1, Math.sqrt(a)));
}

/** A predicate over ordinals for every bound/geo/expiry condition the query asks for, or null. */
export async function columnPredicate(release: Release, info: DatasetInfo, query: Query, now: number): Promise<((ord: number) => boolean) | null> {
  const tests: ((ord: number) => boolean)[] = [];
  for (const f of info.filters) {
    const raw = query[f.param];
    if (!f.compare || raw === undefined) continue;
    const bound = boundValue(f, String(raw));
    const col = await release.column(info.id, f.field);
    // A record without the value (NaN) passes neither bound.
    tests.push(f.compare.op === 'min' ? (o) => col[o] >= bound : (o) => col[o] <= bound);
  }
  if (info.geo) {
    const la = await release.column(info.id, info.geo.lat);
    const lo = await release.column(info.id, info.geo.lon);
    if (query.bbox !== undefined) {
      const raw = String(query.bbox);
      const [w, s, e, n] = numbers('bbox', raw, 4);
      lon('bbox', raw, w); lon('bbox', raw, e); lat('bbox', raw, s); lat('bbox', raw, n);
      if (s > n) throw bad('bbox', raw, 'has minLat above maxLat');
      const inLon = w <= e ? (x: number) => x >= w && x <= e : (x: number) => x >= w || x <= e;
      tests.push((o) => la[o] >= s && la[o] <= n && inLon(lo[o]));
    }
    if (query.radius_km !== undefined && query.near === undefined) throw bad('radius_km', String(query.radius_km), "needs 'near'");
    if (query.near !== undefined) {
      const raw = String(query.near);
      const [cLat, cLon] = numbers('near', raw, 2);
      lat('near', raw, cLat); lon('near', raw, cLon);
      const rRaw = query.radius_km === undefined ? String(DEFAULT_RADIUS_KM) : String(query.radius_km);
      const [radius] = numbers('radius_km', rRaw, 1);
      if (!(radius > 0 && radius <= MAX_RADIUS_KM)) throw bad('radius_km', rRaw, `must be above 0 and at most ${MAX_RADIUS_KM}`);
      tests.push((o) => distanceKm(cLat, cLon, la[o], lo[o]) <= radius);
    }
  }
  if (info.expires_field && query.include_expired !== 'true') {
    const ex = await release.column(info.id, info.expires_field);
    // No expiry (NaN): never expired.
    tests.push((o) => !(ex[o] < now));
  }
  if (!tests.length) return null;
  return (o) => tests.every((t) => t(o));
}
