/**
 * Currencies: every ISO 4217 code CLDR knows the history of (current and withdrawn),
 * from CLDR 48's currencyData (which region used which code, from/to) joined with ISO
 * 4217 list one as shipped in currency-codes 2.2.0.
 *
 * ISO is read from the package's copy of list one (iso-4217-list-one.xml), not its
 * data.js: data.js turns ISO's "N.A." minor units (gold, SDR, XXX…) into 0 and drops
 * the fund flag. CLDR's en territory names lack the withdrawn region codes (YU, DD, SU,
 * ZR…), so those names come from the IANA subtag registry. world-countries is read only
 * to know which regions the geography/countries dataset has (the `countries` link).
 *
 * Status: "historical" = no open-ended region interval (SOURCES.md). An open interval
 * with `_tender: "false"` still makes a currency current: XAU, XDR, CHE, CLF, VED… are
 * in ISO's current list and have no withdrawal date; `legal_tender` carries the
 * difference instead. Anything unexpected upstream throws naming the row and field.
 */
import { SaxesParser } from 'saxes';
import { SMALL_DATASET_LIMIT, defineSource } from './contract.ts';
import { COUNTRY_CODES, COUNTRY_CODES_PROVENANCE, countryFilter } from './vocabularies.ts';

export interface Interval { region: string; region_name: string | null; from: string | null; to: string | null; tender: boolean }

export interface CurrencyRecord {
  id: string; code: string; numeric: string | null; name: string | null; name_one: string | null; name_other: string | null;
  iso_name: string | null; symbol: string | null; narrow_symbol: string | null;
  minor_units: number | null; minor_units_source: 'iso4217' | 'cldr' | 'cldr-default';
  cldr_digits: number; cash_digits: number; cash_rounding: number; fund: boolean | null;
  status: 'current' | 'historical'; legal_tender: boolean; lifecycle: Interval[];
  regions: string[]; countries: string[]; current_countries: string[]; country_names: string[]; withdrawn: string | null;
}

/** One code of ISO list one, merged over its per-country rows. digits null = ISO's "N.A.". */
export interface IsoEntry { numeric: string; digits: number | null; name: string; fund: boolean }

function fail(where: string, field: string, value: unknown): never {
  throw new Error(`currencies: ${where} field ${field}: unexpected ${JSON.stringify(value)}`);
}

const obj = (v: unknown, where: string, field: string): Record<string, any> =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, any>) : fail(where, field, v);
/** Code-unit order, locale-independent. */
const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const CODE = /^[A-Z]{3}$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const ISO_FIELDS = new Set(['CtryNm', 'CcyNm', 'Ccy', 'CcyNbr', 'CcyMnrUnts']);
const PARENT: Record<string, string> = { CcyTbl: 'ISO_4217', CcyNtry: 'CcyTbl' };

/** ISO 4217 list one XML → code → entry. Rows without a code ("No universal currency") are skipped. */
export function readIsoListOne(xml: unknown): Map<string, IsoEntry> {
  if (typeof xml !== 'string') return fail('ISO 4217 list one', '(file)', typeof xml);
  const out = new Map<string, IsoEntry>();
  const parser = new SaxesParser<{ xmlns: false; position: true }>({ xmlns: false, position: true });
  const stack: string[] = [];
  let row: Record<string, string> = {}, text = '';
  parser.on('opentag', (t) => {
    const where = `ISO 4217 list one line ${parser.line}`;
    const parent = stack[stack.length - 1];
    const expected = t.name === 'ISO_4217' ? undefined : ISO_FIELDS.has(t.name) ? 'CcyNtry' : PARENT[t.name] ?? fail(where, 'element', t.name);
    if (parent !== expected) fail(where, `element ${t.name} inside`, parent ?? null);
    for (const [k, v] of Object.entries(t.attributes)) {
      const known = (t.name === 'ISO_4217' && k === 'Pblshd') || (t.name === 'CcyNm' && k === 'IsFund' && v === 'true');
      if (!known) fail(where, `${t.name}@${k}`, v);
    }
    if (t.name === 'CcyNtry') row = {};
    if (t.name === 'CcyNm' && t.attributes.IsFund === 'true') row.IsFund = 'true';
    stack.push(t.name), (text = '');
  });
  parser.on('text', (s) => { text += s; });
  parser.on('closetag', (t) => {
    stack.pop();
    if (ISO_FIELDS.has(t.name)) row[t.name] = text.trim();
    if (t.name !== 'CcyNtry' || row.Ccy === undefined) return;
    const where = `ISO 4217 list one row ${row.Ccy} (${row.CtryNm})`;
    if (!CODE.test(row.Ccy)) fail(where, 'Ccy', row.Ccy);
    if (!/^\d{3}$/.test(row.CcyNbr ?? '')) fail(where, 'CcyNbr', row.CcyNbr);
    if (!/^(\d|N\.A\.)$/.test(row.CcyMnrUnts ?? '')) fail(where, 'CcyMnrUnts', row.CcyMnrUnts);
    if (!row.CcyNm) fail(where, 'CcyNm', row.CcyNm);
    const e: IsoEntry = { numeric: row.CcyNbr, digits: row.CcyMnrUnts === 'N.A.' ? null : Number(row.CcyMnrUnts), name: row.CcyNm, fund: row.IsFund === 'true' };
    const prev = out.get(row.Ccy);
    // A code appears once per country; the rows must agree on everything but the country.
    if (prev && JSON.stringify(prev) !== JSON.stringify(e)) fail(where, 'disagrees with an earlier row', [prev, e]);
    out.set(row.Ccy, e);
  });
  parser.write(xml).close();
  return out;
}

interface Fraction { digits: number; cashDigits: number; cashRounding: number }

/** CLDR fractions: cash digits default to digits, cash rounding to rounding (CLDR's inheritance rules). */
function readFractions(raw: unknown): Map<string, Fraction> {
  const out = new Map<string, Fraction>();
  for (const [code, f] of Object.entries(obj(raw, 'currencyData', 'fractions'))) {
    const where = `currencyData fractions ${code}`;
    const n = (k: string, dflt?: number) => {
      const v = obj(f, where, '(entry)')[k];
      if (v === undefined && dflt !== undefined) return dflt;
      return typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : fail(where, k, v);
    };
    for (const k of Object.keys(f)) if (!['_digits', '_rounding', '_cashDigits', '_cashRounding'].includes(k)) fail(where, k, f[k]);
    const digits = n('_digits');
    out.set(code, { digits, cashDigits: n('_cashDigits', digits), cashRounding: n('_cashRounding', n('_rounding')) });
  }
  if (!out.has('DEFAULT')) fail('currencyData fractions', 'DEFAULT', undefined);
  return out;
}

/** CLDR region → [{CODE: {_from, _to, _tender}}] turned into code → intervals (names filled in later). */
function readRegions(raw: unknown): Map<string, Interval[]> {
  const out = new Map<string, Interval[]>();
  for (const [region, list] of Object.entries(obj(raw, 'currencyData', 'region'))) {
    if (!/^([A-Z]{2}|\d{3})$/.test(region) || !Array.isArray(list)) fail(`currencyData region ${region}`, '(entry)', list);
    for (const item of list) {
      const entries = Object.entries(obj(item, `currencyData region ${region}`, '(item)'));
      if (entries.length !== 1 || !CODE.test(entries[0][0])) fail(`currencyData region ${region}`, '(item)', item);
      const [code, v] = entries[0];
      const where = `currencyData region ${region} ${code}`;
      for (const [k, val] of Object.entries(obj(v, where, '(interval)'))) {
        // _tz / _to-tz name the zone a date is local to; dates are kept as given.
        const ok = k === '_from' || k === '_to' ? DATE.test(val) : k === '_tender' ? val === 'false' || val === 'true'
          : k === '_tz' || k === '_to-tz' ? typeof val === 'string' : false;
        if (!ok) fail(where, k, val);
      }
      (out.get(code) ?? out.set(code, []).get(code)!).push({ region, region_name: null, from: v._from ?? null, to: v._to ?? null, tender: v._tender !== 'false' });
    }
  }
  return out;
}

/** Region code → English name: CLDR first, then the IANA registry, which keeps deprecated codes. */
function regionNames(territories: any, registry: unknown): Map<string, string> {
  const names = new Map<string, string>();
  if (!Array.isArray(registry)) return fail('language-subtag-registry', '(file)', typeof registry);
  for (const e of registry) {
    if (e?.Type !== 'region') continue;
    const d = e.Description?.[0];
    if (typeof e.Subtag !== 'string' || typeof d !== 'string') fail(`subtag registry region ${e.Subtag}`, 'Description', e.Description);
    names.set(e.Subtag, d);
  }
  for (const [k, v] of Object.entries(obj(territories?.main?.en?.localeDisplayNames?.territories, 'en territories.json', 'territories'))) {
    if (typeof v !== 'string') fail(`en territories.json ${k}`, '(name)', v);
    if (!k.includes('-alt-')) names.set(k, v);
  }
  return names;
}

const EN_KEYS = new Set(['displayName', 'displayName-count-one', 'displayName-count-other', 'symbol', 'symbol-alt-narrow', 'symbol-alt-variant']);

export function normalise(raw: Record<string, any>): CurrencyRecord[] {
  const cd = obj(raw.currencyData?.supplemental?.currencyData, 'currencyData.json', 'supplemental.currencyData');
  const fractions = readFractions(cd.fractions);
  const intervals = readRegions(cd.region);
  const mappings = obj(raw.codeMappings?.supplemental?.codeMappings, 'codeMappings.json', 'supplemental.codeMappings');
  const en = obj(raw.enCurrencies?.main?.en?.numbers?.currencies, 'en currencies.json', 'main.en.numbers.currencies');
  const names = regionNames(raw.enTerritories, raw.subtagRegistry);
  const iso = readIsoListOne(raw.isoListOne);
  if (!Array.isArray(raw.worldCountries)) fail('world-countries', '(file)', typeof raw.worldCountries);
  const countryIds = new Set<string>(raw.worldCountries.map((c: any) => (typeof c?.cca2 === 'string' && /^[A-Z]{2}$/.test(c.cca2) ? c.cca2 : fail('world-countries', 'cca2', c?.cca2))));
  // Numerics ISO assigns: CLDR also maps CNH (not an ISO code) to CNY's 156.
  const isoNumerics = new Map([...iso].map(([code, e]) => [e.numeric, code]));
  const dflt = fractions.get('DEFAULT')!;

  const records = [...new Set([...intervals.keys(), ...iso.keys()])].map((code): CurrencyRecord => {
    const where = `currency ${code}`;
    const i = iso.get(code);
    const cldrNumeric = mappings[code]?._numeric;
    if (cldrNumeric !== undefined && !/^\d{1,3}$/.test(cldrNumeric)) fail(`codeMappings ${code}`, '_numeric', cldrNumeric);
    let numeric: string | null = cldrNumeric?.padStart(3, '0') ?? i?.numeric ?? null;
    if (i && numeric !== i.numeric) fail(where, 'numeric (CLDR vs ISO)', [numeric, i.numeric]);
    if (!i && numeric && isoNumerics.has(numeric)) numeric = null;
    const names1 = obj(en[code] ?? {}, `en currencies.json ${code}`, '(entry)');
    for (const k of Object.keys(names1)) if (!EN_KEYS.has(k) || typeof names1[k] !== 'string') fail(`en currencies.json ${code}`, k, names1[k]);
    const frac = fractions.get(code), f = frac ?? dflt;
    const lifecycle = (intervals.get(code) ?? [])
      .map((iv) => ({ ...iv, region_name: names.get(iv.region) ?? null }))
      .sort((a, b) => cmp(a.region, b.region) || cmp(a.from ?? '', b.from ?? '') || cmp(a.to ?? '', b.to ?? ''));
    const open = lifecycle.filter((iv) => iv.to === null);
    // Only ISO-listed codes can lack CLDR intervals; ISO's list is of current currencies.
    const status = open.length > 0 || lifecycle.length === 0 ? 'current' : 'historical';
    const uniq = (xs: (string | null)[]) => [...new Set(xs.filter((x): x is string => x !== null))].sort(cmp);
    const regions = uniq(lifecycle.map((iv) => iv.region));
    return {
      id: code, code, numeric,
      name: names1.displayName ?? null,
      name_one: names1['displayName-count-one'] ?? null,
      name_other: names1['displayName-count-other'] ?? null,
      iso_name: i?.name ?? null,
      symbol: names1.symbol ?? null,
      narrow_symbol: names1['symbol-alt-narrow'] ?? null,
      // ISO's minor units are the standard; CLDR's digits are formatting advice (IDR: ISO 2, CLDR 0).
      minor_units: i ? i.digits : f.digits,
      minor_units_source: i ? 'iso4217' : frac ? 'cldr' : 'cldr-default',
      cldr_digits: f.digits, cash_digits: f.cashDigits, cash_rounding: f.cashRounding,
      fund: i ? i.fund : null,
      status,
      legal_tender: lifecycle.some((iv) => iv.tender),
      lifecycle, regions,
      countries: regions.filter((r) => countryIds.has(r)),
      current_countries: uniq(open.map((iv) => iv.region)).filter((r) => countryIds.has(r)),
      country_names: uniq(lifecycle.map((iv) => iv.region_name)),
      withdrawn: status === 'historical' ? lifecycle.map((iv) => iv.to!).sort(cmp).pop()! : null,
    };
  });
  // A numeric two records share would be dropped as an ambiguous alias; make it loud instead.
  const seen = new Map<string, string>();
  for (const r of records) if (r.numeric) seen.set(r.numeric, seen.has(r.numeric) ? fail(`currency ${r.id}`, `numeric (also ${seen.get(r.numeric)})`, r.numeric) : r.id);
  return records;
}

const nullable = (type: string, description?: string) => ({ type: [type, 'null'], ...(description ? { description } : {}) });
const date = (description?: string) => ({ ...nullable('string', description), pattern: '^\\d{4}-\\d{2}-\\d{2}$' });
const codes = (description: string) => ({ type: 'array', items: { type: 'string', pattern: '^([A-Z]{2}|\\d{3})$' }, description });

const interval = {
  region: { type: 'string' }, region_name: nullable('string'),
  from: date('Start, as CLDR gives it; null = unknown'), to: date('End; null = still in use'), tender: { type: 'boolean' },
};

const properties = {
  id: { type: 'string', pattern: '^[A-Z]{3}$', description: 'ISO 4217 alphabetic code' },
  code: { type: 'string', pattern: '^[A-Z]{3}$' },
  numeric: { type: ['string', 'null'], pattern: '^\\d{3}$', description: 'ISO 4217 numeric code (CLDR codeMappings, else ISO list one); null if none' },
  name: nullable('string', 'CLDR English display name'),
  name_one: nullable('string', 'CLDR English singular, e.g. "euro"'),
  name_other: nullable('string', 'CLDR English plural, e.g. "euros"'),
  iso_name: nullable('string', 'Name in ISO 4217 list one; null when the code is not on it'),
  symbol: nullable('string', 'CLDR English symbol; null where CLDR has none (show the code)'),
  narrow_symbol: nullable('string'),
  minor_units: nullable('integer', 'ISO minor units when ISO lists the code (null = ISO "N.A."), else CLDR fraction digits'),
  minor_units_source: { type: 'string', enum: ['iso4217', 'cldr', 'cldr-default'], description: 'cldr-default = CLDR\'s DEFAULT (2): the code has no fractions entry' },
  cldr_digits: { type: 'integer', minimum: 0, description: 'Digits CLDR uses to format amounts (may differ from ISO, e.g. IDR 0)' },
  cash_digits: { type: 'integer', minimum: 0 },
  cash_rounding: { type: 'integer', minimum: 0, description: 'Cash rounding increment in minor units (CHF 5 = 0.05); 0 = none' },
  fund: nullable('boolean', 'ISO marks the code as a fund (e.g. CHE, BOV); null when ISO does not list it'),
  status: { type: 'string', enum: ['current', 'historical'], description: 'historical = no open-ended region interval' },
  legal_tender: { type: 'boolean', description: 'Some interval is legal tender (false for metals, funds, units of account, test codes)' },
  lifecycle: {
    type: 'array', items: { type: 'object', properties: interval, required: Object.keys(interval), additionalProperties: false },
    description: 'Where and when the code was used (CLDR), by region then start date',
  },
  regions: codes('Every region of the lifecycle, including withdrawn codes (YU, DD, SU…) and EU, ZZ'),
  countries: codes('Regions of the lifecycle that are countries of geography/countries (ISO 3166-1 alpha-2)'),
  current_countries: codes('Countries using the code now (open-ended interval)'),
  country_names: { type: 'array', items: { type: 'string' }, description: 'English names of every lifecycle region' },
  withdrawn: date('Latest end date of a historical code; null when current'),
};

export default defineSource<CurrencyRecord>({
  id: 'currencies',
  maxLimit: SMALL_DATASET_LIMIT, // small records: the whole dataset in one call (issue 13)
  title: 'Currencies',
  description: 'ISO 4217 currencies, current and withdrawn: codes, English names and symbols, minor units, and which regions used them when.',
  contractVersion: '0.1.0',
  provenance: [
    {
      name: 'Unicode CLDR 48 (cldr-core, cldr-numbers-full, cldr-localenames-full 48.2.0)', url: 'https://github.com/unicode-org/cldr-json',
      licence: { spdx: 'Unicode-3.0', name: 'Unicode License v3', url: 'https://www.unicode.org/license.txt' },
      attribution: 'Unicode CLDR, © Unicode, Inc.',
    },
    {
      name: 'ISO 4217 list one (2024-06-25) via currency-codes 2.2.0', url: 'https://github.com/freeall/currency-codes',
      licence: { spdx: 'MIT', name: 'MIT License (the package)', url: 'https://opensource.org/licenses/MIT' },
      attribution: 'ISO 4217 currency codes, maintained by SIX Financial Information as ISO 4217 maintenance agency; packaged by currency-codes (Tobias Baunbæk Christensen, MIT)',
    },
    {
      name: 'IANA Language Subtag Registry via language-subtag-registry 0.4.2 (names of withdrawn region codes)', url: 'https://www.iana.org/assignments/language-subtag-registry',
      licence: { spdx: 'CC0-1.0', name: 'CC0 1.0 (the package)', url: 'https://creativecommons.org/publicdomain/zero/1.0/' },
      attribution: 'IANA Language Subtag Registry; packaged by language-subtag-registry (Matthew Caruana Galizia)',
    },
    {
      name: 'world-countries 5.1.0 (which regions are countries)', url: 'https://github.com/mledoze/countries',
      licence: { spdx: 'ODbL-1.0', name: 'Open Database License 1.0', url: 'https://opendatacommons.org/licenses/odbl/1.0/' },
      attribution: 'world-countries by Mohammed Le Doze',
    },
  ],
  inputs: {
    currencyData: { kind: 'npm-file', package: 'cldr-core', file: 'supplemental/currencyData.json', format: 'json' },
    codeMappings: { kind: 'npm-file', package: 'cldr-core', file: 'supplemental/codeMappings.json', format: 'json' },
    enCurrencies: { kind: 'npm-file', package: 'cldr-numbers-full', file: 'main/en/currencies.json', format: 'json' },
    enTerritories: { kind: 'npm-file', package: 'cldr-localenames-full', file: 'main/en/territories.json', format: 'json' },
    isoListOne: { kind: 'npm-file', package: 'currency-codes', file: 'iso-4217-list-one.xml', format: 'text' },
    subtagRegistry: { kind: 'npm-file', package: 'language-subtag-registry', file: 'data/json/registry.json', format: 'json' },
    worldCountries: { kind: 'npm-file', package: 'world-countries', file: 'countries.json', format: 'json' },
    countryCodes: COUNTRY_CODES,
  },
  pathParam: 'code',
  pathParamDescription: 'ISO 4217 code (EUR, any case) or numeric code (978).',
  schema: { type: 'object', properties, required: Object.keys(properties), additionalProperties: false },
  // Symbols and the singular and plural names are what people call a currency ("₩", "zł",
  // "euros"): searched too (issue 36, item 6), symbols weighed like the code.
  search: {
    fields: ['code', 'name', 'iso_name', 'numeric', 'country_names', 'symbol', 'narrow_symbol', 'name_one', 'name_other'],
    boost: { code: 3, name: 3, symbol: 2, narrow_symbol: 2, name_one: 2, name_other: 2 },
    names: [{ field: 'symbol' }, { field: 'narrow_symbol' }, { field: 'name_one' }, { field: 'name_other' }],
  },
  filters: [
    { param: 'status', field: 'status', description: 'current or historical' },
    countryFilter('country', 'countries', 'ISO 3166-1 alpha-2 code of a country that ever used the currency, e.g. DE.'),
    countryFilter('current_country', 'current_countries', 'Country using the currency now, e.g. DE.'),
    { param: 'region', field: 'regions', description: 'Any CLDR region, incl. withdrawn codes (YU, DD, SU)', caseInsensitive: true },
    { param: 'minor_units', field: 'minor_units', description: 'Minor units, e.g. 0, 2, 3' },
    { param: 'legal_tender', field: 'legal_tender', description: 'true or false' },
  ],
  links: [{ field: 'countries', dataset: 'geography/countries' }, { field: 'current_countries', dataset: 'geography/countries' }],
  views: [{ segment: 'historical', summary: 'Withdrawn currencies', filter: { status: 'historical' } }],
  aliases: (r) => (r.numeric ? [r.numeric] : []),
  normalise,
});
