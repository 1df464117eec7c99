/**
 * Which search fields are stemmed (pipeline/stemming.ts): the one place that decides it,
 * per dataset and field. The build writes the answer into the manifest
 * (DatasetInfo.search_stem), and the server stems a query only for a dataset whose
 * manifest names stemmed fields, so a release built before this table is searched as
 * it always was.
 *
 * The rule: a field is stemmed when it holds English words — prose, or names made of
 * English common nouns ("Administrative Conference of the United States", "arc minutes").
 * Not stemmed: proper names (people, places, companies, organisations, deities), codes and
 * identifiers, chemical nomenclature, and anything that is not English or is English only
 * for some records. The English Porter rules would mangle those ("Paris" → pari) and
 * stemming buys nothing there. Per dataset:
 *
 * - agencies: name, suborganizations (English agency names). Not short_name, domains, cities.
 * - classification-crosswalks: title, description. Not code.
 * - clinical-trials: title, official_title, conditions, interventions, keywords. Not sponsor.
 * - currencies: name, iso_name, name_one, name_other ("US Dollar", "dollars"). Not code, numeric, country_names, symbols.
 * - economic-indicators: name, topic, short_definition, long_definition. Not id.
 * - elements: group_block ("alkali metal"), series ("Lanthanides"). Not name, symbol, id, symbol_name.
 * - historical-events: text (English Wikipedia). Not year_text.
 * - historical-people: occupation, description. Not name, also_known_as, birth_place.
 * - ingredients: technical_effects. Not name, other_names, id (chemical names).
 * - languages: descriptions (the registry's English notes). Not name, native_name (a
 *   language's own name in its own language), subtag, tag, iso639_codes.
 * - laws-regulations: title, abstract. Not agencies.
 * - mythology: description (WordNet glosses), types. Not name, names.
 * - procurement: description. Not recipient, agency, award_id.
 * - recalls: product_description, reason_for_recall. Not recalling_firm.
 * - units: name, synonyms, quantity ("kilometres", "percents"). Not id, symbol.
 * - weather-alerts: headline, event, description. Not area_desc (place names).
 * - bible/<slug>: text, for a translation whose language tag (TranslationSource.language)
 *   is English (`en`, `en-US`…); a translation in any other language is not stemmed.
 * - Not stemmed at all: holidays (`name` is English only where the source has an English
 *   name, else the local name; `local_name` is the local language), geography/* (place and
 *   country names), languages/scripts and languages/families (names), earthquakes (place
 *   names and generated titles), public-companies, population-demographics, aviation
 *   (names and codes), nonprofit-organizations (organisation names; its word index,
 *   pipeline/term-index.ts, has no stems), bible-study (no search fields).
 *
 * test/search-matching.test.ts checks that every dataset and field named here exists.
 */
import type { DatasetSource } from '../sources/contract.ts';
import { datasetId } from '../sources/scripture/dataset.ts';
import { TRANSLATIONS } from '../sources/scripture/index.ts';

export const STEMMED_FIELDS: Readonly<Record<string, readonly string[]>> = {
  agencies: ['name', 'suborganizations'],
  'classification-crosswalks': ['title', 'description'],
  'clinical-trials': ['title', 'official_title', 'conditions', 'interventions', 'keywords'],
  currencies: ['name', 'iso_name', 'name_one', 'name_other'],
  'economic-indicators': ['name', 'topic', 'short_definition', 'long_definition'],
  elements: ['group_block', 'series'],
  'historical-events': ['text'],
  'historical-people': ['occupation', 'description'],
  ingredients: ['technical_effects'],
  languages: ['descriptions'],
  'laws-regulations': ['title', 'abstract'],
  mythology: ['description', 'types'],
  procurement: ['description'],
  recalls: ['product_description', 'reason_for_recall'],
  units: ['name', 'synonyms', 'quantity'],
  'weather-alerts': ['headline', 'event', 'description'],
  ...Object.fromEntries(TRANSLATIONS.filter((t) => /^en(-|$)/i.test(t.language)).map((t) => [datasetId(t.slug), ['text']])),
};

/**
 * The fields of `source` to stem: those of the table that it searches (a field the table
 * names but the source does not search is a mistake the test catches, not stemmed here).
 * Streamed datasets use the word index, which has no stems.
 */
export function stemmedFields(source: DatasetSource<any>): string[] {
  if (source.normaliseStream) return [];
  const named = STEMMED_FIELDS[source.id] ?? [];
  return source.search.fields.filter((f) => named.includes(f));
}
