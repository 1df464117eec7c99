/**
 * population-demographics: US Census Bureau Population Estimates Program (PEP), Vintage
 * 2024, as observations: one record per geography, year and measure.
 *
 * Upstreams (Latin-1 CSV, LF, no timestamp in either file):
 * - County totals and components of change, July 1 2020–2024 (file layout: co-est2024-alldata.pdf):
 *   https://www2.census.gov/programs-surveys/popest/datasets/2020-2024/counties/totals/co-est2024-alldata.csv
 *   SUMLEV 040 = state, 050 = county. Pinned: the mirror holds the raw file.
 * - Sub-county totals (incorporated places and minor civil divisions), 2020–2024:
 *   https://www2.census.gov/programs-surveys/popest/datasets/2020-2024/cities/totals/sub-est2024.csv
 *   Not mirrored and never seen byte for byte, so a live, optional input.
 *
 * Every numeric column of the county file becomes a measure (MEASURES, in file order): the
 * April 1 2020 estimates base, July 1 estimates, the change and its components (births,
 * deaths, natural change, international/domestic/net migration, residual), group-quarters
 * population, and the rates per 1,000 mid-year residents (2021–2024 only). 2020 components
 * cover April 1–June 30 2020. REGION and DIVISION are dropped (Census regions, not FIPS).
 *
 * Geography id: the Census GEOID of the summary level. State: STATE (2 digits); county:
 * STATE+COUNTY (5); incorporated place (162): STATE+PLACE (7, e.g. 0644000); consolidated
 * city (170): STATE+CONCIT (7); minor civil division (061): STATE+COUNTY+COUSUB (10). The
 * sub-county file's state and county rows repeat the county file (checked by name, not
 * served twice); its part rows — place within county (157), place within MCD (071),
 * place within consolidated city (172) — are pieces of places served whole by 162 and are
 * not served. FUNCSTAT, PRIMGEO_FLAG are dropped. State and county names are decoded from
 * the county file's own 040/050 rows.
 */
import { parse } from 'csv-parse/sync';
import { defineSource, type RawInputs } from './contract.ts';
import { US_STATES, US_STATES_INPUT, US_STATES_PROVENANCE, usStateAliases } from './vocabularies.ts';

export interface PopulationRecord {
  id: string; geography: string; level: 'state' | 'county' | 'subcounty'; sumlev: string; name: string;
  state_fips: string; state_name: string; county_fips: string | null; county_name: string | null;
  year: number; measure: string; value: number; vintage: number;
}

const DATASET = 'population-demographics';
const VINTAGE = 2024;
const COUNTY_FILE = 'co-est2024-alldata.csv';
const SUB_FILE = 'sub-est2024.csv';
const span = (a: number, b: number) => Array.from({ length: b - a + 1 }, (_, i) => a + i);
const ALL = span(2020, VINTAGE);
const RATE_YEARS = span(2021, VINTAGE);

/** Measures in the county file's column order: [measure, column prefix, years, is a rate]. */
export const MEASURES: [string, string, number[], boolean][] = [
  ['estimates_base', 'ESTIMATESBASE', [2020], false],
  ['population', 'POPESTIMATE', ALL, false],
  ['population_change', 'NPOPCHG', ALL, false],
  ['births', 'BIRTHS', ALL, false],
  ['deaths', 'DEATHS', ALL, false],
  ['natural_change', 'NATURALCHG', ALL, false],
  ['international_migration', 'INTERNATIONALMIG', ALL, false],
  ['domestic_migration', 'DOMESTICMIG', ALL, false],
  ['net_migration', 'NETMIG', ALL, false],
  ['residual', 'RESIDUAL', ALL, false],
  ['group_quarters_estimates_base', 'GQESTIMATESBASE', [2020], false],
  ['group_quarters_population', 'GQESTIMATES', ALL, false],
  ['birth_rate', 'RBIRTH', RATE_YEARS, true],
  ['death_rate', 'RDEATH', RATE_YEARS, true],
  ['natural_change_rate', 'RNATURALCHG', RATE_YEARS, true],
  ['international_migration_rate', 'RINTERNATIONALMIG', RATE_YEARS, true],
  ['domestic_migration_rate', 'RDOMESTICMIG', RATE_YEARS, true],
  ['net_migration_rate', 'RNETMIG', RATE_YEARS, true],
];
const MEASURE_RANK = new Map(MEASURES.map(([m], i) => [m, i]));
const valueColumns = (ms: typeof MEASURES) => ms.flatMap(([measure, prefix, years, rate]) => years.map((year) => ({ col: `${prefix}${year}`, measure, year, rate })));
const COUNTY_VALUES = valueColumns(MEASURES);
const COUNTY_HEADER = ['SUMLEV', 'REGION', 'DIVISION', 'STATE', 'COUNTY', 'STNAME', 'CTYNAME', ...COUNTY_VALUES.map((v) => v.col)];
const SUB_VALUES = valueColumns(MEASURES.slice(0, 2));
const SUB_HEADER = ['SUMLEV', 'STATE', 'COUNTY', 'PLACE', 'COUSUB', 'CONCIT', 'PRIMGEO_FLAG', 'FUNCSTAT', 'NAME', 'STNAME', ...SUB_VALUES.map((v) => v.col)];

function fail(where: string, field: string, value: unknown): never {
  throw new Error(`${DATASET}: ${where} field ${field}: unexpected ${JSON.stringify(value)?.slice(0, 200)}`);
}

/** Rows as objects keyed by the expected header, which must match exactly. */
function readCsv(file: string, text: unknown, header: string[]): { at: string; row: Record<string, string> }[] {
  if (typeof text !== 'string') fail(file, '(input)', typeof text);
  let rows: string[][];
  try {
    rows = parse(text, { bom: true, relax_column_count: true }) as string[][];
  } catch (e) {
    throw new Error(`${DATASET}: ${file}: ${(e as Error).message}`);
  }
  const [head = [], ...body] = rows;
  const bad = header.findIndex((c, i) => head[i] !== c);
  if (bad >= 0 || head.length !== header.length) fail(`${file} header`, header[bad] ?? `(column ${head.length})`, head.join(','));
  return body.map((cells, i) => {
    const at = `${file} row ${i + 1}`;
    if (cells.length !== header.length) fail(at, '(row)', `${cells.length} columns`);
    return { at, row: Object.fromEntries(header.map((c, j) => [c, cells[j]])) };
  });
}

function code(at: string, row: Record<string, string>, col: string, digits: number): string {
  return row[col].length === digits && /^\d+$/.test(row[col]) ? row[col] : fail(at, col, row[col]);
}

function text(at: string, row: Record<string, string>, col: string): string {
  return /\S/.test(row[col]) && !row[col].includes('\uFFFD') ? row[col] : fail(at, col, row[col]);
}

function value(at: string, row: Record<string, string>, col: string, rate: boolean): number {
  return (rate ? /^-?\d+(\.\d+)?$/ : /^-?\d+$/).test(row[col]) ? Number(row[col]) : fail(at, col, row[col]);
}

type Place = Omit<PopulationRecord, 'id' | 'year' | 'measure' | 'value' | 'vintage'>;

export function normalisePopulation(raw: RawInputs): PopulationRecord[] {
  const out: PopulationRecord[] = [];
  const ids = new Set<string>();
  const emit = (p: Place, values: typeof COUNTY_VALUES, at: string, row: Record<string, string>) => {
    for (const v of values) {
      const id = `${p.geography}.${v.year}.${v.measure}`;
      if (ids.has(id)) fail(at, '(duplicate id)', id);
      ids.add(id);
      out.push({ id, ...p, year: v.year, measure: v.measure, value: value(at, row, v.col, v.rate), vintage: VINTAGE });
    }
  };

  const states = new Map<string, string>();
  const counties = new Map<string, string>();
  for (const { at: at0, row } of readCsv(COUNTY_FILE, raw.counties, COUNTY_HEADER)) {
    const state = code(at0, row, 'STATE', 2), county = code(at0, row, 'COUNTY', 3);
    const at = `${at0} (${state}${county})`;
    const stateName = text(at, row, 'STNAME'), name = text(at, row, 'CTYNAME');
    if (row.SUMLEV === '040') {
      if (county !== '000') fail(at, 'COUNTY', county);
      if (name !== stateName) fail(at, 'CTYNAME', name);
      states.set(state, stateName);
      emit({ geography: state, level: 'state', sumlev: '040', name, state_fips: state, state_name: stateName, county_fips: null, county_name: null }, COUNTY_VALUES, at, row);
    } else if (row.SUMLEV === '050' && county !== '000') {
      // States precede their counties in the file; a county without its state is unexpected.
      if (states.get(state) !== stateName) fail(at, 'STNAME (no such state row above)', stateName);
      counties.set(state + county, name);
      emit({ geography: state + county, level: 'county', sumlev: '050', name, state_fips: state, state_name: stateName, county_fips: state + county, county_name: name }, COUNTY_VALUES, at, row);
    } else fail(at, 'SUMLEV', row.SUMLEV);
  }

  if (raw.subcounties !== undefined) {
    for (const { at: at0, row } of readCsv(SUB_FILE, raw.subcounties, SUB_HEADER)) {
      const state = code(at0, row, 'STATE', 2), county = code(at0, row, 'COUNTY', 3);
      const place = code(at0, row, 'PLACE', 5), cousub = code(at0, row, 'COUSUB', 5), concit = code(at0, row, 'CONCIT', 5);
      const at = `${at0} (${row.SUMLEV} ${state}${county}${place}${cousub}${concit})`;
      const name = text(at, row, 'NAME'), stateName = text(at, row, 'STNAME');
      if (states.get(state) !== stateName) fail(at, `STNAME (state ${state} in ${COUNTY_FILE})`, stateName);
      const countyName = county === '000' ? null : counties.get(state + county) ?? fail(at, `COUNTY (not in ${COUNTY_FILE})`, state + county);
      const base = { level: 'subcounty' as const, sumlev: row.SUMLEV, name, state_fips: state, state_name: stateName, county_fips: countyName === null ? null : state + county, county_name: countyName };
      switch (row.SUMLEV) {
        case '040': if (name !== stateName) fail(at, 'NAME', name); break; // served from the county file
        case '050': if (name !== countyName) fail(at, 'NAME', name); break; // likewise
        case '061':
          if (countyName === null || cousub === '00000') fail(at, 'COUSUB', cousub);
          emit({ geography: state + county + cousub, ...base }, SUB_VALUES, at, row);
          break;
        case '162':
          if (place === '00000') fail(at, 'PLACE', place);
          emit({ geography: state + place, ...base }, SUB_VALUES, at, row);
          break;
        case '170':
          if (concit === '00000') fail(at, 'CONCIT', concit);
          emit({ geography: state + concit, ...base }, SUB_VALUES, at, row);
          break;
        case '071': case '157': case '172': break; // parts of places served whole (162)
        default: fail(at, 'SUMLEV', row.SUMLEV);
      }
    }
  }
  return out;
}

const properties = {
  id: { type: 'string', pattern: '^\\d{2,10}\\.\\d{4}\\.[a-z_]+$', description: '<geography>.<year>.<measure>, e.g. 06037.2024.population' },
  geography: {
    type: 'string', pattern: '^(\\d{2}|\\d{5}|\\d{7}|\\d{10})$',
    description: 'Census GEOID: state (2 digits), county (5), incorporated place or consolidated city (7: state + place), '
      + 'minor civil division (10: state + county + county subdivision)',
  },
  level: { type: 'string', enum: ['state', 'county', 'subcounty'] },
  sumlev: { type: 'string', enum: ['040', '050', '061', '162', '170'], description: 'Census summary level: 040 state, 050 county, 061 minor civil division, 162 incorporated place, 170 consolidated city' },
  name: { type: 'string', description: 'Census name, e.g. "Los Angeles County", "Burlington city"' },
  state_fips: { type: 'string', pattern: '^\\d{2}$' },
  state_name: { type: 'string' },
  county_fips: { type: ['string', 'null'], pattern: '^\\d{5}$', description: 'County of a county or minor civil division; null for states, places and consolidated cities (which may span counties)' },
  county_name: { type: ['string', 'null'] },
  year: { type: 'integer', minimum: 2020, description: 'Year of the estimate (July 1; the estimates base is April 1, 2020)' },
  measure: {
    type: 'string', enum: MEASURES.map(([m]) => m),
    description: 'Counts are persons (population: July 1 resident population; components: change over the year to July 1, '
      + 'for 2020 April 1–June 30); *_rate measures are per 1,000 mid-year residents. Sub-county geographies have estimates_base and population only.',
  },
  value: { type: 'number' },
  vintage: { type: 'integer', description: 'Vintage of the estimates series (2024: estimates for 2020–2024)' },
};

const CENSUS_PD = { spdx: 'LicenseRef-US-Gov-PD', name: 'Public domain (US government work, 17 USC 105)', url: 'https://www.census.gov/about/policies/citation.html' };

export default defineSource<PopulationRecord>({
  id: DATASET,
  title: 'Population estimates (US Census Bureau, Vintage 2024)',
  description: 'Annual population estimates and components of change (births, deaths, migration) for US states and '
    + 'counties, and population totals for incorporated places and minor civil divisions, 2020–2024, as one '
    + 'observation per geography, year and measure.',
  contractVersion: '0.1.0',
  provenance: [{
    name: 'US Census Bureau, Population Estimates Program, Vintage 2024 (co-est2024-alldata, sub-est2024)',
    url: 'https://www.census.gov/programs-surveys/popest.html',
    licence: CENSUS_PD,
    attribution: 'Source: U.S. Census Bureau, Population Division, Vintage 2024 Population Estimates',
  }, US_STATES_PROVENANCE],
  inputs: {
    [US_STATES_INPUT]: US_STATES,
    counties: {
      kind: 'url', url: 'https://www2.census.gov/programs-surveys/popest/datasets/2020-2024/counties/totals/co-est2024-alldata.csv',
      sha256: 'abcc8720d669e793bbfdcd440eeec37a78db3b452adbe4ccd1eadf7c72b522b9', format: 'text', encoding: 'latin1',
    },
    subcounties: {
      kind: 'live', url: 'https://www2.census.gov/programs-surveys/popest/datasets/2020-2024/cities/totals/sub-est2024.csv',
      format: 'text', encoding: 'latin1', optional: true,
      missingNote: 'The Census subcounty totals (cities, towns, minor civil divisions): no copy of it was reachable when the '
        + 'upstream mirror was made, so a build without network has none; npm run fetch with network gets it from the Census Bureau',
    },
  },
  pathParamDescription: '<geography>.<year>.<measure>, e.g. 06037.2024.population',
  schema: { type: 'object', properties, required: Object.keys(properties), additionalProperties: false },
  search: { fields: ['name', 'state_name', 'county_name'], boost: { name: 3 } },
  filters: [
    { param: 'level', field: 'level', description: 'state, county or subcounty' },
    { param: 'state', field: 'state_fips', description: '2-digit state FIPS code, e.g. 06, or the postal code, e.g. CA', caseInsensitive: true, valueAliases: usStateAliases('state_name') },
    { param: 'county', field: 'county_fips', description: '5-digit county FIPS code, e.g. 06037' },
    { param: 'geography', field: 'geography', description: 'Census GEOID, e.g. 06037 or 0644000' },
    { param: 'year', field: 'year', description: 'Year, or a span such as 2021-2024', range: { maxSpan: 10 } },
    { param: 'measure', field: 'measure', description: 'Measure, e.g. population or net_migration' },
    { param: 'min_value', field: 'value', description: 'Smallest value (use with measure)', compare: { op: 'min', type: 'number' } },
    { param: 'max_value', field: 'value', description: 'Largest value (use with measure)', compare: { op: 'max', type: 'number' } },
  ],
  views: [
    { segment: 'counties', summary: 'County population totals', filter: { level: 'county', measure: 'population' } },
    { segment: 'subcounties', summary: 'City and sub-county population totals', filter: { level: 'subcounty', measure: 'population' } },
  ],
  order: (a, b) => (a.geography < b.geography ? -1 : a.geography > b.geography ? 1 : a.year - b.year
    || MEASURE_RANK.get(a.measure)! - MEASURE_RANK.get(b.measure)!),
  // Neither file carries a timestamp; the vintage (2024) is in every record.
  upstreamTime: () => null,
  // Census publishes one vintage of estimates a year. Stale past the second figure (meta.stale).
  refresh: { expectedSeconds: 31_622_400, staleAfterSeconds: 34_560_000 },
  normalise: normalisePopulation,
});
