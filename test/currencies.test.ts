import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import Ajv2020Module from 'ajv/dist/2020.js';
import source, { readIsoListOne, type CurrencyRecord } from '../sources/currencies.ts';
import { generateDataset, orderRecords } from '../pipeline/shards.ts';
import { aliasKey } from '../pipeline/paths.ts';

// ajv ships CommonJS; under ESM the class may sit on .default.
const Ajv2020 = ((Ajv2020Module as any).default ?? Ajv2020Module) as unknown as typeof Ajv2020Module.default;
const validate = new Ajv2020({ strict: true, allowUnionTypes: true }).compile(source.schema);
const read = (url: URL) => fs.readFileSync(url, 'utf8');
const fx = (name: string) => new URL(`./fixtures/currencies/${name}`, import.meta.url);
const nm = (file: string) => new URL(`../node_modules/${file}`, import.meta.url);

/** Fresh raw inputs, same names as source.inputs (tests may mutate them). */
const fixtureRaw = (): Record<string, any> => ({
  currencyData: JSON.parse(read(fx('currencyData.json'))),
  codeMappings: JSON.parse(read(fx('codeMappings.json'))),
  enCurrencies: JSON.parse(read(fx('currencies.json'))),
  enTerritories: JSON.parse(read(fx('territories.json'))),
  isoListOne: read(fx('iso-4217-list-one.xml')),
  subtagRegistry: JSON.parse(read(fx('registry.json'))),
  worldCountries: JSON.parse(read(fx('countries.json'))),
});
const realRaw = (): Record<string, any> => {
  const out: Record<string, any> = {};
  for (const [name, spec] of Object.entries(source.inputs)) {
    if (spec.kind !== 'npm-file') throw new Error(`unexpected input kind for ${name}`);
    const text = read(nm(`${spec.package}/${spec.file}`));
    out[name] = spec.format === 'json' ? JSON.parse(text) : text;
  }
  return out;
};
const byId = (records: CurrencyRecord[]) => new Map(records.map((r) => [r.id, r]));
/** Region → currency map of the CLDR fixture, for tests that rewrite one region's intervals. */
const regionOf = (raw: Record<string, any>) => raw.currencyData.supplemental.currencyData.region;

describe('currencies normalise (fixtures)', () => {
  const records = source.normalise(fixtureRaw());
  const map = byId(records);
  const r = (id: string) => map.get(id)!;

  it('has one valid record per code, with the schema\'s key order', () => {
    expect([...map.keys()].sort()).toEqual(['ANG', 'CHE', 'CHF', 'CNH', 'CNY', 'DEM', 'EUR', 'IDR', 'USD', 'USS', 'XAU', 'XCG', 'YUM']);
    for (const rec of records) {
      expect(Object.keys(rec)).toEqual(Object.keys(source.schema.properties));
      expect(validate(rec), `${rec.id}: ${JSON.stringify(validate.errors)}`).toBe(true);
    }
  });

  it('joins CLDR names and symbols with ISO numeric, minor units and name', () => {
    expect(r('EUR')).toMatchObject({
      id: 'EUR', code: 'EUR', numeric: '978', name: 'Euro', name_one: 'euro', name_other: 'euros', iso_name: 'Euro',
      symbol: '€', narrow_symbol: '€', minor_units: 2, minor_units_source: 'iso4217', fund: false,
      status: 'current', legal_tender: true, withdrawn: null,
      regions: ['CS', 'DE', 'EU', 'ME'], countries: ['DE', 'ME'], current_countries: ['DE', 'ME'],
    });
    expect(r('EUR').lifecycle[0]).toEqual({ region: 'CS', region_name: 'Serbia and Montenegro', from: '2003-02-04', to: '2006-06-03', tender: true });
    expect(r('USD').numeric).toBe('840');
  });

  it('keeps a withdrawn currency historical, with its end per region and the latest as withdrawn', () => {
    const dem = r('DEM');
    expect(dem).toMatchObject({ status: 'historical', numeric: null, iso_name: null, minor_units: 2, minor_units_source: 'cldr-default', withdrawn: '2002-05-15' });
    expect(dem.lifecycle).toEqual([
      { region: 'DE', region_name: 'Germany', from: '1948-06-20', to: '2002-02-28', tender: true },
      { region: 'ME', region_name: 'Montenegro', from: '1999-10-02', to: '2002-05-15', tender: true },
    ]);
    expect(dem.countries).toEqual(['DE', 'ME']);
    expect(dem.current_countries).toEqual([]);
  });

  it('names withdrawn regions from the IANA registry but keeps them out of countries', () => {
    const yum = r('YUM');
    expect(yum.lifecycle.map((i) => [i.region, i.region_name])).toEqual([['CS', 'Serbia and Montenegro'], ['ME', 'Montenegro'], ['YU', 'Yugoslavia']]);
    expect(yum.countries).toEqual(['ME']);
    expect(yum.country_names).toEqual(['Montenegro', 'Serbia and Montenegro', 'Yugoslavia']);
    expect(r('IDR')).toMatchObject({ countries: ['ID'], regions: ['ID', 'TP'], country_names: ['East Timor', 'Indonesia'] });
  });

  it('counts open non-tender intervals as current, and closed non-tender ones as historical', () => {
    expect(r('XAU')).toMatchObject({ status: 'current', legal_tender: false, minor_units: null, minor_units_source: 'iso4217', countries: [], regions: ['ZZ'] });
    expect(r('CHE')).toMatchObject({ status: 'current', legal_tender: false, fund: true, current_countries: ['CH'] });
    // USS has only {_tender: false, _to: 2014-03-01}: no start, closed.
    expect(r('USS')).toMatchObject({ status: 'historical', legal_tender: false, withdrawn: '2014-03-01' });
    expect(r('USS').lifecycle).toEqual([{ region: 'US', region_name: 'United States', from: null, to: '2014-03-01', tender: false }]);
  });

  it('prefers ISO minor units, keeps CLDR digits, falls back to CLDR DEFAULT', () => {
    expect(r('IDR')).toMatchObject({ minor_units: 2, minor_units_source: 'iso4217', cldr_digits: 0, cash_digits: 0 });
    expect(r('CHF')).toMatchObject({ minor_units: 2, cash_rounding: 5, cash_digits: 2 });
    // XCG (2025) is newer than the 2024 ISO list: CLDR only.
    expect(r('XCG')).toMatchObject({ status: 'current', iso_name: null, minor_units: 2, minor_units_source: 'cldr-default', countries: ['CW'] });
    // CLDR is newer than the ISO list: ANG ended 2025-06-30 although ISO 2024 lists it.
    expect(r('ANG')).toMatchObject({ status: 'historical', withdrawn: '2025-06-30', minor_units_source: 'iso4217', iso_name: 'Netherlands Antillean Guilder' });
  });

  it('gives CNY the numeric ISO assigns, not CNH (CLDR maps both to 156)', () => {
    expect(r('CNY').numeric).toBe('156');
    expect(r('CNH').numeric).toBeNull();
  });

  it('decides status from the intervals alone', () => {
    const raw = fixtureRaw();
    regionOf(raw).CH = [{ CHF: { _from: '1799-03-17', _to: '2030-01-01' } }, { CHE: { _tender: 'true' } }];
    const m = byId(source.normalise(raw));
    expect(m.get('CHF')).toMatchObject({ status: 'historical', withdrawn: '2030-01-01', current_countries: [] });
    expect(m.get('CHE')).toMatchObject({ status: 'current', legal_tender: true });
  });

  it('fails loudly, naming row and field, on an unknown upstream shape', () => {
    const bad = (mutate: (raw: Record<string, any>) => void, message: RegExp) => {
      const raw = fixtureRaw();
      mutate(raw);
      expect(() => source.normalise(raw)).toThrow(message);
    };
    bad((raw) => { regionOf(raw).DE[1].DEM._until = '2002-02-28'; }, /region DE DEM field _until/);
    bad((raw) => { regionOf(raw).DE[1].DEM._to = '28.02.2002'; }, /region DE DEM field _to/);
    bad((raw) => { regionOf(raw).US[1].USS._tender = 'no'; }, /region US USS field _tender/);
    bad((raw) => { raw.currencyData.supplemental.currencyData.fractions.IDR._digits = 0; }, /fractions IDR field _digits/);
    bad((raw) => { raw.enCurrencies.main.en.numbers.currencies.EUR['symbol-alt-formal'] = 'EUR'; }, /currencies.json EUR field symbol-alt-formal/);
    bad((raw) => { raw.codeMappings.supplemental.codeMappings.EUR._numeric = '979'; }, /currency EUR field numeric \(CLDR vs ISO\)/);
    bad((raw) => { raw.isoListOne = raw.isoListOne.replace('<CcyMnrUnts>N.A.', '<CcyMnrUnts>none'); }, /row XAU \(ZZ08_Gold\) field CcyMnrUnts/);
    bad((raw) => { raw.isoListOne = raw.isoListOne.replace('<Ccy>EUR</Ccy>\r\n\t\t\t<CcyNbr>978</CcyNbr>\r\n\t\t\t<CcyMnrUnts>2', '<Ccy>EUR</Ccy>\r\n\t\t\t<CcyNbr>978</CcyNbr>\r\n\t\t\t<CcyMnrUnts>3'); }, /row EUR .* disagrees/);
    bad((raw) => { raw.isoListOne = raw.isoListOne.replace('<Ccy>USD</Ccy>', '<Ccy>USD</Ccy><Note/>'); }, /line \d+ field element: unexpected "Note"/);
    bad((raw) => { raw.worldCountries[0].cca2 = 'deu'; }, /world-countries field cca2/);
  });

  it('reads ISO list one, skipping rows without a currency', () => {
    const iso = readIsoListOne(read(fx('iso-4217-list-one.xml')));
    expect([...iso.keys()].sort()).toEqual(['ANG', 'CHE', 'CHF', 'CNY', 'EUR', 'IDR', 'USD', 'XAU']);
    expect(iso.get('XAU')).toEqual({ numeric: '959', digits: null, name: 'Gold', fund: false });
  });
});

describe('currencies keys, filters and views', () => {
  it('aliases the numeric code, so /978 and /eur resolve through the pipeline', () => {
    expect(source.aliases!({ numeric: '978' } as CurrencyRecord)).toEqual(['978']);
    expect(source.aliases!({ numeric: null } as CurrencyRecord)).toEqual([]);
    const records = source.normalise(fixtureRaw());
    const sorted = orderRecords(source, records);
    const { keys, info } = generateDataset(source, sorted, [], { countryCodes: JSON.parse(fs.readFileSync(new URL('../node_modules/cldr-core/supplemental/codeMappings.json', import.meta.url), 'utf8')) });
    const eur = sorted.findIndex((r) => r.id === 'EUR');
    expect(keys.get(aliasKey('978'))).toBe(eur);
    expect(keys.get(aliasKey('eur'))).toBe(eur);
    expect(info.ambiguous_aliases).toBe(0);
  });

  it('declares the historical view, the country filter and the link to geography/countries', () => {
    expect(source.pathParam).toBe('code');
    expect(source.views).toEqual([{ segment: 'historical', summary: 'Withdrawn currencies', filter: { status: 'historical' } }]);
    expect(source.filters.find((f) => f.param === 'country')).toMatchObject({ field: 'countries', caseInsensitive: true });
    expect(source.links).toContainEqual({ field: 'countries', dataset: 'geography/countries' });
    for (const f of source.filters) expect(Object.keys(source.schema.properties)).toContain(f.field);
    expect(source.search.fields).toEqual(expect.arrayContaining(['code', 'name', 'numeric', 'country_names']));
  });
});

describe('currencies normalise (real installed packages)', () => {
  const records = source.normalise(realRaw());
  const map = byId(records);
  const cca2 = new Set((JSON.parse(read(nm('world-countries/countries.json'))) as { cca2: string }[]).map((c) => c.cca2));

  it('has about 300 valid records with unique ids and numeric aliases', () => {
    expect(records.length).toBeGreaterThan(280);
    expect(records.length).toBeLessThan(340);
    expect(map.size).toBe(records.length);
    const current = records.filter((r) => r.status === 'current').length;
    expect(current).toBeGreaterThan(150);
    expect(records.length - current).toBeGreaterThan(100);
    const aliases = records.flatMap((r) => source.aliases!(r));
    expect(new Set(aliases).size).toBe(aliases.length);
    for (const r of records) expect(validate(r), `${r.id}: ${JSON.stringify(validate.errors)}`).toBe(true);
  });

  it('has the euro, the mark and the dollar right', () => {
    const eur = map.get('EUR')!;
    expect(eur).toMatchObject({ status: 'current', numeric: '978', minor_units: 2, name: 'Euro', symbol: '€' });
    expect(eur.countries).toEqual(expect.arrayContaining(['DE', 'FR', 'IT']));
    const dem = map.get('DEM')!;
    expect(dem.status).toBe('historical');
    expect(dem.lifecycle.find((i) => i.region === 'DE')).toMatchObject({ from: '1948-06-20', to: '2002-02-28' });
    expect(dem.countries).toContain('DE');
    expect(map.get('USD')!.countries).toContain('US');
    expect(map.get('USD')!.current_countries).toEqual(expect.arrayContaining(['US', 'EC', 'SV']));
  });

  it('links only to world-countries codes, names every region, and keeps withdrawn regions in the lifecycle', () => {
    for (const r of records) {
      for (const c of [...r.countries, ...r.current_countries]) expect(cca2.has(c), `${r.id}: ${c}`).toBe(true);
      for (const i of r.lifecycle) expect(i.region_name, `${r.id}: ${i.region}`).not.toBeNull();
    }
    expect(map.get('YUD')!.regions).toContain('YU');
    expect(map.get('SUR')!.lifecycle.find((i) => i.region === 'SU')).toMatchObject({ region_name: 'Union of Soviet Socialist Republics', to: '1991-12-25' });
    expect(map.get('DDM')!.countries).toEqual([]);
  });

  it('agrees with ISO: every ISO code has its numeric and ISO minor units', () => {
    const iso = readIsoListOne(read(nm('currency-codes/iso-4217-list-one.xml')));
    expect(iso.size).toBe(179);
    for (const [code, e] of iso) expect(map.get(code), code).toMatchObject({ numeric: e.numeric, minor_units: e.digits, minor_units_source: 'iso4217' });
    expect(map.get('XDR')).toMatchObject({ status: 'current', minor_units: null, legal_tender: false });
  });
});
