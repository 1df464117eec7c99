/**
 * geography/countries: the 250 countries and territories of world-countries
 * (mledoze/countries, ODbL), keyed by ISO 3166-1 alpha-2, joined with CLDR (population,
 * languages, current currencies), the IANA language subtag registry (to keep only
 * registered subtags), @vvo/tzdb (zones per country, checked against tzdata) and
 * date-holidays (which countries it covers).
 *
 * Currencies: world-countries' list, kept only where the code is a CLDR currency (ISO
 * 4217; world-countries also lists local issues such as FOK, GGP, JEP that are not),
 * minus codes CLDR says ended in that country (BGN, ANG, SLL, CUC), plus codes CLDR
 * lists as current legal tender there that world-countries lacks (BG EUR, CW XCG, …).
 * "Current" is CLDR 48's: a code is current when its region entry has no `_to` date,
 * so the result does not depend on the build's clock.
 *
 * Languages: every language CLDR territoryInfo records for the territory, reduced to
 * its language subtag ("zh_Hant" → "zh", "sr_Latn" → "sr"), by CLDR's population share;
 * `official_languages` those with any CLDR official status (official, de facto
 * official, official in a region). Subtags the IANA registry lacks are dropped, and so is
 * the special "und" (undetermined) CLDR gives for Antarctica.
 */
import { SMALL_DATASET_LIMIT, defineSource } from '../contract.ts';
import { PROVENANCE, checker, cmp, nullable, stringArray, uniqueSorted } from './common.ts';
import { vvoZones, zoneCountries, zoneTable } from './timezones.ts';

export interface CountryRecord {
  id: string; name: string; official_name: string; cca3: string; ccn3: string | null;
  capital: string[]; region: string; subregion: string | null; latlng: [number, number];
  area_km2: number | null; population: number | null; borders: string[];
  currencies: string[]; languages: string[]; official_languages: string[]; timezones: string[];
  tld: string[]; flag: string; independent: boolean | null; un_member: boolean; landlocked: boolean;
  has_holidays: boolean; links_holidays: string | null;
  alt_spellings: string[]; demonyms: string[]; native_names: string[];
}

const c = checker('countries');

/** Every currency code that appears in CLDR currencyData's region lists, and per region its entries. */
export function cldrCurrencies(raw: unknown) {
  const where = 'cldr-core currencyData.json';
  const regions = c.obj(where, 'supplemental.currencyData.region',
    (c.obj(where, 'supplemental.currencyData', c.obj(where, 'supplemental', c.obj(where, '(file)', raw).supplemental).currencyData)).region);
  const all = new Set<string>();
  const byRegion = new Map<string, { code: string; current: boolean }[]>();
  for (const [region, list] of Object.entries(regions)) {
    const entries = c.arr(`${where} region ${region}`, '(list)', list).map((e, i) => {
      const at = `${where} region ${region} entry ${i}`;
      const pairs = Object.entries(c.obj(at, '(entry)', e));
      if (pairs.length !== 1 || !/^[A-Z]{3}$/.test(pairs[0][0])) c.fail(at, '(currency code)', e);
      const [code, info] = pairs[0];
      const o = c.obj(at, code, info);
      for (const k of Object.keys(o)) if (!['_from', '_to', '_tender', '_tz', '_to-tz'].includes(k)) c.fail(at, `${code}.${k}`, o[k]);
      if (o._tender !== undefined && o._tender !== 'false') c.fail(at, `${code}._tender`, o._tender);
      all.add(code);
      return { code, current: o._to === undefined && o._tender !== 'false' };
    });
    byRegion.set(region, entries);
  }
  return { all, byRegion };
}

/** CLDR territoryInfo per territory: population and languages (subtag → share, official?). */
function territoryInfo(raw: unknown) {
  const where = 'cldr-core territoryInfo.json';
  const info = c.obj(where, 'supplemental.territoryInfo', c.obj(where, 'supplemental', c.obj(where, '(file)', raw).supplemental).territoryInfo);
  const out = new Map<string, { population: number | null; languages: Map<string, { share: number; official: boolean }> }>();
  for (const [t, v] of Object.entries(info)) {
    const at = `${where} territory ${t}`;
    const o = c.obj(at, '(entry)', v);
    const pop = o._population === undefined ? null : Number(c.str(at, '_population', o._population, /^\d+$/));
    const languages = new Map<string, { share: number; official: boolean }>();
    for (const [tag, lv] of Object.entries(o.languagePopulation === undefined ? {} : c.obj(at, 'languagePopulation', o.languagePopulation))) {
      const lat = `${at} language ${tag}`;
      if (!/^[a-z]{2,3}(_[A-Z][a-z]{3})?$/.test(tag)) c.fail(lat, '(tag)', tag);
      const l = c.obj(lat, '(entry)', lv);
      const share = Number(c.str(lat, '_populationPercent', l._populationPercent, /^\d+(\.\d+)?(E-?\d+)?$/));
      const status = l._officialStatus;
      if (status !== undefined && !['official', 'de_facto_official', 'official_regional'].includes(status as string)) c.fail(lat, '_officialStatus', status);
      const subtag = tag.split('_')[0];
      const prev = languages.get(subtag);
      languages.set(subtag, { share: Math.max(share, prev?.share ?? 0), official: status !== undefined || !!prev?.official });
    }
    out.set(t, { population: pop, languages });
  }
  return out;
}

/** The registry's special-purpose subtags (undetermined, multiple, uncoded, no content): not languages of a country. */
const SPECIAL_LANGUAGES = new Set(['und', 'mul', 'mis', 'zxx']);

function languageSubtags(raw: unknown): Set<string> {
  const all = Object.keys(c.obj('language-subtag-registry language.json', '(file)', raw));
  return new Set(all.filter((t) => !SPECIAL_LANGUAGES.has(t)));
}

function holidayCountries(raw: unknown): Set<string> {
  const where = 'date-holidays holidays.json';
  return new Set(Object.keys(c.obj(where, 'holidays', c.obj(where, '(file)', raw).holidays)));
}

export interface CountriesResult {
  records: CountryRecord[];
  /** Codes left out because the target dataset would not have them ("CK:CKD"). */
  dropped: { currencies: string[]; languages: string[] };
  /** Currencies added from CLDR ("BG:EUR") and world-countries' ones CLDR marks ended ("BG:BGN"). */
  cldrAdded: string[];
  cldrEnded: string[];
}

export function buildCountries(raw: Record<string, unknown>): CountriesResult {
  const rows = c.arr('world-countries countries.json', '(file)', raw.worldCountries);
  const currencies = cldrCurrencies(raw.currencyData);
  const territories = territoryInfo(raw.territoryInfo);
  const subtags = languageSubtags(raw.languageSubtags);
  const holidays = holidayCountries(raw.holidays);
  const zonesByCountry = new Map<string, string[]>();
  for (const [zone, ccs] of zoneCountries(zoneTable(raw.tzdata), vvoZones(raw.vvoTzdb))) {
    for (const cc of ccs) zonesByCountry.set(cc, [...(zonesByCountry.get(cc) ?? []), zone]);
  }
  const dropped = { currencies: [] as string[], languages: [] as string[] };
  const cldrAdded: string[] = [];
  const cldrEnded: string[] = [];

  const cca3ToCca2 = new Map<string, string>();
  rows.forEach((r, i) => {
    const o = c.obj(`world-countries row ${i}`, '(row)', r);
    cca3ToCca2.set(c.str(`world-countries row ${i}`, 'cca3', o.cca3, /^[A-Z]{3}$/), c.str(`world-countries row ${i}`, 'cca2', o.cca2, /^[A-Z]{2}$/));
  });

  const records = rows.map((row, i): CountryRecord => {
    const r = row as Record<string, unknown>;
    const id = r.cca2 as string;
    const at = `world-countries row ${i} (${id})`;
    const name = c.obj(at, 'name', r.name);
    const latlng = c.arr(at, 'latlng', r.latlng);
    if (latlng.length !== 2 || !latlng.every((x) => typeof x === 'number')) c.fail(at, 'latlng', latlng);
    if (typeof r.area !== 'number') c.fail(at, 'area', r.area);
    const ccn3 = c.str(at, 'ccn3', r.ccn3, /^(\d{3})?$/);
    const subregion = c.str(at, 'subregion', r.subregion);

    const borders = c.strings(at, 'borders', r.borders, /^[A-Z]{3}$/).map((b) => cca3ToCca2.get(b) ?? c.fail(at, 'borders', b)).sort(cmp);

    const own = Object.keys(c.obj(at, 'currencies', r.currencies ?? {}));
    const cldr = currencies.byRegion.get(id) ?? [];
    const kept: string[] = [];
    for (const code of own) {
      if (!/^[A-Z]{3}$/.test(code)) c.fail(at, 'currencies', code);
      if (!currencies.all.has(code)) dropped.currencies.push(`${id}:${code}`);
      else if (cldr.some((e) => e.code === code && !e.current) && !cldr.some((e) => e.code === code && e.current)) cldrEnded.push(`${id}:${code}`);
      else kept.push(code);
    }
    for (const e of cldr) {
      if (e.current && !kept.includes(e.code) && !own.includes(e.code)) { kept.push(e.code); cldrAdded.push(`${id}:${e.code}`); }
    }

    const territory = territories.get(id);
    const langs = [...(territory?.languages ?? new Map()).entries()]
      .filter(([tag]) => subtags.has(tag) || (dropped.languages.push(`${id}:${tag}`), false))
      .sort(([a, x], [b, y]) => y.share - x.share || cmp(a, b));

    return {
      id,
      name: c.str(at, 'name.common', name.common, /\S/),
      official_name: c.str(at, 'name.official', name.official, /\S/),
      cca3: r.cca3 as string,
      ccn3: ccn3 === '' ? null : ccn3,
      capital: c.strings(at, 'capital', r.capital),
      region: c.str(at, 'region', r.region, /\S/),
      subregion: subregion === '' ? null : subregion,
      latlng: latlng as [number, number],
      // world-countries gives -1 for an unknown area (SJ).
      area_km2: (r.area as number) < 0 ? null : (r.area as number),
      population: territory?.population ?? null,
      borders,
      currencies: kept,
      languages: langs.map(([tag]) => tag),
      official_languages: langs.filter(([, l]) => l.official).map(([tag]) => tag),
      timezones: uniqueSorted(zonesByCountry.get(id) ?? []),
      tld: c.strings(at, 'tld', r.tld),
      flag: c.str(at, 'flag', r.flag),
      independent: r.independent === null ? null : (typeof r.independent === 'boolean' ? r.independent : c.fail(at, 'independent', r.independent)),
      un_member: typeof r.unMember === 'boolean' ? r.unMember : c.fail(at, 'unMember', r.unMember),
      landlocked: typeof r.landlocked === 'boolean' ? r.landlocked : c.fail(at, 'landlocked', r.landlocked),
      has_holidays: holidays.has(id),
      links_holidays: holidays.has(id) ? `/apis/holidays?country=${id}` : null,
      ...otherNames(r, at),
    };
  });
  return { records, dropped, cldrAdded, cldrEnded };
}

/**
 * What else a country is called, as world-countries gives it (issue 36, item 6: `Holland`,
 * `Dutch`, `Deutschland` found nothing): its alternative spellings (altSpellings: codes,
 * short and former names, "Holland"), its English demonyms (demonyms.eng, feminine then
 * masculine when they differ) and its common and official names in its own languages
 * (name.native, by language in the file's order). Each once, in that order.
 */
function otherNames(r: Record<string, unknown>, at: string): Pick<CountryRecord, 'alt_spellings' | 'demonyms' | 'native_names'> {
  const demonyms = r.demonyms === undefined ? {} : c.obj(at, 'demonyms', r.demonyms);
  const eng = demonyms.eng === undefined ? {} : c.obj(at, 'demonyms.eng', demonyms.eng);
  const native = c.obj(at, 'name.native', c.obj(at, 'name', r.name).native ?? {});
  const nativeNames = Object.entries(native).flatMap(([lang, n]) => {
    const o = c.obj(at, `name.native.${lang}`, n);
    return [c.str(at, `name.native.${lang}.common`, o.common, /\S/), c.str(at, `name.native.${lang}.official`, o.official, /\S/)];
  });
  const once = (xs: string[]) => [...new Set(xs.map((x) => x.trim()).filter(Boolean))];
  return {
    alt_spellings: once(c.strings(at, 'altSpellings', r.altSpellings ?? [])),
    // Uninhabited territories have "" (BV, HM): no demonym.
    demonyms: once((['f', 'm'] as const).filter((g) => eng[g] !== undefined).map((g) => c.str(at, `demonyms.eng.${g}`, eng[g]))),
    native_names: once(nativeNames),
  };
}

const codes = (description: string, pattern: string) => stringArray(description, pattern);

const properties = {
  id: { type: 'string', pattern: '^[A-Z]{2}$', description: 'ISO 3166-1 alpha-2 code (user-assigned XK for Kosovo)' },
  name: { type: 'string', description: 'Common English name' },
  official_name: { type: 'string' },
  cca3: { type: 'string', pattern: '^[A-Z]{3}$', description: 'ISO 3166-1 alpha-3' },
  ccn3: nullable('string', { pattern: '^\\d{3}$', description: 'ISO 3166-1 numeric; null for XK' }),
  capital: stringArray('Capital cities (some have several, some none)'),
  region: { type: 'string', description: 'world-countries region, e.g. "Europe"' },
  subregion: nullable('string', { description: 'e.g. "Western Europe"; null where world-countries has none' }),
  latlng: { type: 'array', items: { type: 'number' }, minItems: 2, maxItems: 2, description: 'Approximate centre [latitude, longitude]' },
  area_km2: nullable('number', { description: 'Area in km²; null where unknown' }),
  population: nullable('integer', { description: 'CLDR 48 territoryInfo estimate (rounded, compiled by CLDR from public statistics), not a census count; null where CLDR has none' }),
  borders: codes('Neighbouring countries by land (alpha-2 ids of this dataset)', '^[A-Z]{2}$'),
  currencies: codes('ISO 4217 codes in current use here per CLDR 48 (ids of /apis/currencies)', '^[A-Z]{3}$'),
  languages: codes('Language subtags CLDR records as spoken here, largest population share first (ids of /apis/languages)', '^[a-z]{2,3}$'),
  official_languages: codes('Subset of languages with a CLDR official status (national, de facto or regional)', '^[a-z]{2,3}$'),
  timezones: stringArray('IANA zone names used in this country per @vvo/tzdb (ids of /apis/geography/timezones; a name tzdb keeps only as a link, e.g. Europe/Oslo, resolves to its zone there)'),
  tld: stringArray('Country-code top-level domains'),
  flag: { type: 'string', description: 'Flag emoji' },
  independent: nullable('boolean', { description: 'null where world-countries leaves it open' }),
  un_member: { type: 'boolean' },
  landlocked: { type: 'boolean' },
  has_holidays: { type: 'boolean', description: 'date-holidays has public holidays for this country' },
  links_holidays: nullable('string', { description: 'Path of this country\'s holidays, or null' }),
  alt_spellings: stringArray('Other spellings and names world-countries lists (codes, short, former and local forms: "Holland", "Nederland")'),
  demonyms: stringArray('English demonyms (world-countries demonyms.eng: feminine, then masculine when it differs), e.g. "Dutch"'),
  native_names: stringArray('Common and official names in the country\'s own languages (world-countries name.native), e.g. "Nederland"'),
};

export const countriesSource = defineSource<CountryRecord>({
  id: 'geography/countries',
  maxLimit: SMALL_DATASET_LIMIT, // small records: the whole dataset in one call (issue 13)
  title: 'Countries and territories',
  description: 'The 250 countries and territories of mledoze/countries (ISO 3166-1), with CLDR population estimates, '
    + 'languages and current currencies, neighbours, time zones and holiday coverage. {code} is the alpha-2 code, '
    + 'or the alpha-3, numeric code or English name. Data under the ODbL 1.0 (share-alike).',
  // 0.2.0: alt_spellings, demonyms, native_names (searched).
  contractVersion: '0.2.0',
  provenance: [PROVENANCE.worldCountries, PROVENANCE.cldr, PROVENANCE.languageRegistry, PROVENANCE.vvoTzdb, PROVENANCE.tzdata, PROVENANCE.dateHolidays],
  inputs: {
    worldCountries: { kind: 'npm-file', package: 'world-countries', file: 'countries.json', format: 'json' },
    territoryInfo: { kind: 'npm-file', package: 'cldr-core', file: 'supplemental/territoryInfo.json', format: 'json' },
    currencyData: { kind: 'npm-file', package: 'cldr-core', file: 'supplemental/currencyData.json', format: 'json' },
    languageSubtags: { kind: 'npm-file', package: 'language-subtag-registry', file: 'data/json/language.json', format: 'json' },
    holidays: { kind: 'npm-file', package: 'date-holidays', file: 'data/holidays.json', format: 'json' },
    vvoTzdb: { kind: 'npm-file', package: '@vvo/tzdb', file: 'raw-time-zones.json', format: 'json' },
    tzdata: { kind: 'npm-file', package: 'tzdata', file: 'timezone-data.json', format: 'json' },
  },
  pathParam: 'code',
  pathParamDescription: 'ISO 3166-1 alpha-2 code (DE); also alpha-3 (DEU), numeric (276) or the common English name, case-insensitively.',
  schema: { type: 'object', properties, required: Object.keys(properties), additionalProperties: false },
  search: {
    fields: ['name', 'official_name', 'id', 'cca3', 'capital', 'alt_spellings', 'demonyms', 'native_names'],
    boost: { name: 3, id: 2, cca3: 2, alt_spellings: 2, demonyms: 2, native_names: 1.5 },
    // Weighted by population as places are (1 + log10(1 + population)): a demonym or name
    // several territories share finds the country first ("Dutch": NL before BQ and SX).
    rank: 'population',
    names: [{ field: 'official_name' }, { field: 'alt_spellings' }, { field: 'demonyms' }, { field: 'native_names' }],
  },
  filters: [
    { param: 'region', field: 'region', description: 'Region, e.g. Europe', caseInsensitive: true },
    { param: 'subregion', field: 'subregion', description: 'Subregion, e.g. "Western Europe"', caseInsensitive: true },
    { param: 'currency', field: 'currencies', description: 'ISO 4217 code in use, e.g. EUR', caseInsensitive: true },
    { param: 'language', field: 'languages', description: 'Language subtag spoken, e.g. de', caseInsensitive: true },
    { param: 'has_holidays', field: 'has_holidays', description: 'true or false' },
  ],
  links: [
    { field: 'borders', dataset: 'geography/countries' },
    { field: 'currencies', dataset: 'currencies' },
    { field: 'languages', dataset: 'languages' },
    { field: 'official_languages', dataset: 'languages' },
    { field: 'timezones', dataset: 'geography/timezones' },
  ],
  aliases: (r) => [r.cca3, ...(r.ccn3 ? [r.ccn3] : []), r.name],
  normalise: (raw) => buildCountries(raw).records,
});
