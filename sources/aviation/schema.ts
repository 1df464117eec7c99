/** JSON Schema of an aviation record (airport or runway; the other kind's fields are null). */
const nullable = (type: string, description: string, extra: Record<string, unknown> = {}) => ({ type: [type, 'null'], description, ...extra });
const code = (description: string) => nullable('string', description, { pattern: '^[A-Za-z0-9-]+$' });

const END = {
  type: ['object', 'null'],
  description: 'Runway end (le = low-numbered end, he = high); null for airports',
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
    le: { ...END, type: 'object' }, he: { ...END, type: 'object' },
  },
};

export const AVIATION_PROPERTIES = {
  id: { type: 'string', description: 'Airport: its OurAirports ident (e.g. KJFK). Runway: runway-<OurAirports runway id>' },
  kind: { type: 'string', enum: ['airport', 'runway'] },
  ident: { type: 'string', pattern: '^[A-Za-z0-9-]+$', description: 'The airport\'s ident (for a runway, its airport\'s)' },
  name: nullable('string', 'Airport name; null for runways'),
  type: nullable('string', 'Airport type: large_airport, medium_airport, small_airport, heliport, seaplane_base, balloonport, closed; null for runways'),
  country: { type: 'string', pattern: '^[A-Z]{2}$', description: 'ISO 3166-1 alpha-2 code as OurAirports has it (XK Kosovo)' },
  country_name: { type: 'string', description: 'Country name from OurAirports countries.csv' },
  region: { type: 'string', description: 'ISO 3166-2 region code from OurAirports (e.g. US-CA; "-U-A" = unassigned)' },
  region_name: { type: 'string', description: 'Region name from OurAirports regions.csv' },
  municipality: nullable('string', 'Served place, as OurAirports has it'),
  continent: { type: 'string', enum: ['AF', 'AN', 'AS', 'EU', 'NA', 'OC', 'SA'] },
  latitude: { type: 'number', minimum: -90, maximum: 90, description: 'Airport reference point (a runway carries its airport\'s)' },
  longitude: { type: 'number', minimum: -180, maximum: 180 },
  elevation_ft: nullable('integer', 'Airport elevation in feet'),
  scheduled_service: nullable('boolean', 'Scheduled airline service; null for runways'),
  icao_code: code('ICAO location indicator'),
  iata_code: code('IATA code'),
  gps_code: code('GPS code'),
  local_code: code('National code (e.g. FAA LID in the US)'),
  home_link: nullable('string', 'Airport website'),
  wikipedia_link: nullable('string', 'Wikipedia article'),
  keywords: { type: 'array', items: { type: 'string' }, description: 'OurAirports keywords (former names, other codes)' },
  geography_country: nullable('string', 'Id in /apis/geography/countries; null where geography has no such country'),
  geography_region: nullable('string', 'GeoNames first-level division in /apis/geography/regions where it corresponds (see README); else null'),
  runways: { type: ['array', 'null'], items: RUNWAY, description: 'Airport: its runways; null for runway records' },
  frequencies: {
    type: ['array', 'null'], description: 'Airport: radio frequencies (airport-frequencies.csv; type is free text)',
    items: { type: 'object', additionalProperties: false, required: ['type', 'description', 'frequency_mhz'], properties: { type: { type: 'string' }, description: { type: ['string', 'null'] }, frequency_mhz: { type: 'number' } } },
  },
  navaids: {
    type: ['array', 'null'], description: 'Airport: navaids whose associated_airport it is (navaids.csv)',
    items: { type: 'object', additionalProperties: false, required: ['ident', 'name', 'type', 'frequency_khz'], properties: { ident: { type: 'string' }, name: { type: 'string' }, type: { type: 'string' }, frequency_khz: { type: ['number', 'null'] } } },
  },
  length_ft: nullable('number', 'Runway length in feet'),
  width_ft: nullable('number', 'Runway width in feet'),
  surface: nullable('string', 'Runway surface code as OurAirports has it (free text: ASP, CON, GRVL, TURF, …)'),
  lighted: nullable('boolean', 'Runway lighted'),
  closed: nullable('boolean', 'Runway closed'),
  le: END,
  he: END,
  ourairports_id: { type: 'integer', description: 'OurAirports numeric id of the airport or runway' },
};
