/**
 * Readers of the OurAirports CSV dumps (https://ourairports.com/data/, public domain):
 * each file's header is checked column by column and every row field by field, failing
 * with file, row (1 = first data row) and field, so a changed dump stops the build
 * instead of serving half-read data.
 */
import { parse } from 'csv-parse/sync';

export function fail(where: string, field: string, value: unknown): never {
  throw new Error(`aviation: ${where} field ${field}: unexpected ${JSON.stringify(value)?.slice(0, 200)}`);
}

export type Row = Record<string, string> & { readonly __at: string };

/** Rows of one dump keyed by its header, which must be exactly `header`. */
export function readCsv(file: string, text: unknown, header: readonly string[]): Row[] {
  if (typeof text !== 'string') fail(file, '(input)', typeof text);
  let rows: string[][];
  try {
    rows = parse(text, { bom: true, relax_quotes: false }) as string[][];
  } catch (e) {
    throw new Error(`aviation: ${file}: ${(e as Error).message}`);
  }
  const [head = [], ...body] = rows;
  const bad = header.findIndex((c, i) => head[i] !== c);
  if (bad >= 0 || head.length !== header.length) fail(`${file} header`, header[bad] ?? `(column ${head.length + 1})`, head.join(','));
  return body.map((cells, i) => {
    const at = `${file} row ${i + 1}`;
    if (cells.length !== header.length) fail(at, '(row)', `${cells.length} columns, expected ${header.length}`);
    const row: Record<string, string> = { __at: at };
    for (let j = 0; j < header.length; j++) row[header[j]] = cells[j];
    return row as Row;
  });
}

/** Field accessors: each returns the typed value or throws naming the row and field. */
export const field = {
  str(r: Row, f: string, pattern = /\S/): string {
    return pattern.test(r[f]) ? r[f] : fail(r.__at, f, r[f]);
  },
  opt(r: Row, f: string, pattern = /\S/): string | null {
    return r[f] === '' ? null : field.str(r, f, pattern);
  },
  int(r: Row, f: string): number {
    return /^-?\d+$/.test(r[f]) ? Number(r[f]) : fail(r.__at, f, r[f]);
  },
  optInt(r: Row, f: string): number | null {
    return r[f] === '' ? null : field.int(r, f);
  },
  optNum(r: Row, f: string, min = -Infinity, max = Infinity): number | null {
    if (r[f] === '') return null;
    const n = Number(r[f]);
    return /^-?\d+(\.\d+)?(e-?\d+)?$/i.test(r[f]) && n >= min && n <= max ? n : fail(r.__at, f, r[f]);
  },
  num(r: Row, f: string, min: number, max: number): number {
    return field.optNum(r, f, min, max) ?? fail(r.__at, f, r[f]);
  },
  flag(r: Row, f: string, yes: string, no: string): boolean {
    return r[f] === yes ? true : r[f] === no ? false : fail(r.__at, f, r[f]);
  },
  oneOf<T extends string>(r: Row, f: string, values: readonly T[]): T {
    return (values as readonly string[]).includes(r[f]) ? (r[f] as T) : fail(r.__at, f, r[f]);
  },
};

export const FILES = {
  airports: 'airports.csv',
  runways: 'runways.csv',
  regions: 'regions.csv',
  countries: 'countries.csv',
  navaids: 'navaids.csv',
  frequencies: 'airport-frequencies.csv',
} as const;

export const HEADERS = {
  airports: ['id', 'ident', 'type', 'name', 'latitude_deg', 'longitude_deg', 'elevation_ft', 'continent', 'iso_country', 'iso_region',
    'municipality', 'scheduled_service', 'icao_code', 'iata_code', 'gps_code', 'local_code', 'home_link', 'wikipedia_link', 'keywords'],
  runways: ['id', 'airport_ref', 'airport_ident', 'length_ft', 'width_ft', 'surface', 'lighted', 'closed',
    'le_ident', 'le_latitude_deg', 'le_longitude_deg', 'le_elevation_ft', 'le_heading_degT', 'le_displaced_threshold_ft',
    'he_ident', 'he_latitude_deg', 'he_longitude_deg', 'he_elevation_ft', 'he_heading_degT', 'he_displaced_threshold_ft'],
  regions: ['id', 'code', 'local_code', 'name', 'continent', 'iso_country', 'wikipedia_link', 'keywords'],
  countries: ['id', 'code', 'name', 'continent', 'wikipedia_link', 'keywords'],
  navaids: ['id', 'filename', 'ident', 'name', 'type', 'frequency_khz', 'latitude_deg', 'longitude_deg', 'elevation_ft', 'iso_country',
    'dme_frequency_khz', 'dme_channel', 'dme_latitude_deg', 'dme_longitude_deg', 'dme_elevation_ft', 'slaved_variation_deg',
    'magnetic_variation_deg', 'usageType', 'power', 'associated_airport'],
  frequencies: ['id', 'airport_ref', 'airport_ident', 'type', 'description', 'frequency_mhz'],
} as const;

export const AIRPORT_TYPES = ['large_airport', 'medium_airport', 'small_airport', 'heliport', 'seaplane_base', 'balloonport', 'closed'] as const;
export const CONTINENTS = ['AF', 'AN', 'AS', 'EU', 'NA', 'OC', 'SA'] as const;

export interface RunwayEnd {
  ident: string | null; latitude: number | null; longitude: number | null; elevation_ft: number | null;
  heading_deg_true: number | null; displaced_threshold_ft: number | null;
}

export interface Runway {
  id: string; airport_ident: string; length_ft: number | null; width_ft: number | null; surface: string | null;
  lighted: boolean; closed: boolean; le: RunwayEnd; he: RunwayEnd;
}

function runwayEnd(r: Row, p: 'le' | 'he'): RunwayEnd {
  return {
    ident: field.opt(r, `${p}_ident`),
    latitude: field.optNum(r, `${p}_latitude_deg`, -90, 90),
    longitude: field.optNum(r, `${p}_longitude_deg`, -180, 180),
    elevation_ft: field.optNum(r, `${p}_elevation_ft`),
    heading_deg_true: field.optNum(r, `${p}_heading_degT`),
    displaced_threshold_ft: field.optNum(r, `${p}_displaced_threshold_ft`),
  };
}

export function runwayRows(text: unknown): Runway[] {
  return readCsv(FILES.runways, text, HEADERS.runways).map((r) => ({
    id: `runway-${field.int(r, 'id')}`,
    airport_ident: field.str(r, 'airport_ident', /^[A-Za-z0-9-]+$/),
    length_ft: field.optNum(r, 'length_ft', 0),
    // Two rows of the 2026-08-22 dump give width -1: OurAirports' "unknown", served as null.
    width_ft: r.width_ft === '-1' ? null : field.optNum(r, 'width_ft', 0),
    surface: field.opt(r, 'surface'),
    lighted: field.flag(r, 'lighted', '1', '0'),
    closed: field.flag(r, 'closed', '1', '0'),
    le: runwayEnd(r, 'le'),
    he: runwayEnd(r, 'he'),
  }));
}
