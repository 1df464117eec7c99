import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import source, { MEASURES, normalisePopulation, type PopulationRecord } from '../sources/population.ts';
import { MIRROR_ROOT, NEEDS_MIRROR } from './helpers.ts';

// Inputs declare encoding latin1: the pipeline hands normalise the Latin-1-decoded text.
const fixture = (name: string) => fs.readFileSync(new URL(`./fixtures/population/${name}`, import.meta.url), 'latin1');
const fixtureRaw = () => ({ counties: fixture('co-est2024-alldata.csv'), subcounties: fixture('sub-est2024.csv') });
const validate = new Ajv2020({ strict: true, allowUnionTypes: true }).compile(source.schema);
const COUNTY_PATH = 'www2.census.gov/programs-surveys/popest/datasets/2020-2024/counties/totals/co-est2024-alldata.csv';

function expectValid(records: PopulationRecord[]) {
  const keys = Object.keys(source.schema.properties).join();
  for (const r of records) {
    const id = r.id;
    if (!validate(r)) throw new Error(`${id}: ${JSON.stringify(validate.errors)}`);
    if (Object.keys(r).join() !== keys) throw new Error(`${id}: key order ${Object.keys(r).join()}`);
  }
}

/** Raw inputs with one line (0 = header) of one fixture replaced. */
function broken(input: 'counties' | 'subcounties', line: number, edit: (l: string) => string) {
  const raw = fixtureRaw();
  const lines = raw[input].split('\n');
  lines[line] = edit(lines[line]);
  return { ...raw, [input]: lines.join('\n') };
}

describe('population-demographics source', () => {
  it('pins the county file, takes the sub-county file live and optional, both Latin-1', () => {
    expect(source.id).toBe('population-demographics');
    expect(source.contractVersion).toBe('0.1.0');
    expect(source.inputs.counties).toMatchObject({ kind: 'url', sha256: 'abcc8720d669e793bbfdcd440eeec37a78db3b452adbe4ccd1eadf7c72b522b9', encoding: 'latin1', format: 'text' });
    expect(source.inputs.subcounties).toMatchObject({ kind: 'live', optional: true, encoding: 'latin1', format: 'text', url: 'https://www2.census.gov/programs-surveys/popest/datasets/2020-2024/cities/totals/sub-est2024.csv' });
    const props = Object.keys(source.schema.properties);
    for (const f of source.filters) expect(props).toContain(f.field);
    for (const f of source.search.fields) expect(props).toContain(f);
    const params = source.filters.map((f) => f.param);
    for (const v of source.views!) for (const k of Object.keys(v.filter)) expect(params).toContain(k);
    expect(source.views!.map((v) => v.segment)).toEqual(['counties', 'subcounties']);
    expect(source.filters.find((f) => f.param === 'year')!.range).toEqual({ maxSpan: 10 });
    expect(source.upstreamTime!(fixtureRaw())).toBeNull();
  });
});

describe('population-demographics normalise (fixtures)', () => {
  const records = normalisePopulation(fixtureRaw());
  const byId = new Map(records.map((r) => [r.id, r]));

  it('turns every county-file value into an observation and place totals into population observations', () => {
    // 10 state/county rows x 76 values; 7 sub-county geographies x 6 (estimates base + 5 years).
    expect(MEASURES.reduce((n, [, , years]) => n + years.length, 0)).toBe(76);
    expect(records).toHaveLength(10 * 76 + 7 * 6);
    expectValid(records);
    expect(byId.get('10003.2024.population')).toEqual({
      id: '10003.2024.population', geography: '10003', level: 'county', sumlev: '050', name: 'New Castle County',
      state_fips: '10', state_name: 'Delaware', county_fips: '10003', county_name: 'New Castle County',
      year: 2024, measure: 'population', value: 588093, vintage: 2024,
    });
    expect(byId.get('10.2020.estimates_base')).toMatchObject({ level: 'state', name: 'Delaware', county_fips: null, county_name: null, value: 989955 });
    expect(byId.get('10001.2021.births')!.value).toBe(2002);
    expect(byId.get('10001.2021.birth_rate')!.value).toBe(10.898618891);
    expect(byId.get('10001.2024.net_migration_rate')!.value).toBe(12.67459569);
    expect(byId.get('10003.2024.group_quarters_population')!.value).toBe(15686);
    expect(byId.get('10003.2020.residual')!.value).toBe(234);
    expect(byId.has('10003.2020.birth_rate')).toBe(false); // no 2020 rates upstream
    expect(byId.get('35013.2024.population')).toMatchObject({ name: 'Doña Ana County', state_name: 'New Mexico', value: 229366 });
  });

  it('keys sub-county rows by GEOID and leaves out the part rows', () => {
    expect(byId.get('5010675.2024.population')).toEqual({
      id: '5010675.2024.population', geography: '5010675', level: 'subcounty', sumlev: '162', name: 'Burlington city',
      state_fips: '50', state_name: 'Vermont', county_fips: null, county_name: null,
      year: 2024, measure: 'population', value: 44589, vintage: 2024,
    });
    expect(byId.get('5000710675.2020.estimates_base')).toMatchObject({ sumlev: '061', county_fips: '50007', county_name: 'Chittenden County', value: 44743 });
    expect(byId.get('1836000.2023.population')).toMatchObject({ sumlev: '170', name: 'Indianapolis city', value: 975654 });
    expect(byId.get('3525170.2024.population')!.name).toBe('Española city');
    const subGeos = [...new Set(records.filter((r) => r.level === 'subcounty').map((r) => r.geography))].sort();
    expect(subGeos).toEqual(['1077580', '1836000', '1836003', '3525170', '3539380', '5000710675', '5010675']);
    expect(new Set(records.filter((r) => r.level === 'subcounty').map((r) => r.measure))).toEqual(new Set(['estimates_base', 'population']));
  });

  it('orders by geography, then year, then measure', () => {
    const sorted = [...records].sort(source.order!);
    expect(sorted.slice(0, 4).map((r) => r.id)).toEqual(['10.2020.estimates_base', '10.2020.population', '10.2020.population_change', '10.2020.births']);
    expect(sorted.findIndex((r) => r.id === '10.2021.estimates_base')).toBe(-1);
    expect(sorted[12].id).toBe('10.2021.population'); // 2020 has 12 measures: no rates
    expect(sorted.at(-1)!.id).toBe('5010675.2024.population');
  });

  it('builds without the optional sub-county file', () => {
    expect(normalisePopulation({ counties: fixtureRaw().counties })).toHaveLength(760);
  });

  it('fails naming file, row and field on anything unexpected', () => {
    const cases: [Record<string, string>, RegExp][] = [
      [broken('counties', 2, (l) => l.replace(',2002,', ',2,002,')), /co-est2024-alldata\.csv row 2 field \(row\): unexpected "84 columns"/],
      [broken('counties', 2, (l) => l.replace(',2002,', ',x,')), /co-est2024-alldata\.csv row 2 \(10001\) field BIRTHS2021: unexpected "x"/],
      [broken('counties', 3, (l) => l.replace(/^050/, '060')), /co-est2024-alldata\.csv row 3 \(10003\) field SUMLEV: unexpected "060"/],
      [broken('counties', 0, (l) => l.replace('RNETMIG2024', 'RNETMIG2025')), /co-est2024-alldata\.csv header field RNETMIG2024/],
      [broken('counties', 1, (l) => l.replace('Delaware,Delaware', 'Delaware,Del.')), /row 1 \(10000\) field CTYNAME/],
      [broken('subcounties', 2, (l) => l.replace(/^162/, '155')), /sub-est2024\.csv row 2 \(155 10000775800000000000\) field SUMLEV: unexpected "155"/],
      [broken('subcounties', 19, (l) => l.replace('50,007', '50,009')), /sub-est2024\.csv row 19 .* field COUNTY \(not in co-est2024-alldata\.csv\): unexpected "50009"/],
      [broken('subcounties', 17, (l) => l.replace('Vermont,4', 'Vermont State,4')), /sub-est2024\.csv row 17 .* field STNAME/],
      [broken('subcounties', 18, (l) => l.replace('Chittenden County', 'Chittenden')), /sub-est2024\.csv row 18 .* field NAME/],
      [broken('subcounties', 3, (l) => l.replace(/^050,10,003.*$/, fixtureRaw().subcounties.split('\n')[2])), /sub-est2024\.csv row 3 .* field \(duplicate id\): unexpected "1077580\.2020\.estimates_base"/],
      [broken('subcounties', 2, (l) => l.replace('Wilmington', '"Wilmington')), /sub-est2024\.csv: /],
    ];
    for (const [raw, message] of cases) expect(() => normalisePopulation(raw)).toThrow(message);
    expect(() => normalisePopulation({})).toThrow(/co-est2024-alldata\.csv field \(input\)/);
  });
});

describe('population-demographics on the mirrored county file', () => {
  it.skipIf(!MIRROR_ROOT)(`reads all 3,195 state and county rows of Vintage 2024 ${NEEDS_MIRROR}`, () => {
    const bytes = fs.readFileSync(path.join(MIRROR_ROOT!, COUNTY_PATH));
    expect(createHash('sha256').update(bytes).digest('hex')).toBe((source.inputs.counties as { sha256: string }).sha256);
    const records = normalisePopulation({ counties: bytes.toString('latin1') });
    expect(records).toHaveLength(3195 * 76);
    expectValid(records);
    const geos = (level: string) => new Set(records.filter((r) => r.level === level).map((r) => r.geography)).size;
    expect([geos('state'), geos('county')]).toEqual([51, 3144]);
    const byId = new Map(records.map((r) => [r.id, r]));
    expect(byId.get('06037.2024.population')).toMatchObject({ name: 'Los Angeles County', state_name: 'California', value: 9757179 });
    expect(byId.get('06037.2021.birth_rate')!.value).toBe(9.5479759968);
    expect(byId.get('35013.2024.population')!.name).toBe('Doña Ana County');
    expect(byId.get('11001.2020.residual')).toMatchObject({ name: 'District of Columbia', value: -3744 });
    const statesTotal = records.filter((r) => r.level === 'state' && r.year === 2024 && r.measure === 'population').reduce((s, r) => s + r.value, 0);
    expect(statesTotal).toBe(340110988);
  });
});
