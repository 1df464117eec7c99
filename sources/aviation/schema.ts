import { NAVAID_PROPERTIES } from './navaids.ts';

/**
 * JSON Schema of an aviation record: an airport, a runway or a navaid (`kind` tells which). Two
 * shapes rather than one with the other kind's fields null: a flat record carried ~25
 * null keys per record and made the release 40% larger (146 MiB raw).
 */
const nullable = (type: string, description: string, extra: Record<string, unknown> = {}) => ({ type: [type, 'null'], description, ...extra });
const code = (description: string) => nullable('string', description, { pattern: '^[A-Za-z0-9-]+$' });

const END = {
  type: 'object',
  description: 'Runway end (le = low-numbered end, he = high)',
  additionalProperties: false,
  required: ['ident', 'latitude', 'longitude', 'elevation_ft', 'heading_deg_true', 'displaced_threshold_ft'],
  properties: {
    ident: { type: ['string', 'null'] },
    latitude: { type: ['number', 'null'] },
    longitude: { type: ['number', 'null'] },
    elevation_ft: { type: ['number', 'null'] },
    heading_deg_true: { type: ['number', 'null'] },
    displaced_threshold_ft: { type: ['number', 'null'] },
  },
};
const RUNWAY = {
  type: 'object', additionalProperties: false,
  required: ['id', 'length_ft', 'width_ft', 'surface', 'lighted', 'closed', 'le', 'he'],
  properties: {
    id: { type: 'string' }, length_ft: { type: ['number', 'null'] }, width_ft: { type: ['number', 'null'] },
    surface: { type: ['string', 'null'] }, lighted: { type: 'boolean' }, closed: { type: 'boolean' },
    le: END, he: END,
  },
};

const AIRPORT_PROPERTIES = {
  id: { type: 'string', pattern: '^[A-Za-z0-9-]+$', description: 'The airport\'s OurAirports ident (e.g. KJFK)' },
  kind: { const: 'airport' },
  ident: { type: 'string', pattern: '^[A-Za-z0-9-]+$', description: 'Ident (the same as id)' },
  name: { type: 'string' },
  type: { type: 'string', enum: ['large_airport', 'medium_airport', 'small_airport', 'heliport', 'seaplane_base', 'balloonport', 'closed'] },
  country: { type: 'string', pattern: '^[A-Z]{2}$', description: 'ISO 3166-1 alpha-2 code as OurAirports has it (XK Kosovo)' },
  country_name: { type: 'string', description: 'Country name from OurAirports countries.csv' },
  region: { type: 'string', description: 'ISO 3166-2 region code from OurAirports (e.g. US-CA; "-U-A" = unassigned)' },
  region_name: { type: 'string', description: 'Region name from OurAirports regions.csv' },
  municipality: nullable('string', 'Served place, as OurAirports has it'),
  continent: { type: 'string', enum: ['AF', 'AN', 'AS', 'EU', 'NA', 'OC', 'SA'] },
  latitude: { type: 'number', minimum: -90, maximum: 90, description: 'Airport reference point' },
  longitude: { type: 'number', minimum: -180, maximum: 180 },
  elevation_ft: nullable('integer', 'Airport elevation in feet'),
  scheduled_service: { type: 'boolean', description: 'Scheduled airline service' },
  icao_code: code('ICAO location indicator'),
  iata_code: code('IATA code'),
  gps_code: code('GPS code'),
  local_code: code('National code (e.g. FAA LID in the US)'),
  home_link: nullable('string', 'Airport website'),
  wikipedia_link: nullable('string', 'Wikipedia article'),
  keywords: { type: 'array', items: { type: 'string' }, description: 'OurAirports keywords (former names, other codes)' },
  geography_country: nullable('string', 'Id in /apis/geography/countries; null where geography has no such country'),
  geography_region: nullable('string', 'GeoNames first-level division in /apis/geography/regions where it corresponds (see docs/platform-api.md, aviation); else null'),
  runways: { type: 'array', items: RUNWAY, description: 'The airport\'s runways' },
  frequencies: {
    type: 'array', description: 'Radio frequencies (airport-frequencies.csv; type is free text)',
    items: { type: 'object', additionalProperties: false, required: ['type', 'description', 'frequency_mhz'], properties: { type: { type: 'string' }, description: { type: ['string', 'null'] }, frequency_mhz: { type: 'number' } } },
  },
  navaids: {
    type: 'array', description: 'Navaids whose associated_airport it is (navaids.csv)',
    items: { type: 'object', additionalProperties: false, required: ['ident', 'name', 'type', 'frequency_khz'], properties: { ident: { type: 'string' }, name: { type: 'string' }, type: { type: 'string' }, frequency_khz: { type: ['number', 'null'] } } },
  },
  ourairports_id: { type: 'integer', description: 'OurAirports numeric id' },
  prominence: { type: 'integer', minimum: 0, maximum: 5, description: 'Search weight: large airport 4, medium 3, small 2, heliport / seaplane base / balloonport 1, closed 0, plus 1 with scheduled service; search results are weighted by 1 + prominence' },
};

const RUNWAY_PROPERTIES = {
  id: { type: 'string', pattern: '^runway-\\d+$', description: 'runway-<OurAirports runway id>' },
  kind: { const: 'runway' },
  ident: { type: 'string', pattern: '^[A-Za-z0-9-]+$', description: 'Its airport\'s ident' },
  country: AIRPORT_PROPERTIES.country,
  region: AIRPORT_PROPERTIES.region,
  continent: AIRPORT_PROPERTIES.continent,
  latitude: { type: 'number', minimum: -90, maximum: 90, description: 'Its airport\'s reference point (the ends\' own positions are in le/he)' },
  longitude: { type: 'number', minimum: -180, maximum: 180 },
  length_ft: nullable('number', 'Length in feet'),
  width_ft: nullable('number', 'Width in feet'),
  surface: nullable('string', 'Surface code as OurAirports has it (free text: ASP, CON, GRVL, TURF, …)'),
  lighted: { type: 'boolean' },
  closed: { type: 'boolean' },
  le: END,
  he: END,
  ourairports_id: { type: 'integer', description: 'OurAirports numeric id' },
};

const shape = (properties: Record<string, unknown>) => ({ type: 'object', properties, required: Object.keys(properties), additionalProperties: false });
export const AVIATION_SCHEMA = { oneOf: [shape(AIRPORT_PROPERTIES), shape(RUNWAY_PROPERTIES), shape(NAVAID_PROPERTIES)] };
export const AIRPORT_FIELDS = Object.keys(AIRPORT_PROPERTIES);
export const RUNWAY_FIELDS = Object.keys(RUNWAY_PROPERTIES);
