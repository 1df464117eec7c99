/**
 * languages — three datasets over BCP 47 subtags: the IANA Language Subtag Registry (every
 * entry), CLDR's language→script data and CLDR's genealogical language groups.
 *
 * Ids: language subtags and grandfathered/redundant tags keep their registry form ("de",
 * "zh-Hant", "i-klingon"); other types get a type prefix ("region:DE", "script:Latn") so
 * the region DE can never take the id of German. The bare subtag is an alias, and the
 * pipeline lets an id (in any case) beat another record's alias: /languages/DE is German,
 * /languages/Latn is the script.
 *
 * CLDR facts are attached to type "language" records only (an extlang's language record
 * carries them). Every CLDR code must be a registry subtag: a code the registry lacks
 * would be a dangling link, so it throws, as does any upstream shape not seen in the
 * pinned versions (registry 2025-08-25, CLDR 48).
 */
import { SMALL_DATASET_LIMIT, defineSource, type Provenance } from '../contract.ts';
import { NATIVE_INPUT, iso639Codes, nativeNames } from './names.ts';
import { COUNTRY_CODES, countryFilter } from '../vocabularies.ts';

const EDITION = '2025-08-25', CLDR = '48'; // registry File-Date in language-subtag-registry 0.4.2; CLDR of 48.2.0
const TYPES = ['language', 'extlang', 'script', 'region', 'variant', 'grandfathered', 'redundant'] as const;
const SCOPES = ['macrolanguage', 'collection', 'special', 'private-use'];
const KEYS = ['Type', 'Subtag', 'Tag', 'Description', 'Added', 'Deprecated', 'Preferred-Value', 'Macrolanguage', 'Suppress-Script', 'Scope', 'Prefix', 'Comments'];
// CLDR territories that are not ISO 3166-1 countries: exceptionally reserved codes (Ascension, Clipperton, Sark,
// Diego Garcia, Ceuta & Melilla, Canary Islands, Tristan da Cunha) and ZZ "unknown"; 7 pairs dropped in CLDR 48.
const NOT_COUNTRIES = new Set(['AC', 'CP', 'CQ', 'DG', 'EA', 'IC', 'TA', 'ZZ']);
const STATUSES = new Set(['official', 'de_facto_official', 'official_regional']);
const POP_KEYS = new Set(['_populationPercent', '_officialStatus', '_writingPercent', '_literacyPercent']);
export const SOURCE_CLDR = `CLDR ${CLDR} languageData`, SOURCE_IANA = 'IANA registry Suppress-Script';

type Type = (typeof TYPES)[number]; type Obj = Record<string, unknown>;
export interface RegistryRow {
  Type: Type; Subtag?: string; Tag?: string; Description: string[]; Added: string; Deprecated?: string;
  'Preferred-Value'?: string; Macrolanguage?: string; 'Suppress-Script'?: string; Scope?: string; Prefix?: string[]; Comments?: string[];
}

function fail(where: string, field: string, value: unknown): never {
  throw new Error(`languages: ${where} field ${field}: unexpected ${JSON.stringify(value)?.slice(0, 200)}`);
}
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const strs = (v: unknown) => Array.isArray(v) && v.every((s) => typeof s === 'string' && s.trim() !== '');
const DATE = /^\d{4}-\d{2}-\d{2}$/, sorted = (s: Iterable<string>) => [...s].sort();
const subtags = (rows: RegistryRow[], type: Type) => new Set(rows.filter((r) => r.Type === type).map((r) => r.Subtag!)); // of one type

/** registry.json rows, each checked field by field; meta.json must carry the edition we cite. */
export function registry(raw: unknown, meta: unknown): RegistryRow[] {
  if (!isObj(meta) || meta['File-Date'] !== EDITION) fail('registry meta.json', 'File-Date', isObj(meta) ? meta['File-Date'] : meta);
  if (!Array.isArray(raw)) return fail('registry.json', '(file)', typeof raw);
  return raw.map((r: unknown, i) => {
    if (!isObj(r)) return fail(`registry row ${i}`, '(row)', r);
    const where = `registry row ${i} (${r.Type} ${r.Tag ?? r.Subtag})`;
    for (const k of Object.keys(r)) if (!KEYS.includes(k)) fail(where, k, r[k]);
    if (!TYPES.includes(r.Type as Type)) fail(where, 'Type', r.Type);
    const tagged = r.Type === 'grandfathered' || r.Type === 'redundant';
    if (typeof r[tagged ? 'Tag' : 'Subtag'] !== 'string' || r[tagged ? 'Subtag' : 'Tag'] !== undefined) fail(where, tagged ? 'Tag' : 'Subtag', r.Subtag ?? r.Tag);
    if (!strs(r.Description) || !(r.Description as string[]).length) fail(where, 'Description', r.Description);
    for (const k of ['Prefix', 'Comments']) if (r[k] !== undefined && !strs(r[k])) fail(where, k, r[k]);
    for (const k of ['Added', 'Deprecated']) if ((k === 'Added' || r[k] !== undefined) && !DATE.test(String(r[k]))) fail(where, k, r[k]);
    for (const k of ['Preferred-Value', 'Macrolanguage', 'Suppress-Script']) if (r[k] !== undefined && !/^[\w-]+$/.test(String(r[k]))) fail(where, k, r[k]);
    if (r.Scope !== undefined && !SCOPES.includes(r.Scope as string)) fail(where, 'Scope', r.Scope);
    if (r['Suppress-Script'] !== undefined && r.Type !== 'language') fail(where, 'Suppress-Script', r['Suppress-Script']);
    return r as unknown as RegistryRow;
  });
}

/** The object at supplemental.<name> of a cldr-core file, after checking its CLDR version. */
function supplemental(raw: unknown, name: string): Obj {
  const s = isObj(raw) && isObj(raw.supplemental) ? raw.supplemental : fail(`cldr-core ${name}.json`, 'supplemental', typeof raw);
  if (!isObj(s.version) || s.version._cldrVersion !== CLDR) fail(`cldr-core ${name}.json`, 'version._cldrVersion', s.version);
  return isObj(s[name]) ? s[name] : fail(`cldr-core ${name}.json`, name, typeof s[name]);
}

/** English display names from cldr-localenames-full main/en/<kind>.json. */
export function enNames(raw: unknown, kind: 'languages' | 'scripts'): Map<string, string> {
  const en = isObj(raw) && isObj(raw.main) && isObj(raw.main.en) ? raw.main.en : fail(`main/en/${kind}.json`, 'main.en', raw);
  if (!isObj(en.identity) || en.identity.language !== 'en') fail(`main/en/${kind}.json`, 'identity', en.identity);
  const names = isObj(en.localeDisplayNames) && isObj(en.localeDisplayNames[kind]) ? en.localeDisplayNames[kind] : fail(`main/en/${kind}.json`, kind, null);
  return new Map(Object.entries(names).map(([k, v]) => [k, typeof v === 'string' && v.trim() ? v : fail(`main/en/${kind}.json ${k}`, '(name)', v)]));
}

/** languageData: language → primary and secondary scripts ("xx-alt-secondary" entries). */
export function languageScripts(raw: unknown, rows: RegistryRow[]) {
  const langs = subtags(rows, 'language'), scripts = subtags(rows, 'script'), out = new Map<string, { primary: string[]; secondary: string[] }>();
  for (const [key, v] of Object.entries(supplemental(raw, 'languageData'))) {
    const where = `languageData ${key}`, m = /^([a-z]{2,3})(-alt-secondary)?$/.exec(key);
    if (!m || !langs.has(m[1])) fail(where, '(language code)', key);
    if (!isObj(v) || Object.keys(v).join() !== '_scripts' || !strs(v._scripts)) fail(where, '_scripts', v);
    for (const s of v._scripts as string[]) if (!scripts.has(s)) fail(where, '_scripts', s);
    const e = out.get(m[1]) ?? out.set(m[1], { primary: [], secondary: [] }).get(m[1])!;
    e[m[2] ? 'secondary' : 'primary'] = v._scripts as string[];
  }
  return out;
}

/**
 * languageGroups: family → members. "mul" is CLDR's list of top-level entries, not a
 * family, so it gives no parent. Nine languages (mixed languages such as Polari) sit in
 * several groups: their `family` is null and `families` holds every line of descent.
 */
export function languageGroups(raw: unknown, rows: RegistryRow[]) {
  const langs = subtags(rows, 'language'), members = new Map<string, string[]>(), parents = new Map<string, string[]>();
  for (const [fam, v] of Object.entries(supplemental(raw, 'languageGroups'))) {
    if (!langs.has(fam)) fail(`languageGroups ${fam}`, '(family code)', fam);
    const list = typeof v === 'string' ? v.split(' ') : fail(`languageGroups ${fam}`, '(members)', v);
    for (const m of list) if (!langs.has(m)) fail(`languageGroups ${fam}`, '(member)', m);
    if (fam === 'mul') continue;
    for (const m of members.set(fam, list).get(fam)!) parents.set(m, [...(parents.get(m) ?? []), fam]);
  }
  for (const fam of members.keys()) if ((parents.get(fam) ?? []).length > 1) fail(`languageGroups ${fam}`, '(parents)', parents.get(fam));
  /** Every family above `code`, nearest first (breadth-first over all parents). */
  const ancestors = (code: string): string[] => {
    const seen: string[] = [];
    for (let queue = [...(parents.get(code) ?? [])]; queue.length;) {
      const f = queue.shift()!;
      if (f === code) fail(`languageGroups ${code}`, '(cycle)', seen);
      if (!seen.includes(f)) seen.push(f), queue.push(...(parents.get(f) ?? []));
    }
    return seen;
  };
  return { members, parents, ancestors };
}

/**
 * territoryInfo: language → territories where CLDR records it (script-qualified keys such
 * as "zh_Hant" count for the language), and those where it is official (de jure or de
 * facto, not regional). `dropped` lists pairs on territories that are not countries.
 */
export function territoryLanguages(raw: unknown, rows: RegistryRow[]) {
  const langs = subtags(rows, 'language'), out = new Map<string, { countries: Set<string>; official: Set<string> }>(), dropped: string[] = [];
  for (const [terr, t] of Object.entries(supplemental(raw, 'territoryInfo'))) {
    const where = `territoryInfo ${terr}`, pop = isObj(t) && /^([A-Z]{2}|\d{3})$/.test(terr) ? t.languagePopulation ?? {} : fail(where, '(territory)', t);
    if (!isObj(pop)) fail(where, 'languagePopulation', pop);
    for (const [key, p] of Object.entries(pop)) {
      const m = /^([a-z]{2,3})(_[A-Z][a-z]{3})?$/.exec(key);
      if (!m || !langs.has(m[1])) fail(where, `languagePopulation.${key}`, key);
      if (!isObj(p) || Object.keys(p).some((k) => !POP_KEYS.has(k))) fail(where, `languagePopulation.${key}`, p);
      if (p._officialStatus !== undefined && !STATUSES.has(p._officialStatus as string)) fail(where, `languagePopulation.${key}._officialStatus`, p._officialStatus);
      if (NOT_COUNTRIES.has(terr) || !/^[A-Z]{2}$/.test(terr)) { dropped.push(`${terr}:${key}`); continue; }
      const e = out.get(m[1]) ?? out.set(m[1], { countries: new Set(), official: new Set() }).get(m[1])!;
      e.countries.add(terr);
      if (p._officialStatus === 'official' || p._officialStatus === 'de_facto_official') e.official.add(terr);
    }
  }
  return { byLanguage: out, dropped };
}

const nullable = (type: string, extra: object = {}) => ({ type: [type, 'null'], ...extra }), date = { pattern: '^\\d{4}-\\d{2}-\\d{2}$' };
const strings = (description: string) => ({ type: 'array', items: { type: 'string' }, description });
const schemaOf = (properties: Record<string, object>) => ({ type: 'object', properties, required: Object.keys(properties), additionalProperties: false });
const ordered = <R>(props: object, r: Obj) => Object.fromEntries(Object.keys(props).map((k) => [k, r[k]])) as R; // schema's key order

const languageProps = {
  id: { type: 'string', description: 'Language subtag or grandfathered/redundant tag as registered ("de", "zh-Hant"); other types prefixed: "script:Latn", "region:DE"' },
  type: { type: 'string', enum: [...TYPES] },
  subtag: nullable('string', { description: 'Registered subtag; null for grandfathered and redundant tags' }),
  tag: nullable('string', { description: 'Registered tag of grandfathered and redundant entries, else null' }),
  descriptions: strings('Registry descriptions (English)'),
  added: { type: 'string', ...date }, deprecated: nullable('string', { ...date, description: 'Date deprecated, or null' }), preferred_value: nullable('string'),
  macrolanguage: nullable('string', { description: 'Encompassing macrolanguage subtag' }),
  suppress_script: nullable('string', { description: 'Script subtag that should not be added to tags of this language' }),
  scope: { type: ['string', 'null'], enum: [...SCOPES, null] },
  prefix: strings('Registry Prefix fields (extlangs, variants)'), comments: strings('Registry Comments fields'),
  scripts: strings('Languages only: CLDR primary scripts, then the registry Suppress-Script if not among them'),
  family: nullable('string', { description: 'Languages only: the CLDR language group listing this code (e.g. "gmw"); null when none, or when CLDR lists it in several' }),
  families: strings('Languages only: every CLDR language group above this code, nearest first (de: gmw, gem, ine)'),
  countries: strings('Languages only: ISO 3166-1 alpha-2 codes of countries where CLDR territoryInfo records the language'),
  official_in: strings('Languages only: the subset where CLDR marks it official or de facto official (not regional)'),
  name: { type: 'string', description: 'CLDR English name where CLDR has one, else the first registry description' },
  native_name: nullable('string', { description: 'Languages only: the name in its own CLDR locale ("Deutsch"), where CLDR has the locale' }),
  iso639_codes: strings('Languages only: ISO 639-2/T, 639-3 and 639-2/B three-letter codes of the language (CLDR languageAlias: eng; deu, ger)'),
};
export interface LanguageRecord {
  id: string; type: Type; subtag: string | null; tag: string | null; descriptions: string[]; added: string; deprecated: string | null;
  preferred_value: string | null; macrolanguage: string | null; suppress_script: string | null; scope: string | null; prefix: string[];
  comments: string[]; scripts: string[]; family: string | null; families: string[]; countries: string[]; official_in: string[]; name: string;
  native_name: string | null; iso639_codes: string[];
}

export function normaliseLanguages(raw: Obj): LanguageRecord[] {
  const rows = registry(raw.registry, raw.registryMeta);
  const cldrScripts = languageScripts(raw.languageData, rows), groups = languageGroups(raw.languageGroups, rows);
  const where = territoryLanguages(raw.territoryInfo, rows).byLanguage;
  const langNames = enNames(raw.enLanguages, 'languages'), scriptNames = enNames(raw.enScripts, 'scripts');
  const alpha3 = iso639Codes(raw.aliases, new Set(rows.filter((r) => r.Type === 'language').map((r) => r.Subtag!))), native = nativeNames(raw.native);
  return rows.map((r) => {
    const code = (r.Subtag ?? r.Tag)!, lang = r.Type === 'language';
    const parents = lang ? groups.parents.get(code) ?? [] : [];
    const cldrName = r.Type === 'script' ? scriptNames.get(`${code}-alt-stand-alone`) ?? scriptNames.get(code)
      : ['language', 'extlang', 'grandfathered', 'redundant'].includes(r.Type) ? langNames.get(code) : undefined;
    const suppress = r['Suppress-Script'];
    return ordered<LanguageRecord>(languageProps, {
      id: lang || !r.Subtag ? code : `${r.Type}:${code}`, type: r.Type, subtag: r.Subtag ?? null, tag: r.Tag ?? null,
      descriptions: r.Description, added: r.Added, deprecated: r.Deprecated ?? null, preferred_value: r['Preferred-Value'] ?? null,
      macrolanguage: r.Macrolanguage ?? null, suppress_script: suppress ?? null, scope: r.Scope ?? null, prefix: r.Prefix ?? [], comments: r.Comments ?? [],
      scripts: lang ? [...new Set([...(cldrScripts.get(code)?.primary ?? []), ...(suppress ? [suppress] : [])])] : [],
      family: parents.length === 1 ? parents[0] : null, families: lang ? groups.ancestors(code) : [],
      countries: lang ? sorted(where.get(code)?.countries ?? []) : [], official_in: lang ? sorted(where.get(code)?.official ?? []) : [],
      name: cldrName ?? r.Description[0], native_name: lang ? native.get(code) ?? null : null, iso639_codes: lang ? alpha3.get(code) ?? [] : [],
    });
  });
}

const scriptProps = {
  id: { type: 'string', description: '<language>:<Script>, e.g. "de:Latn"' },
  language: { type: 'string', description: 'Language subtag (a record of languages)' },
  script: { type: 'string', description: 'ISO 15924 script subtag (resolves in languages as script:<Script>)' },
  status: { type: ['string', 'null'], enum: ['primary', 'secondary', null], description: 'CLDR languageData status; null when only the registry names the pair' },
  suppress_script: { type: 'boolean', description: "The registry's Suppress-Script for the language is this script" },
  sources: { type: 'array', items: { type: 'string', enum: [SOURCE_CLDR, SOURCE_IANA] }, minItems: 1 },
};
export type ScriptRecord = { id: string; language: string; script: string; status: 'primary' | 'secondary' | null; suppress_script: boolean; sources: string[] };

/** One record per (language, script) pair, naming every source that states it (129 of 134 Suppress-Scripts agree with CLDR). */
export function normaliseScripts(raw: Obj): ScriptRecord[] {
  const rows = registry(raw.registry, raw.registryMeta), pairs = new Map<string, ScriptRecord>();
  const pair = (language: string, script: string) => pairs.get(`${language}:${script}`)
    ?? pairs.set(`${language}:${script}`, { id: `${language}:${script}`, language, script, status: null, suppress_script: false, sources: [] }).get(`${language}:${script}`)!;
  for (const [lang, { primary, secondary }] of languageScripts(raw.languageData, rows))
    for (const [status, list] of [['primary', primary], ['secondary', secondary]] as const) for (const s of list) Object.assign(pair(lang, s), { status, sources: [SOURCE_CLDR] });
  for (const r of rows) if (r['Suppress-Script']) Object.assign(pair(r.Subtag!, r['Suppress-Script']), { suppress_script: true }).sources.push(SOURCE_IANA);
  return [...pairs.values()].map((r) => ordered<ScriptRecord>(scriptProps, r));
}

const familyProps = {
  id: { type: 'string', description: 'ISO 639 code of the group (mostly ISO 639-5 collections, e.g. "gem")' },
  name: nullable('string', { description: 'CLDR English name, else the first registry description' }),
  scope: { type: ['string', 'null'], enum: [...SCOPES, null], description: 'Registry scope of the code: collection, or macrolanguage (cr, sw) / null (ngb) where CLDR groups under a language' },
  parent: nullable('string', { description: 'Enclosing group; null for top-level groups' }),
  members: strings('Member codes as listed by CLDR (languages and subgroups)'),
  member_count: { type: 'integer', minimum: 1 },
};
export type FamilyRecord = { id: string; name: string | null; scope: string | null; parent: string | null; members: string[]; member_count: number };

export function normaliseFamilies(raw: Obj): FamilyRecord[] {
  const rows = registry(raw.registry, raw.registryMeta), names = enNames(raw.enLanguages, 'languages');
  const byCode = new Map(rows.filter((r) => r.Type === 'language').map((r) => [r.Subtag!, r]));
  const { members, parents } = languageGroups(raw.languageGroups, rows);
  return [...members].map(([id, list]) => ordered<FamilyRecord>(familyProps, {
    id, name: names.get(id) ?? byCode.get(id)?.Description[0] ?? null, scope: byCode.get(id)?.Scope ?? null,
    parent: parents.get(id)?.[0] ?? null, members: list, member_count: list.length,
  }));
}

const IANA: Provenance = {
  name: `IANA Language Subtag Registry, File-Date ${EDITION} (via language-subtag-registry 0.4.2)`, url: 'https://www.iana.org/assignments/language-subtag-registry',
  licence: { spdx: 'CC0-1.0', name: 'Creative Commons Zero v1.0 Universal', url: 'https://creativecommons.org/publicdomain/zero/1.0/legalcode' },
  attribution: 'IANA Language Subtag Registry (BCP 47); JSON conversion by Matthew Caruana Galizia and contributors (https://github.com/mattcg/language-subtag-registry)',
};
const cldr = (files: string): Provenance => ({
  name: `Unicode CLDR ${CLDR} via ${files}`, url: 'https://github.com/unicode-org/cldr-json', attribution: 'Unicode CLDR, © Unicode, Inc.',
  licence: { spdx: 'Unicode-3.0', name: 'Unicode License v3', url: 'https://www.unicode.org/license.txt' },
});
const reg = (file: string) => ({ kind: 'npm-file', package: 'language-subtag-registry', file: `data/json/${file}`, format: 'json' }) as const;
const core = (file: string) => ({ kind: 'npm-file', package: 'cldr-core', file: `supplemental/${file}`, format: 'json' }) as const;
const en = (file: string) => ({ kind: 'npm-file', package: 'cldr-localenames-full', file: `main/en/${file}`, format: 'json' }) as const;
const REGISTRY = { registry: reg('registry.json'), registryMeta: reg('meta.json') };
const ci = (param: string, description: string) => ({ param, field: param, description, caseInsensitive: true });

const languages = defineSource<LanguageRecord>({
  id: 'languages', title: 'Languages and BCP 47 subtags', contractVersion: '0.2.0',
  description: 'Every entry of the IANA Language Subtag Registry (languages, extlangs, scripts, regions, variants, grandfathered and redundant tags), with CLDR scripts, language group and countries for languages.',
  provenance: [IANA, cldr('cldr-core 48.2.0 (supplemental languageData, languageGroups, territoryInfo) and cldr-localenames-full 48.2.0 (main/en languages, scripts)')],
  inputs: { ...REGISTRY, languageData: core('languageData.json'), languageGroups: core('languageGroups.json'), territoryInfo: core('territoryInfo.json'),
    enLanguages: en('languages.json'), enScripts: en('scripts.json'), aliases: core('aliases.json'), native: NATIVE_INPUT, countryCodes: COUNTRY_CODES },
  schema: schemaOf(languageProps),
  search: {
    fields: ['subtag', 'tag', 'name', 'native_name', 'descriptions', 'iso639_codes'], boost: { subtag: 5, tag: 5, iso639_codes: 4, name: 3, native_name: 3, descriptions: 2 },
    names: [{ field: 'native_name' }, { field: 'iso639_codes' }],
  },
  filters: [ci('type', 'Registry type: language, extlang, script, region, variant, grandfathered, redundant'),
    ci('scope', 'macrolanguage, collection, special or private-use'), ci('macrolanguage', 'Encompassing macrolanguage, e.g. zh'),
    ci('family', 'Nearest CLDR language group, e.g. gmw'), ci('families', 'Any CLDR language group above the language, e.g. gem for all Germanic languages'),
    ci('scripts', 'Script subtag, e.g. Cyrl'), countryFilter('countries', 'countries', 'ISO 3166-1 alpha-2 country code, e.g. CH.'),
    countryFilter('official_in', 'official_in', 'Country where the language is official, e.g. CH.')],
  links: [...['countries', 'official_in'].map((field) => ({ field, dataset: 'geography/countries' })),
    ...['family', 'families'].map((field) => ({ field, dataset: 'languages/families' })),
    ...['macrolanguage', 'suppress_script', 'scripts'].map((field) => ({ field, dataset: 'languages' }))],
  pathParam: 'code', pathParamDescription: 'Language subtag or registered tag (de, zh-Hant, i-klingon), a prefixed id (region:DE, script:Latn), or a bare subtag of another type (Latn, 419), case-insensitively; a language wins over a region of the same letters.',
  // a language also answers to its three-letter codes (eng, ger) and its English and native names (german, Deutsch);
  // not to a name shaped like a region or script subtag ("Beng" is a language and the script Beng). Shared ones are dropped.
  aliases: (r) => [...new Set([r.subtag ?? r.tag, ...r.iso639_codes, ...(r.type === 'language' ? [r.name, r.native_name] : [])
    .filter((n) => n && !/^([a-z]{2}|[a-z]{4}|\d{3})$/i.test(n))])].filter((a): a is string => !!a && a !== r.id),
  // Registry order: by type, then code.
  order: (a, b) => TYPES.indexOf(a.type) - TYPES.indexOf(b.type),
  normalise: normaliseLanguages,
});

const scripts = defineSource<ScriptRecord>({
  maxLimit: SMALL_DATASET_LIMIT, // small records: the whole dataset in one call (issue 13)
  id: 'languages/scripts', title: 'Language scripts', contractVersion: '0.1.0',
  description: 'Which scripts each language is written in, per CLDR languageData (primary/secondary) and the IANA registry Suppress-Script, with the source of each statement.',
  provenance: [IANA, cldr('cldr-core 48.2.0 (supplemental/languageData.json)')],
  inputs: { ...REGISTRY, languageData: core('languageData.json') },
  schema: schemaOf(scriptProps),
  search: { fields: ['id', 'language', 'script'], boost: { language: 2, script: 2 } },
  filters: [ci('language', 'Language subtag, e.g. sr'), ci('script', 'Script subtag, e.g. Latn'),
    ci('status', 'CLDR status: primary or secondary'), ci('suppress_script', 'true: the registry Suppress-Script')],
  links: [{ field: 'language', dataset: 'languages' }, { field: 'script', dataset: 'languages' }],
  normalise: normaliseScripts,
});

const families = defineSource<FamilyRecord>({
  maxLimit: SMALL_DATASET_LIMIT, // small records: the whole dataset in one call (issue 13)
  id: 'languages/families', title: 'Language families', contractVersion: '0.1.0',
  description: 'Genealogical language groups from CLDR languageGroups, with parent group and member codes.',
  provenance: [IANA, cldr('cldr-core 48.2.0 (supplemental/languageGroups.json) and cldr-localenames-full 48.2.0 (main/en/languages.json)')],
  inputs: { ...REGISTRY, languageGroups: core('languageGroups.json'), enLanguages: en('languages.json') },
  schema: schemaOf(familyProps),
  search: { fields: ['id', 'name'], boost: { id: 3, name: 2 } },
  filters: [ci('parent', 'Enclosing group, e.g. gem')],
  links: [{ field: 'parent', dataset: 'languages/families' }, { field: 'members', dataset: 'languages' }],
  normalise: normaliseFamilies,
});

export default [languages, scripts, families];
