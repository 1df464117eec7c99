/**
 * OurAirports navaids.csv: every navaid as a record of kind `navaid` (issue 26, item 6:
 * 3,634 of 11,008 have no associated airport and were served nowhere), and the short form
 * an airport record embeds for the navaids whose associated_airport it is.
 *
 * A navaid's own ident ("JFK" VOR-DME, "1A" NDB) is `navaid_ident`, not `ident`: in this
 * dataset `ident` is an airport's (a runway's `ident` is its airport's), and the `airport`
 * filter selects by it, so a navaid called like an airport must not answer for it.
 * Its name is `navaid_name`, outside the text search: indexed as `name`, the Kennedy
 * VOR-DME ("JFK") came before JFK airport for `q=JFK`, and "London", "Kennedy" or "Los
 * Angeles" navaids would crowd airports out of searches people make for airports. Navaids
 * are found by the navaid_ident and navaid_type filters, country, bbox and near.
 */
import { CONTINENTS, FILES, HEADERS, fail, field, readCsv } from './ourairports.ts';

export interface Navaid { ident: string; name: string; type: string; frequency_khz: number | null }

export const NAVAID_TYPES = ['NDB', 'NDB-DME', 'VOR', 'VOR-DME', 'VORTAC', 'TACAN', 'DME'] as const;
const USAGE = ['HI', 'LO', 'BOTH', 'TERMINAL', 'RNAV'] as const;

export interface NavaidRecord {
  id: string; kind: 'navaid'; navaid_ident: string; navaid_name: string; navaid_type: (typeof NAVAID_TYPES)[number];
  frequency_khz: number | null; latitude: number; longitude: number; elevation_ft: number | null;
  country: string; continent: string; associated_airport: string | null;
  usage: string | null; power: string | null; dme_channel: string | null; magnetic_variation_deg: number | null;
  ourairports_id: number;
}

/**
 * The records, and the embedded form per airport ident. `continents` maps a country code
 * to its continent (countries.csv). `associated_airport` is as the file has it; the caller
 * sets it null where the airports dump has no such airport (it is a link).
 */
export function readNavaids(raw: unknown, continents: Map<string, string>) {
  const records: NavaidRecord[] = [];
  const byAirport = new Map<string, Navaid[]>();
  for (const r of readCsv(FILES.navaids, raw, HEADERS.navaids)) {
    const ident = field.str(r, 'ident');
    const name = field.str(r, 'name');
    const type = field.oneOf(r, 'type', NAVAID_TYPES);
    // Four unassociated navaids have frequency "-1": the file's "unknown", served as null.
    const frequency = r.frequency_khz === '-1' ? null : field.optNum(r, 'frequency_khz', 0);
    const country = field.str(r, 'iso_country', /^[A-Z]{2}$/);
    const associated = field.opt(r, 'associated_airport', /^[A-Za-z0-9-]+$/);
    if (associated) byAirport.set(associated, [...(byAirport.get(associated) ?? []), { ident, name, type, frequency_khz: frequency }]);
    const id = field.int(r, 'id');
    records.push({
      id: `navaid-${id}`, kind: 'navaid', navaid_ident: ident, navaid_name: name, navaid_type: type, frequency_khz: frequency,
      latitude: field.num(r, 'latitude_deg', -90, 90), longitude: field.num(r, 'longitude_deg', -180, 180),
      elevation_ft: field.optInt(r, 'elevation_ft'), country,
      continent: continents.get(country) ?? fail(r.__at, 'iso_country (not in countries.csv)', country),
      associated_airport: associated,
      usage: r.usageType === '' ? null : field.oneOf(r, 'usageType', USAGE),
      power: field.opt(r, 'power'), dme_channel: field.opt(r, 'dme_channel'),
      magnetic_variation_deg: field.optNum(r, 'magnetic_variation_deg', -180, 180),
      ourairports_id: id,
    });
  }
  return { records, byAirport };
}

const nullable = (type: string, description: string) => ({ type: [type, 'null'], description });

/** JSON Schema properties of a navaid record (sources/aviation/schema.ts takes them in). */
export const NAVAID_PROPERTIES = {
  id: { type: 'string', pattern: '^navaid-\\d+$', description: 'navaid-<OurAirports navaid id>' },
  kind: { const: 'navaid' },
  navaid_ident: { type: 'string', description: 'The navaid\'s own ident (e.g. JFK, 1A); not unique worldwide' },
  navaid_name: { type: 'string', description: 'Its name, e.g. Kennedy (not in the text search: see docs/platform-api.md, aviation)' },
  navaid_type: { type: 'string', enum: [...NAVAID_TYPES] },
  frequency_khz: nullable('number', 'Frequency in kHz (a VOR\'s MHz × 1000)'),
  latitude: { type: 'number', minimum: -90, maximum: 90 },
  longitude: { type: 'number', minimum: -180, maximum: 180 },
  elevation_ft: nullable('integer', 'Elevation in feet'),
  country: { type: 'string', pattern: '^[A-Z]{2}$', description: 'ISO 3166-1 alpha-2 code as OurAirports has it' },
  continent: { type: 'string', enum: [...CONTINENTS], description: 'Its country\'s continent (countries.csv)' },
  associated_airport: nullable('string', 'Ident of the airport it serves, in /apis/aviation/airports; null when none (3,634 navaids)'),
  usage: nullable('string', 'HI, LO, BOTH, TERMINAL or RNAV (OurAirports usageType)'),
  power: nullable('string', 'Transmitter power class as OurAirports has it (LOW, MEDIUM, HIGH, UNKNOWN)'),
  dme_channel: nullable('string', 'DME channel, e.g. 086X'),
  magnetic_variation_deg: nullable('number', 'Magnetic variation in degrees (east positive)'),
  ourairports_id: { type: 'integer', description: 'OurAirports numeric id' },
};
