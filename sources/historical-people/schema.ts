/** JSON Schema of a historical-people record. */
import { CORRECTION_SCHEMA } from './corrections.ts';

const n = (type: string, description: string, extra: Record<string, unknown> = {}) => ({ type: [type, 'null'], description, ...extra });

export const PEOPLE_PROPERTIES = {
  id: { type: 'string', pattern: '^(pantheon-\\d+|wordnet-\\d{8})$', description: 'pantheon-<English Wikipedia page id>, or wordnet-<synset offset> for people only WordNet has' },
  name: { type: 'string', description: 'Pantheon\'s name; for WordNet-only people the fullest of the synset\'s names' },
  also_known_as: { type: 'array', items: { type: 'string' }, description: 'Other names of the WordNet synset' },
  birth_year: n('integer', 'Birth year; negative = BCE (-384 = 384 BC)'),
  birth_year_text: n('string', 'Pantheon\'s birth year when it is not a plain year ("530s", "1237?")'),
  death_year: n('integer', 'Death year (WordNet only: Pantheon 1.0 has none); negative = BCE'),
  dates_approximate: { type: 'boolean', description: 'The source marks the dates as approximate (circa, "?"), gives no plain birth year, or Pantheon and WordNet give different birth years (Pantheon\'s is served)' },
  birth_place: n('string', 'Birth city (Pantheon); null where Pantheon has none or only its placeholder "Other"'),
  birth_place_id: n('string', 'GeoNames id in /apis/geography/places, where the birth city\'s name is unique in its country'),
  birth_state: n('string', 'US state of birth (Pantheon)'),
  country: n('string', 'Birth country, id in /apis/geography/countries (Pantheon\'s code)', { pattern: '^[A-Z]{2}$' }),
  country_name: n('string', 'Birth country: the common English name of `country` (world-countries), one spelling per country; Pantheon\'s own text where it has no code'),
  latitude: n('number', 'Birth place latitude (Pantheon)'),
  longitude: n('number', 'Birth place longitude (Pantheon)'),
  gender: n('string', 'Male or Female (Pantheon)'),
  occupation: n('string', 'Pantheon occupation, e.g. PHILOSOPHER'),
  industry: n('string', 'Pantheon industry, e.g. PHILOSOPHY'),
  domain: n('string', 'Pantheon domain, e.g. HUMANITIES'),
  description: n('string', 'WordNet gloss, without its dates'),
  kinds: { type: 'array', items: { type: 'string' }, description: 'What WordNet says the person is an instance of (e.g. "philosopher")' },
  popularity_index: n('number', 'Pantheon Historical Popularity Index (HPI)'),
  wikipedia_languages: n('integer', 'Wikipedia language editions with an article (Pantheon, 2013)'),
  wikipedia_page_id: n('integer', 'English Wikipedia page id (Pantheon en_curid)'),
  wordnet_synset: n('string', 'WordNet 3.1 noun synset offset'),
  name_damaged: { type: 'boolean', description: 'The mirrored Pantheon copy replaced letters of the name with "?" (see coverage)' },
  corrections: CORRECTION_SCHEMA,
  field_sources: {
    type: 'object', description: 'For each field with a value: "pantheon", "wordnet", or "correction" (see corrections)',
    additionalProperties: { type: 'string', enum: ['pantheon', 'wordnet', 'correction'] },
  },
};
