/**
 * weather-alerts — the National Weather Service's currently active alerts (watches,
 * warnings, advisories, statements) from https://api.weather.gov/alerts/active
 * (documented at https://www.weather.gov/documentation/services-web-api).
 *
 * Live format: a GeoJSON FeatureCollection (application/geo+json) with @context, `title`,
 * `updated` and every active alert in one response (the endpoint has no paging; it rejects
 * `limit`). A feature is {id: <alert URL>, type: "Feature", geometry: Polygon or null,
 * properties: the CAP alert — id (urn:oid…), areaDesc, geocode {SAME, UGC}, affectedZones,
 * references, sent/effective/onset/expires/ends (ISO 8601 with the sender's local offset),
 * status, messageType, category, severity, certainty, urgency, event, sender(Name),
 * headline, description, instruction, response, parameters}.
 *
 * Mirror variant (https://api.weather.gov/alerts/active.json, no such upstream URL): the
 * same response already trimmed by whoever saved it — no @context/title/updated, and each
 * feature reduced to {geometry, properties} — then wrapped back into a FeatureCollection.
 * It therefore has no `updated`: its upstream time is the newest alert's `sent` instead (a
 * lower bound of when NWS made the list). Both forms are accepted: when a feature has
 * `id`/`type` they are checked against properties["@id"] / "Feature".
 *
 * Snapshot (https://api.weather.gov/alerts/active of 2025-03-17T17:09:31Z, 622 alerts, the
 * full response with @context, title, updated and each feature's own id and type; saved
 * pretty-printed in RuthannO/Weather-Alerts): a pinned copy, which a folder mirror takes
 * over the trimmed variant because its data is newer (`updated`; the variant has none).
 *
 * Decisions:
 * - Times are served as ISO 8601 UTC (…Z) so the from/to bounds compare one timeline; the
 *   sender's local offset is dropped (the zones say where the alert is).
 * - Expiry: `expires` is the CAP message's expiry ("product expiration time"), often hours
 *   before the hazard ends; `ends` is when the event ends. NWS's own active set follows
 *   `ends`: in the mirrored response, at its newest `sent` (a lower bound for the fetch
 *   time), 181 of 444 active alerts are past `expires` but none past `ends`; weather.gov
 *   hides an alert once `ends` (or `expires` without `ends`) has passed. So the platform's
 *   expiry field is `in_effect_until` = ends ?? expires: users see an alert as long as NWS
 *   lists it (including, as NWS does, a "replaced" watch until its ends). Both raw times
 *   are served too.
 * - states: UGC prefixes that are US postal codes (states, DC, territories, freely
 *   associated states). Marine UGC areas (ANZ…, GMZ…, PZZ…) are not states; their alerts
 *   have states [] and are found by zone. An unknown prefix fails the build.
 * - Geometry is not served (has_geometry says whether the alert has its own polygon; most
 *   use zones); parameters are reduced to VTEC codes; affectedZones duplicate the UGC codes.
 */
import { dateBounds, defineSource } from './contract.ts';

export interface WeatherAlertRecord {
  id: string; event: string; headline: string | null; severity: string; urgency: string; certainty: string;
  status: string; message_type: string; category: string; response: string; sent: string; effective: string;
  onset: string | null; expires: string; ends: string | null; in_effect_until: string; area_desc: string;
  states: string[]; zones: string[]; same_codes: string[]; sender_name: string; references: string[];
  vtec: string[]; has_geometry: boolean; description: string | null; instruction: string | null; url: string;
}

export const ALERTS_URL = 'https://api.weather.gov/alerts/active';
/** The complete response of 2025-03-17 (upstream mirror provenance row 658), pinned. */
export const ALERTS_SNAPSHOT = {
  url: 'https://raw.githubusercontent.com/RuthannO/Weather-Alerts/dbbdd001324ce42f0887d07e43861932cec7d0c8/weather_alerts.json',
  sha256: 'e2a273f2ff3768e2e8560fd445bc2210d691813545d82515b1e578d138eab63b',
};
// CAP 1.2 value lists (OASIS CAP v1.2 §3.2), as api.weather.gov spells them.
const CAP = {
  status: ['Actual', 'Exercise', 'System', 'Test', 'Draft'],
  messageType: ['Alert', 'Update', 'Cancel', 'Ack', 'Error'],
  category: ['Met', 'Geo', 'Safety', 'Security', 'Rescue', 'Fire', 'Health', 'Env', 'Transport', 'Infra', 'CBRNE', 'Other'],
  severity: ['Extreme', 'Severe', 'Moderate', 'Minor', 'Unknown'],
  urgency: ['Immediate', 'Expected', 'Future', 'Past', 'Unknown'],
  certainty: ['Observed', 'Likely', 'Possible', 'Unlikely', 'Unknown'],
  response: ['Shelter', 'Evacuate', 'Prepare', 'Execute', 'Avoid', 'Monitor', 'Assess', 'AllClear', 'None'],
} as const;
/** UGC prefixes on land: US postal codes of the states, DC, territories and freely associated states. */
const LAND = new Set(('AL AK AZ AR CA CO CT DE DC FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ NM NY NC '
  + 'ND OH OK OR PA RI SC SD TN TX UT VT VA WA WV WI WY AS GU MP PR VI UM FM MH PW').split(' '));
/** NWS marine UGC areas (coastal and offshore waters, Great Lakes, St. Lawrence). */
const MARINE = new Set('AM AN GM LC LE LH LM LO LS PH PK PM PS PZ SL'.split(' '));
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

function fail(where: string, field: string, value: unknown): never {
  const shown = JSON.stringify(value);
  throw new Error(`weather-alerts: ${where} field ${field}: unexpected ${shown === undefined ? 'undefined' : shown.slice(0, 200)}`);
}
const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const str = (at: string, f: string, v: unknown, re = /\S/) => (typeof v === 'string' && re.test(v) ? v : fail(at, f, v));
const text = (at: string, f: string, v: unknown) => (v === null ? null : str(at, f, v, /^/));
const strings = (at: string, f: string, v: unknown, re: RegExp) =>
  (Array.isArray(v) && v.every((s) => typeof s === 'string' && re.test(s)) ? (v as string[]) : fail(at, f, v));
const oneOf = (at: string, f: string, v: unknown, allowed: readonly string[]) => (allowed.includes(v as string) ? (v as string) : fail(at, f, v));
/** ISO 8601 with offset → UTC "…Z" (milliseconds only when the upstream has them). */
function utc(at: string, f: string, v: unknown): string {
  const s = str(at, f, v, ISO);
  const d = new Date(s);
  if (Number.isNaN(d.getTime())) fail(at, f, v);
  return d.toISOString().replace('.000Z', 'Z');
}
const utcOrNull = (at: string, f: string, v: unknown) => (v === null ? null : utc(at, f, v));

/** The response body; an array is taken as page bodies (how a paged fetch would store it). */
function bodies(raw: unknown): Record<string, unknown>[] {
  const list = Array.isArray(raw) ? raw : [raw];
  return list.map((b, i) => {
    const at = Array.isArray(raw) ? `alerts/active page ${i}` : 'alerts/active';
    if (!isObj(b) || b.type !== 'FeatureCollection') fail(at, 'type', isObj(b) ? b.type : b);
    if (!Array.isArray(b.features)) fail(at, 'features', b.features);
    return b;
  });
}

function toRecord(feature: unknown, at: string): WeatherAlertRecord {
  const f = isObj(feature) ? feature : fail(at, '(feature)', feature);
  const p = isObj(f.properties) ? f.properties : fail(at, 'properties', f.properties);
  const id = str(at, 'properties.id', p.id, /^\S+$/);
  at = `${at} (${id})`;
  const url = str(at, 'properties.@id', p['@id'], /^https:\/\/api\.weather\.gov\/alerts\//);
  if (url !== `https://api.weather.gov/alerts/${id}`) fail(at, 'properties.@id', url);
  // Live features carry id (= @id) and type; the mirrored trimmed copy has neither.
  if ('id' in f && f.id !== url) fail(at, 'id', f.id);
  if ('type' in f && f.type !== 'Feature') fail(at, 'type', f.type);
  if (f.geometry !== null && !(isObj(f.geometry) && typeof f.geometry.type === 'string' && Array.isArray(f.geometry.coordinates))) fail(at, 'geometry', f.geometry);
  const geocode = isObj(p.geocode) ? p.geocode : fail(at, 'properties.geocode', p.geocode);
  const zones = strings(at, 'properties.geocode.UGC', geocode.UGC ?? [], /^[A-Z]{2}[CZ]\d{3}$/);
  const states = new Set<string>();
  for (const z of zones) {
    const prefix = z.slice(0, 2);
    if (LAND.has(prefix)) states.add(prefix);
    else if (!MARINE.has(prefix)) fail(at, 'properties.geocode.UGC (unknown area)', z);
  }
  const refs = Array.isArray(p.references) ? p.references : fail(at, 'properties.references', p.references);
  const parameters = isObj(p.parameters) ? p.parameters : fail(at, 'properties.parameters', p.parameters);
  const expires = utc(at, 'properties.expires', p.expires);
  const ends = utcOrNull(at, 'properties.ends', p.ends);
  return {
    id,
    event: str(at, 'properties.event', p.event),
    headline: text(at, 'properties.headline', p.headline),
    severity: oneOf(at, 'properties.severity', p.severity, CAP.severity),
    urgency: oneOf(at, 'properties.urgency', p.urgency, CAP.urgency),
    certainty: oneOf(at, 'properties.certainty', p.certainty, CAP.certainty),
    status: oneOf(at, 'properties.status', p.status, CAP.status),
    message_type: oneOf(at, 'properties.messageType', p.messageType, CAP.messageType),
    category: oneOf(at, 'properties.category', p.category, CAP.category),
    response: oneOf(at, 'properties.response', p.response, CAP.response),
    sent: utc(at, 'properties.sent', p.sent),
    effective: utc(at, 'properties.effective', p.effective),
    onset: utcOrNull(at, 'properties.onset', p.onset),
    expires,
    ends,
    in_effect_until: ends ?? expires,
    area_desc: str(at, 'properties.areaDesc', p.areaDesc, /^/),
    states: [...states].sort(),
    zones: [...new Set(zones)].sort(),
    same_codes: [...new Set(strings(at, 'properties.geocode.SAME', geocode.SAME ?? [], /^\d{6}$/))].sort(),
    sender_name: str(at, 'properties.senderName', p.senderName),
    references: refs.map((r, i) => str(at, `properties.references[${i}].identifier`, isObj(r) ? r.identifier : fail(at, `properties.references[${i}]`, r), /^\S+$/)),
    vtec: strings(at, 'properties.parameters.VTEC', parameters.VTEC ?? [], /^\/.+\/$/),
    has_geometry: f.geometry !== null,
    description: text(at, 'properties.description', p.description),
    instruction: text(at, 'properties.instruction', p.instruction),
    url,
  };
}

export function normaliseAlerts(raw: Record<string, unknown>): WeatherAlertRecord[] {
  const seen = new Set<string>();
  return bodies(raw.alerts).flatMap((body, page) => (body.features as unknown[]).map((feature, i) => {
    const at = `alerts/active${page ? ` page ${page}` : ''} feature ${i}`;
    const r = toRecord(feature, at);
    if (seen.has(r.id)) fail(at, 'properties.id (duplicate)', r.id);
    seen.add(r.id);
    return r;
  }));
}

/**
 * When NWS made this list: the response's top-level `updated`; where the response lacks it
 * (the trimmed mirror copy), the newest `sent` of its alerts, a lower bound of that time
 * (issue 36, item 10: the mirrored 2024 alerts said upstream_time null and stale false, as
 * the fetch time alone was judged, though every one of them had ended). Null only for a
 * response with neither (no alerts at all).
 */
export function alertsUpstreamTime(raw: Record<string, unknown>): string | null {
  const list = bodies(raw.alerts);
  const newest = (times: string[]) => (times.length ? times.sort()[times.length - 1] : null);
  const updated = newest(list.flatMap((b, i) => (b.updated === undefined ? [] : [utc(`alerts/active page ${i}`, 'updated', b.updated)])));
  if (updated !== null) return updated;
  return newest(list.flatMap((b, i) => (b.features as unknown[]).map((f, k) => {
    const p = isObj(f) && isObj(f.properties) ? f.properties : fail(`alerts/active page ${i} feature ${k}`, 'properties', f);
    return utc(`alerts/active page ${i} feature ${k}`, 'properties.sent', p.sent);
  })));
}

const nullable = (type: string, extra: Record<string, unknown> = {}) => ({ type: [type, 'null'], ...extra });
const UTC = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d{3})?Z$';
const time = (description: string) => ({ type: 'string', pattern: UTC, description });
const list = (description: string, pattern: string) => ({ type: 'array', items: { type: 'string', pattern }, description });

const properties = {
  id: { type: 'string', description: 'CAP identifier, e.g. "urn:oid:2.49.0.1.840.0.75bf….001.1"' },
  event: { type: 'string', description: 'e.g. "Winter Storm Warning", "Small Craft Advisory"' },
  headline: nullable('string'),
  severity: { type: 'string', enum: CAP.severity },
  urgency: { type: 'string', enum: CAP.urgency },
  certainty: { type: 'string', enum: CAP.certainty },
  status: { type: 'string', enum: CAP.status, description: 'Actual for real alerts; Test/Exercise/System/Draft otherwise' },
  message_type: { type: 'string', enum: CAP.messageType },
  category: { type: 'string', enum: CAP.category },
  response: { type: 'string', enum: CAP.response, description: 'Recommended action type' },
  sent: time('When the message was sent, UTC'),
  effective: time('When the information takes effect, UTC'),
  onset: nullable('string', { pattern: UTC, description: 'Expected start of the hazard, UTC' }),
  expires: time('Expiry of this message (product expiration time), UTC; NWS usually updates the alert before it'),
  ends: nullable('string', { pattern: UTC, description: 'Expected end of the hazard (event ending time), UTC' }),
  in_effect_until: time('ends, else expires: when the alert leaves the active list (the expiry the API applies)'),
  area_desc: { type: 'string', description: 'Affected areas as NWS words them' },
  states: list('US postal codes of the land zones affected (states, DC, territories); [] for marine-only alerts', '^[A-Z]{2}$'),
  zones: list('UGC zone and county codes, e.g. MDC031, ANZ530', '^[A-Z]{2}[CZ]\\d{3}$'),
  same_codes: list('SAME (FIPS-based) location codes', '^\\d{6}$'),
  sender_name: { type: 'string', description: 'Issuing office, e.g. "NWS Baltimore MD/Washington DC"' },
  references: { type: 'array', items: { type: 'string' }, description: 'Ids of earlier alerts this one updates or cancels' },
  vtec: list('P-VTEC strings (parameters.VTEC)', '^/.+/$'),
  has_geometry: { type: 'boolean', description: 'The alert has its own polygon (else it covers its zones)' },
  description: nullable('string'),
  instruction: nullable('string'),
  url: { type: 'string', description: 'The alert on api.weather.gov' },
};

export default defineSource<WeatherAlertRecord>({
  id: 'weather-alerts',
  title: 'Active weather alerts (US National Weather Service)',
  description: 'Watches, warnings, advisories and statements currently in effect from the US National Weather Service, '
    + 'newest first. Alerts leave the list once in_effect_until has passed (include_expired=true keeps them).',
  contractVersion: '0.1.0',
  provenance: [{
    name: 'National Weather Service API: active alerts (api.weather.gov)',
    url: 'https://www.weather.gov/documentation/services-web-api',
    licence: { spdx: 'LicenseRef-US-Gov-PD', name: 'Public domain (US government work, 17 USC 105)', url: 'https://www.weather.gov/disclaimer' },
    attribution: 'Alerts from the NOAA National Weather Service (api.weather.gov). A snapshot: weather.gov is the '
      + 'authoritative and current source; do not rely on this copy for life-safety decisions',
  }],
  inputs: {
    alerts: {
      kind: 'live', url: ALERTS_URL, format: 'json', variants: [`${ALERTS_URL}.json`], copies: [ALERTS_SNAPSHOT],
      // The response's `updated`: the trimmed variant has none, so any form that has one is newer.
      dataTime: (body) => (isObj(body) && typeof body.updated === 'string' ? body.updated : null),
    },
  },
  schema: { type: 'object', properties, required: Object.keys(properties), additionalProperties: false },
  search: { fields: ['headline', 'event', 'area_desc', 'description'], boost: { event: 3, headline: 2 } },
  filters: [
    { param: 'state', field: 'states', description: 'US postal code, e.g. TX', caseInsensitive: true },
    { param: 'zone', field: 'zones', description: 'UGC code, e.g. MDC031 or ANZ530', caseInsensitive: true },
    { param: 'event', field: 'event', description: 'Event name, e.g. Winter Storm Warning', caseInsensitive: true },
    { param: 'severity', field: 'severity', description: 'Extreme, Severe, Moderate, Minor or Unknown', caseInsensitive: true },
    { param: 'urgency', field: 'urgency', description: 'Immediate, Expected, Future, Past or Unknown', caseInsensitive: true },
    { param: 'certainty', field: 'certainty', description: 'Observed, Likely, Possible, Unlikely or Unknown', caseInsensitive: true },
    { param: 'status', field: 'status', description: 'Actual, Exercise, System, Test or Draft', caseInsensitive: true },
    { param: 'message_type', field: 'message_type', description: 'Alert, Update or Cancel', caseInsensitive: true },
    ...dateBounds('sent', 'Time the alert was sent (UTC).'),
  ],
  expires: { field: 'in_effect_until' },
  // Newest sent first (the upstream's own order), ties by id.
  order: (a, b) => Date.parse(b.sent) - Date.parse(a.sent) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  upstreamTime: alertsUpstreamTime,
  // NWS updates alerts continuously; this deployment refreshes nightly. Stale past the second figure (meta.stale).
  refresh: { expectedSeconds: 86_400, staleAfterSeconds: 172_800 },
  normalise: normaliseAlerts,
});
