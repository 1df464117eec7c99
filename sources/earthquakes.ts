/**
 * earthquakes — the USGS real-time GeoJSON summary feeds, as a rolling 30-day window.
 *
 * Upstream: https://earthquake.usgs.gov/earthquakes/feed/v1.0/summary/<feed>.geojson
 * (format documented at https://earthquake.usgs.gov/earthquakes/feed/v1.0/geojson.php): a
 * FeatureCollection with `metadata` {generated (ms), url, title, status, api, count} and one
 * Point feature per event, `id` = the preferred event id, coordinates [lon, lat, depth km],
 * times in epoch milliseconds. Feeds are regenerated every minute or so, hence live inputs.
 *
 * Inputs (each optional; any present ones are merged):
 * - all_month: every event of the past 30 days — the dataset's real basis. Not mirrored.
 * - all_week: every event of the past 7 days. Mirrored (2024-05-04, api 1.10.3), and a
 *   newer snapshot of 2025-05-04 (api 1.14.1, 1,761 events) saved in Sudo-Ivan/usgs-data
 *   (pretty-printed there): a pinned copy, which a folder mirror takes as the newer.
 * - significant_month: the significant events of the past 30 days (snapshot of 2025-05-04,
 *   19 events, the same repository): with all_week, the older significant events of the
 *   month (12 of the 19 are not in the week). The snapshot's all_day adds nothing to its
 *   all_week (every event of it is there, none updated later) and is not an input.
 * - m45_month: M4.5+ of the past 30 days. Mirrored copy is from 2014 (api 1.0.13), whose
 *   features differ from today's: `tz` is a number (now always null; not served either
 *   way), `tsunami` is null where today's feeds say 0 (served as false), `status` is
 *   sometimes upper-case "REVIEWED" (lower-cased here: the documented values are
 *   automatic/reviewed/deleted), magType case varies ("Mw", "Ml"; kept as given), and
 *   URLs are http:// (kept as given).
 *
 * Decisions:
 * - Merge: events are de-duplicated by feed id; the copy with the newest `updated` wins
 *   (ties: the first feed in the order all_month, all_week, m45_month). Associated ids
 *   (the feed's `ids`) are served but not used to merge: feeds fetched together agree
 *   on the preferred id.
 * - Rolling window: only events whose time is within 30 days before the NEWEST feed's
 *   metadata.generated are kept (inclusive). So a stale feed cannot bring back old events:
 *   with the 2024 all_week present, the 2014 m45_month contributes nothing.
 * - Dropped per event: tz (deprecated), detail (a per-event feed URL), code/net duplicate
 *   the id, sources/types (product bookkeeping), nst/dmin/rms/gap (location-quality
 *   statistics). Nulls are kept as the feed has them.
 */
import { dateBounds, defineSource } from './contract.ts';

export interface EarthquakeRecord {
  id: string; time: string; updated: string; magnitude: number | null; magnitude_type: string | null;
  place: string | null; latitude: number; longitude: number; depth_km: number; event_type: string;
  status: string; tsunami: boolean; significance: number; alert: string | null; felt: number | null;
  cdi: number | null; mmi: number | null; network: string; associated_ids: string[]; url: string; title: string;
}

/** Input names in merge-priority order, with the file name used in error messages. */
const FEEDS = [
  ['all_month', 'all_month.geojson'], ['all_week', 'all_week.geojson'], ['significant_month', 'significant_month.geojson'], ['m45_month', '4.5_month.geojson'],
] as const;
const BASE = 'https://earthquake.usgs.gov/earthquakes/feed/v1.0/summary/';
/** The 2025-05-04 snapshots of Sudo-Ivan/usgs-data (upstream mirror provenance rows 655 and 657), pinned. */
const SNAPSHOTS = 'https://raw.githubusercontent.com/Sudo-Ivan/usgs-data/b3c2edd616ba18b57089aa8c790bfae5fa8dc883/data/';
export const SNAPSHOT_COPIES = {
  all_week: { url: `${SNAPSHOTS}all_week.json`, sha256: 'c42916073cc917bed86d7e99ea14ece83a4a930ca88220809fec15faa1579bf3' },
  significant_month: { url: `${SNAPSHOTS}significant_month.json`, sha256: '8897e80a0d9defe7f27f4ff74c7e7bab296eaddf076d03e7577d283f343f3760' },
};
/** A feed's metadata.generated (a live input's dataTime: which of a mirror's copies is newest). */
const generatedOf = (body: unknown): string | null => {
  const g = isObj(body) && isObj(body.metadata) ? body.metadata.generated : undefined;
  return Number.isSafeInteger(g) && (g as number) > 0 ? new Date(g as number).toISOString() : null;
};
const WINDOW_MS = 30 * 24 * 3600 * 1000;
const ALERTS = ['green', 'yellow', 'orange', 'red'];
const STATUSES = ['automatic', 'reviewed', 'deleted'];

function fail(where: string, field: string, value: unknown): never {
  const shown = JSON.stringify(value);
  throw new Error(`earthquakes: ${where} field ${field}: unexpected ${shown === undefined ? 'undefined' : shown.slice(0, 200)}`);
}
const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const num = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const nullableNum = (at: string, f: string, v: unknown) => (v === null || num(v) ? v : fail(at, f, v));
const str = (at: string, f: string, v: unknown, re = /\S/) => (typeof v === 'string' && re.test(v) ? v : fail(at, f, v));
const ms = (at: string, f: string, v: unknown) => (Number.isSafeInteger(v) && (v as number) > 0 ? new Date(v as number).toISOString() : fail(at, f, v));

interface Feed { file: string; generated: number; features: unknown[] }

/** Checks a feed's envelope; undefined when the (optional) input is absent. */
function readFeed(file: string, body: unknown): Feed | undefined {
  if (body === undefined) return undefined;
  if (!isObj(body) || body.type !== 'FeatureCollection') fail(file, 'type', isObj(body) ? body.type : body);
  const meta = isObj(body.metadata) ? body.metadata : fail(file, 'metadata', body.metadata);
  if (!Number.isSafeInteger(meta.generated) || (meta.generated as number) <= 0) fail(file, 'metadata.generated', meta.generated);
  if (!Array.isArray(body.features)) fail(file, 'features', body.features);
  return { file, generated: meta.generated as number, features: body.features };
}

function feeds(raw: Record<string, unknown>): Feed[] {
  return FEEDS.map(([name, file]) => readFeed(file, raw[name])).filter((f): f is Feed => !!f);
}

function toRecord(feature: unknown, at: string): { record: EarthquakeRecord; time: number; updated: number } {
  const f = isObj(feature) ? feature : fail(at, '(feature)', feature);
  const id = str(at, 'id', f.id, /^[a-z0-9_-]+$/i);
  at = `${at} (${id})`;
  if (f.type !== 'Feature') fail(at, 'type', f.type);
  const g = isObj(f.geometry) ? f.geometry : fail(at, 'geometry', f.geometry);
  const c = g.coordinates;
  if (g.type !== 'Point' || !Array.isArray(c) || c.length !== 3 || !c.every(num)) fail(at, 'geometry', g);
  const [longitude, latitude, depth] = c as number[];
  if (Math.abs(latitude) > 90 || Math.abs(longitude) > 180) fail(at, 'geometry.coordinates', c);
  const p = isObj(f.properties) ? f.properties : fail(at, 'properties', f.properties);
  const prop = (k: string) => `properties.${k}`;
  const status = str(at, prop('status'), p.status).toLowerCase();
  if (!STATUSES.includes(status)) fail(at, prop('status'), p.status);
  if (p.alert !== null && !ALERTS.includes(p.alert as string)) fail(at, prop('alert'), p.alert);
  // 2014 feeds: null = no tsunami flag; today's feeds: 0 or 1.
  if (![0, 1, null].includes(p.tsunami as number)) fail(at, prop('tsunami'), p.tsunami);
  if (p.felt !== null && (!Number.isSafeInteger(p.felt) || (p.felt as number) < 0)) fail(at, prop('felt'), p.felt);
  if (!Number.isSafeInteger(p.sig)) fail(at, prop('sig'), p.sig);
  if (typeof p.ids !== 'string' || !p.ids.includes(`,${id},`)) fail(at, prop('ids'), p.ids);
  const record: EarthquakeRecord = {
    id,
    time: ms(at, prop('time'), p.time),
    updated: ms(at, prop('updated'), p.updated),
    magnitude: nullableNum(at, prop('mag'), p.mag),
    magnitude_type: p.magType === null ? null : str(at, prop('magType'), p.magType),
    place: p.place === null ? null : str(at, prop('place'), p.place, /^/),
    latitude,
    longitude,
    depth_km: depth,
    event_type: str(at, prop('type'), p.type),
    status,
    tsunami: p.tsunami === 1,
    significance: p.sig as number,
    alert: p.alert as string | null,
    felt: p.felt as number | null,
    cdi: nullableNum(at, prop('cdi'), p.cdi),
    mmi: nullableNum(at, prop('mmi'), p.mmi),
    network: str(at, prop('net'), p.net, /^[a-z0-9]+$/i),
    associated_ids: (p.ids as string).split(',').filter((s) => s !== ''),
    url: str(at, prop('url'), p.url, /^https?:\/\//),
    title: str(at, prop('title'), p.title),
  };
  return { record, time: p.time as number, updated: p.updated as number };
}

export function normaliseEarthquakes(raw: Record<string, unknown>): EarthquakeRecord[] {
  const present = feeds(raw);
  if (present.length === 0) throw new Error('earthquakes: no feed present (all_month, all_week, significant_month and 4.5_month are all missing)');
  const since = Math.max(...present.map((f) => f.generated)) - WINDOW_MS;
  const kept = new Map<string, { record: EarthquakeRecord; updated: number }>();
  for (const feed of present) {
    feed.features.forEach((feature, i) => {
      const e = toRecord(feature, `${feed.file} feature ${i}`);
      if (e.time < since) return; // outside the rolling window (see top of file)
      const prev = kept.get(e.record.id);
      if (!prev || e.updated > prev.updated) kept.set(e.record.id, e);
    });
  }
  return [...kept.values()].map((e) => e.record);
}

/** The newest present feed's metadata.generated: when USGS built the data served. */
export function earthquakesUpstreamTime(raw: Record<string, unknown>): string | null {
  const present = feeds(raw);
  return present.length ? new Date(Math.max(...present.map((f) => f.generated))).toISOString() : null;
}

const nullable = (type: string, extra: Record<string, unknown> = {}) => ({ type: [type, 'null'], ...extra });
const ISO_MS = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z$';

const properties = {
  id: { type: 'string', description: 'USGS preferred event id (network + code), e.g. "nc75000901"' },
  time: { type: 'string', pattern: ISO_MS, description: 'Origin time, ISO 8601 UTC' },
  updated: { type: 'string', pattern: ISO_MS, description: 'When USGS last updated the event, ISO 8601 UTC' },
  magnitude: nullable('number'),
  magnitude_type: nullable('string', { description: 'Magnitude type as the feed gives it, e.g. ml, md, mb, mww' }),
  place: nullable('string', { description: 'Named region near the epicentre, e.g. "7 km NW of The Geysers, CA"' }),
  latitude: { type: 'number', minimum: -90, maximum: 90 },
  longitude: { type: 'number', minimum: -180, maximum: 180 },
  depth_km: { type: 'number', description: 'Depth in km (negative: above sea level)' },
  event_type: { type: 'string', description: 'earthquake, quarry blast, explosion, …' },
  status: { type: 'string', enum: STATUSES, description: 'automatic or reviewed (by a seismologist); deleted' },
  tsunami: { type: 'boolean', description: 'The feed\'s tsunami flag (large oceanic event: check tsunami.gov). Not a tsunami warning' },
  significance: { type: 'integer', description: 'USGS significance 0–1000+ (magnitude, felt reports, PAGER)' },
  alert: nullable('string', { enum: [...ALERTS, null], description: 'PAGER alert level' }),
  felt: nullable('integer', { description: 'Number of "Did You Feel It?" reports' }),
  cdi: nullable('number', { description: 'Maximum reported (DYFI) intensity' }),
  mmi: nullable('number', { description: 'Maximum estimated (ShakeMap) intensity' }),
  network: { type: 'string', description: 'Contributing network of the preferred origin, e.g. us, ci, ak' },
  associated_ids: { type: 'array', items: { type: 'string' }, description: 'All ids associated with this event (the feed\'s `ids`), including id' },
  url: { type: 'string', description: 'USGS event page' },
  title: { type: 'string' },
};

export default defineSource<EarthquakeRecord>({
  id: 'earthquakes',
  title: 'Earthquakes (rolling 30 days)',
  description: 'Earthquakes and other seismic events worldwide from the USGS real-time feeds, for the 30 days '
    + 'before the feed was generated. Listed newest first; filter by time, magnitude, type, status and PAGER alert.',
  contractVersion: '0.1.0',
  provenance: [{
    name: 'USGS Earthquake Hazards Program real-time GeoJSON summary feeds (ANSS ComCat)',
    url: 'https://earthquake.usgs.gov/earthquakes/feed/v1.0/geojson.php',
    licence: {
      spdx: 'LicenseRef-US-Gov-PD',
      name: 'Public domain (US government work, 17 USC 105)',
      url: 'https://www.usgs.gov/information-policies-and-instructions/copyrights-and-credits',
    },
    attribution: 'Earthquake data courtesy of the U.S. Geological Survey (Earthquake Hazards Program); '
      + 'automatic events are preliminary and may change or be deleted',
  }],
  inputs: {
    all_month: {
      kind: 'live', url: `${BASE}all_month.geojson`, format: 'json', optional: true,
      missingNote: 'USGS\'s 30-day feed is live only (no copy of it is mirrored): the week\'s events and the month\'s significant ones are served meanwhile',
    },
    all_week: { kind: 'live', url: `${BASE}all_week.geojson`, format: 'json', optional: true, copies: [SNAPSHOT_COPIES.all_week], dataTime: generatedOf },
    significant_month: {
      kind: 'live', url: `${BASE}significant_month.geojson`, format: 'json', optional: true, copies: [SNAPSHOT_COPIES.significant_month], dataTime: generatedOf,
    },
    m45_month: { kind: 'live', url: `${BASE}4.5_month.geojson`, format: 'json', optional: true },
  },
  schema: { type: 'object', properties, required: Object.keys(properties), additionalProperties: false },
  search: { fields: ['place', 'title', 'id'], boost: { place: 2 } },
  filters: [
    ...dateBounds('time', 'Event time (UTC).'),
    { param: 'min_magnitude', field: 'magnitude', description: 'Magnitude at least, e.g. 4.5', compare: { op: 'min', type: 'number' } },
    { param: 'max_magnitude', field: 'magnitude', description: 'Magnitude at most', compare: { op: 'max', type: 'number' } },
    { param: 'event_type', field: 'event_type', description: 'e.g. earthquake, quarry blast, explosion', caseInsensitive: true },
    { param: 'status', field: 'status', description: 'automatic or reviewed', caseInsensitive: true },
    { param: 'alert', field: 'alert', description: 'PAGER level: green, yellow, orange or red', caseInsensitive: true },
  ],
  geo: { lat: 'latitude', lon: 'longitude' },
  // Newest first; ISO 8601 UTC strings of one shape compare as times.
  order: (a, b) => (a.time === b.time ? (a.id < b.id ? -1 : a.id > b.id ? 1 : 0) : a.time < b.time ? 1 : -1),
  upstreamTime: earthquakesUpstreamTime,
  // USGS regenerates the feed every minute; this deployment refreshes nightly. Stale past the second figure (meta.stale).
  refresh: { expectedSeconds: 86_400, staleAfterSeconds: 172_800 },
  normalise: normaliseEarthquakes,
});
