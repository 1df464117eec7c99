/**
 * languages, languages/scripts, languages/families.
 *
 * Fixtures under fixtures/languages/ were cut from the installed packages, in their own
 * formats: 44 whole registry.json rows (de, en, es, gsw, zh, yue, cmn, sr, sh, sw, swc, in,
 * ms, tlh, ine, gem, gmw, cel, sth, mul, ko, und, qaa..qtz; extlangs yue, cmn; 8 scripts;
 * regions DE AT CH TW 419 BU; variant 1901; i-klingon, sgn-BE-FR, zh-Hant, sgn-DE) and
 * meta.json; whole languageData entries; languageGroups cel gem gmw ine mul sw with their
 * member lists cut to codes in the registry slice; territoryInfo AT CH DE IC TW ZZ with
 * languagePopulation cut likewise; a few English names.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import Ajv2020Module from 'ajv/dist/2020.js';
import type { DatasetSource } from '../sources/contract.ts';
import sources, { registry, territoryLanguages, SOURCE_CLDR, SOURCE_IANA, type LanguageRecord, type ScriptRecord, type FamilyRecord } from '../sources/languages/index.ts';
import { generateDataset, orderRecords } from '../pipeline/shards.ts';
import { aliasKey } from '../pipeline/paths.ts';
import { NATIVE_INPUT } from '../sources/languages/names.ts';

const Ajv2020 = ((Ajv2020Module as any).default ?? Ajv2020Module) as unknown as typeof Ajv2020Module.default;
const [languages, scripts, families] = sources as [DatasetSource<LanguageRecord>, DatasetSource<ScriptRecord>, DatasetSource<FamilyRecord>];
const json = (url: URL) => JSON.parse(fs.readFileSync(url, 'utf8'));
const fixture = (f: string) => json(new URL(`./fixtures/languages/${f}`, import.meta.url));
const pkg = (f: string) => json(new URL(`../node_modules/${f}`, import.meta.url));

type Raw = Record<string, unknown>;
const fixtureRaw = (): Raw => ({
  registry: fixture('registry.json'), registryMeta: fixture('meta.json'), languageData: fixture('languageData.json'),
  languageGroups: fixture('languageGroups.json'), territoryInfo: fixture('territoryInfo.json'),
  enLanguages: fixture('languages.json'), enScripts: fixture('scripts.json'), aliases: fixture('aliases.json'),
  native: { 'main/de/languages.json': fixture('native-de-languages.json'), 'main/en/languages.json': fixture('native-en-languages.json') },
  countryCodes: pkg('cldr-core/supplemental/codeMappings.json'),
});
const realRaw = (): Raw => ({
  registry: pkg('language-subtag-registry/data/json/registry.json'), registryMeta: pkg('language-subtag-registry/data/json/meta.json'),
  languageData: pkg('cldr-core/supplemental/languageData.json'), languageGroups: pkg('cldr-core/supplemental/languageGroups.json'),
  territoryInfo: pkg('cldr-core/supplemental/territoryInfo.json'),
  enLanguages: pkg('cldr-localenames-full/main/en/languages.json'), enScripts: pkg('cldr-localenames-full/main/en/scripts.json'),
  aliases: pkg('cldr-core/supplemental/aliases.json'),
  native: Object.fromEntries(NATIVE_INPUT.files.map((f) => [f, pkg(`cldr-localenames-full/${f}`)])),
  countryCodes: pkg('cldr-core/supplemental/codeMappings.json'),
});
/** The 250 ISO 3166-1 alpha-2 codes the geography/countries dataset is built from. */
const CCA2 = new Set<string>(pkg('world-countries/countries.json').map((c: { cca2: string }) => c.cca2));

/** Builds each dataset as the pipeline does and resolves keys like the server (id, then alias, any case). */
function build(raw: Raw) {
  const built = new Map<string, { records: any[]; resolve: (key: string) => string | undefined }>();
  for (const s of sources as DatasetSource<any>[]) {
    const sorted = orderRecords(s, s.normalise(raw));
    const { keys } = generateDataset(s, sorted, [], raw);
    const resolve = (key: string) => { const o = keys.get(key) ?? keys.get(aliasKey(key)); return o === undefined ? undefined : sorted[o].id; };
    built.set(s.id, { records: sorted, resolve });
  }
  return built;
}

/** Every link value of every record, with whether it resolves (countries: against world-countries' cca2). */
function brokenLinks(built: ReturnType<typeof build>) {
  const broken: string[] = [];
  for (const s of sources as DatasetSource<any>[]) {
    for (const link of s.links ?? []) {
      for (const r of built.get(s.id)!.records) {
        for (const v of [r[link.field]].flat().filter((x) => x != null)) {
          const ok = link.dataset === 'geography/countries' ? CCA2.has(v) : built.get(link.dataset)!.resolve(v) !== undefined;
          if (!ok) broken.push(`${s.id} ${r.id} ${link.field}=${v}`);
        }
      }
    }
  }
  return broken;
}

function expectValid(s: DatasetSource<any>, records: any[]) {
  const validate = new Ajv2020({ strict: true, allowUnionTypes: true }).compile(s.schema);
  for (const r of records) {
    expect(validate(r), `${s.id} ${r.id}: ${JSON.stringify(validate.errors)}`).toBe(true);
    expect(Object.keys(r)).toEqual(Object.keys(s.schema.properties));
  }
  expect(new Set(records.map((r) => r.id)).size).toBe(records.length);
}

describe('languages (fixtures)', () => {
  const built = build(fixtureRaw());
  const lang = built.get('languages')!, scr = built.get('languages/scripts')!, fam = built.get('languages/families')!;
  const get = (ds: { records: any[] }, id: string): any => ds.records.find((r) => r.id === id);

  it('keeps every registry row and CLDR pair, valid, deterministic', () => {
    expect(lang.records).toHaveLength(44);
    expect(scr.records).toHaveLength(17);
    expect(fam.records.map((r) => r.id).sort()).toEqual(['cel', 'gem', 'gmw', 'ine', 'sw']); // mul is CLDR's root list, not a family
    for (const s of sources as DatasetSource<any>[]) expectValid(s, built.get(s.id)!.records);
    expect(languages.normalise(fixtureRaw())).toEqual(languages.normalise(fixtureRaw()));
    // registry order: by type, then code
    expect(lang.records.map((r) => r.type)).toEqual([...lang.records.map((r) => r.type)].sort((a, b) =>
      ['language', 'extlang', 'script', 'region', 'variant', 'grandfathered', 'redundant'].indexOf(a) - ['language', 'extlang', 'script', 'region', 'variant', 'grandfathered', 'redundant'].indexOf(b)));
  });

  it('gives type-prefixed ids to non-language subtags and keeps tags as registered', () => {
    expect(lang.records.map((r) => r.id)).toEqual(expect.arrayContaining(['de', 'qaa..qtz', 'extlang:yue', 'script:Latn', 'region:DE', 'region:419',
      'variant:1901', 'i-klingon', 'sgn-BE-FR', 'zh-Hant', 'sgn-DE']));
    expect(get(lang, 'region:DE')).toMatchObject({ type: 'region', subtag: 'DE', tag: null, name: 'Germany', countries: [], family: null });
    expect(get(lang, 'region:BU')).toMatchObject({ deprecated: '1989-12-05', preferred_value: 'MM' });
    expect(get(lang, 'i-klingon')).toMatchObject({ type: 'grandfathered', subtag: null, tag: 'i-klingon', preferred_value: 'tlh', deprecated: '2004-02-24' });
    expect(get(lang, 'extlang:yue')).toMatchObject({ prefix: ['zh'], macrolanguage: 'zh', preferred_value: 'yue', scripts: [], countries: [], name: 'Cantonese' });
  });

  it('resolves ids before aliases, in any case', () => {
    const r = lang.resolve;
    expect([r('de'), r('DE'), r('De')]).toEqual(['de', 'de', 'de']); // German, never the region
    expect(r('region:DE')).toBe('region:DE');
    expect([r('AT'), r('at'), r('419'), r('Latn'), r('LATN'), r('1901')]).toEqual(['region:AT', 'region:AT', 'region:419', 'script:Latn', 'script:Latn', 'variant:1901']);
    expect([r('yue'), r('extlang:yue')]).toEqual(['yue', 'extlang:yue']); // the language owns the bare code
    expect([r('i-klingon'), r('I-KLINGON'), r('zh-hant'), r('SGN-be-fr')]).toEqual(['i-klingon', 'i-klingon', 'zh-Hant', 'sgn-BE-FR']);
    expect(r('Klingon')).toBe('tlh'); // the language's English name (the grandfathered i-klingon has none of its own)
    expect(languages.aliases!(get(lang, 'script:Latn'))).toEqual(['Latn']);
    expect(languages.aliases!(get(lang, 'i-klingon'))).toEqual([]); // its tag is its id
  });

  it('answers to ISO 639-2/3 codes and English and native names (CLDR languageAlias, own locale)', () => {
    const r = lang.resolve;
    expect([r('eng'), r('deu'), r('ger'), r('GER'), r('zho'), r('chi')]).toEqual(['en', 'de', 'de', 'de', 'zh', 'zh']);
    expect([r('german'), r('Deutsch'), r('deutsch'), r('English')]).toEqual(['de', 'de', 'de', 'en']);
    expect(get(lang, 'de')).toMatchObject({ native_name: 'Deutsch', iso639_codes: ['deu', 'ger'] });
    expect(get(lang, 'sh').iso639_codes).toEqual([]); // sh → sr-Latn is a legacy replacement, not a name of sh
    expect(get(lang, 'region:DE')).toMatchObject({ native_name: null, iso639_codes: [] });
    expect(languages.search.fields).toEqual(expect.arrayContaining(['native_name', 'iso639_codes']));
  });

  it('joins CLDR scripts, groups, territories and names onto languages', () => {
    expect(get(lang, 'de')).toMatchObject({ scripts: ['Latn'], family: 'gmw', families: ['gmw', 'gem', 'ine'], countries: ['AT', 'CH', 'DE'], official_in: ['AT', 'CH', 'DE'], name: 'German' });
    expect(get(lang, 'gsw')).toMatchObject({ countries: ['CH', 'DE'], official_in: ['CH'], name: 'Swiss German' }); // de facto official counts
    expect(get(lang, 'es')).toMatchObject({ countries: ['DE'], official_in: [] }); // IC (Canary Islands) is not a country
    expect(get(lang, 'zh')).toMatchObject({ scripts: ['Hans'], countries: ['TW'] }); // zh_Hant counts for zh; secondaries not in scripts
    expect(get(lang, 'sr').scripts).toEqual(['Cyrl', 'Latn']);
    expect(get(lang, 'in')).toMatchObject({ scripts: ['Latn'], deprecated: '1989-01-01', preferred_value: 'id' }); // registry Suppress-Script only
    expect(get(lang, 'sth')).toMatchObject({ family: null, families: ['cel', 'gmw', 'ine', 'gem'] }); // in two groups
    expect(get(lang, 'ine')).toMatchObject({ family: null, families: [], scope: 'collection' }); // only under mul
    expect(get(lang, 'sw')).toMatchObject({ name: 'Swahili', descriptions: ['Swahili (macrolanguage)'], scope: 'macrolanguage' });
    expect(get(lang, 'script:Hans').name).toBe('Simplified Han'); // stand-alone form
    expect(get(lang, 'zh-Hant').name).toBe('Traditional Chinese');
    expect(get(lang, 'cmn').name).toBe('Mandarin Chinese'); // no CLDR name in the slice: first description
    expect(territoryLanguages(fixtureRaw().territoryInfo, registry(fixtureRaw().registry, fixtureRaw().registryMeta)).dropped).toEqual(['IC:es']);
  });

  it('states each language-script pair once, with every source', () => {
    expect(get(scr, 'de:Latn')).toEqual({ id: 'de:Latn', language: 'de', script: 'Latn', status: 'primary', suppress_script: true, sources: [SOURCE_CLDR, SOURCE_IANA] });
    expect(get(scr, 'de:Runr')).toMatchObject({ status: 'secondary', suppress_script: false, sources: [SOURCE_CLDR] });
    expect(get(scr, 'in:Latn')).toMatchObject({ status: null, suppress_script: true, sources: [SOURCE_IANA] });
    expect(scr.records.filter((r) => r.language === 'zh').map((r) => `${r.script}:${r.status}`).sort())
      .toEqual(['Bopo:secondary', 'Hans:primary', 'Hant:secondary', 'Latn:secondary', 'Phag:secondary']);
    expect(scr.resolve('DE:LATN')).toBe('de:Latn');
  });

  it('builds families with parents, names and members', () => {
    expect(get(fam, 'gem')).toEqual({ id: 'gem', name: 'Germanic languages', scope: 'collection', parent: 'ine', members: ['gmw'], member_count: 1 });
    expect(get(fam, 'ine')).toMatchObject({ parent: null, members: ['cel', 'gem'] });
    expect(get(fam, 'sw')).toMatchObject({ name: 'Swahili', scope: 'macrolanguage', parent: null, members: ['swc'] });
  });

  it('links resolve', () => {
    expect(brokenLinks(built)).toEqual([]);
    expect(languages.links).toEqual(expect.arrayContaining([{ field: 'countries', dataset: 'geography/countries' }, { field: 'family', dataset: 'languages/families' }]));
  });

  it('throws naming the row and field on unknown upstream shapes', () => {
    const bad = (patch: (raw: any) => void) => { const raw: any = fixtureRaw(); patch(raw); return () => languages.normalise(raw); };
    expect(bad((r) => { r.registry[0].Tags = 'x'; })).toThrow(/registry row 0 \(language de\) field Tags/);
    expect(bad((r) => { r.registry[1].Type = 'dialect'; })).toThrow(/registry row 1 .* field Type/);
    expect(bad((r) => { r.registry[2].Description = 'Spanish'; })).toThrow(/registry row 2 \(language es\) field Description/);
    expect(bad((r) => { r.registry[0].Added = '2005'; })).toThrow(/field Added/);
    expect(bad((r) => { r.registry.find((x: any) => x.Tag === 'i-klingon').Subtag = 'x'; })).toThrow(/grandfathered i-klingon\) field Tag/);
    expect(bad((r) => { r.registryMeta['File-Date'] = '2026-01-01'; })).toThrow(/meta.json field File-Date/);
    expect(bad((r) => { r.languageData.supplemental.languageData.de._territories = ['DE']; })).toThrow(/languageData de field _scripts/);
    expect(bad((r) => { r.languageData.supplemental.languageData.de._scripts = ['Zzzz']; })).toThrow(/languageData de field _scripts: unexpected "Zzzz"/);
    expect(bad((r) => { r.languageData.supplemental.version._cldrVersion = '49'; })).toThrow(/languageData.json field version._cldrVersion/);
    expect(bad((r) => { r.languageGroups.supplemental.languageGroups.gem = 'gmw xxx'; })).toThrow(/languageGroups gem field \(member\)/);
    expect(bad((r) => { r.territoryInfo.supplemental.territoryInfo.DE.languagePopulation.de._officialStatus = 'national'; })).toThrow(/territoryInfo DE field languagePopulation.de._officialStatus/);
    expect(bad((r) => { r.territoryInfo.supplemental.territoryInfo.DE.languagePopulation.en_GB = {}; })).toThrow(/territoryInfo DE field languagePopulation.en_GB/);
    expect(bad((r) => { r.enScripts.main.en.localeDisplayNames.scripts.Latn = 3; })).toThrow(/scripts.json Latn field \(name\)/);
  });
});

describe('languages (real installed packages)', () => {
  const raw = realRaw();
  const built = build(raw);
  const lang = built.get('languages')!, scr = built.get('languages/scripts')!, fam = built.get('languages/families')!;
  const get = (id: string): LanguageRecord => lang.records.find((r) => r.id === id);

  it('has every registry entry and CLDR fact, all valid', () => {
    expect(lang.records).toHaveLength(9281);
    const types: Record<string, number> = {};
    for (const r of lang.records) types[r.type] = (types[r.type] ?? 0) + 1;
    expect(types).toEqual({ language: 8268, extlang: 256, script: 225, region: 305, variant: 134, grandfathered: 26, redundant: 67 });
    expect(scr.records).toHaveLength(985); // 980 CLDR pairs + 5 Suppress-Scripts CLDR lacks (in, iw, mo, tl, zbl)
    expect(scr.records.filter((r) => r.sources.length === 2)).toHaveLength(129);
    expect(fam.records).toHaveLength(113); // 114 languageGroups keys less mul
    for (const s of sources as DatasetSource<any>[]) expectValid(s, built.get(s.id)!.records);
  });

  it('has the expected facts for de and i-klingon', () => {
    const de = get('de');
    expect(de).toMatchObject({ scripts: ['Latn'], family: 'gmw', name: 'German' });
    expect(de.families).toEqual(['gmw', 'gem', 'ine']);
    expect(de.countries).toEqual(expect.arrayContaining(['DE', 'AT', 'CH']));
    expect(de.official_in).toEqual(['AT', 'BE', 'CH', 'DE', 'LI', 'LU']);
    expect(get('i-klingon')).toMatchObject({ type: 'grandfathered', preferred_value: 'tlh' });
    expect(lang.resolve('I-Klingon')).toBe('i-klingon');
    expect([lang.resolve('DE'), lang.resolve('Latn'), lang.resolve('419')]).toEqual(['de', 'script:Latn', 'region:419']);
    expect(lang.records.filter((r) => r.type === 'language' && r.family === null && r.families.length).map((r) => r.id).sort())
      .toEqual(['bha', 'emx', 'iba', 'kjh', 'mhi', 'pld', 'rmq', 'sth', 'taj']);
  });

  it('answers to eng/deu/ger, german and Deutsch on the real data, and names ~300 languages natively', () => {
    const r = lang.resolve;
    expect([r('eng'), r('deu'), r('ger'), r('fra'), r('fre'), r('german'), r('Deutsch'), r('français'), r('日本語')]).toEqual(['en', 'de', 'de', 'fr', 'fr', 'de', 'de', 'fr', 'ja']);
    expect(lang.records.filter((x) => x.native_name).length).toBeGreaterThan(280);
    expect(lang.records.filter((x) => x.iso639_codes.length).length).toBeGreaterThan(150);
  });

  it('drops only territories that are not countries, and every link resolves', () => {
    const { dropped } = territoryLanguages(raw.territoryInfo, registry(raw.registry, raw.registryMeta));
    expect(dropped).toEqual(['AC:en', 'CP:und', 'CQ:en', 'DG:en', 'EA:es', 'IC:es', 'TA:en']);
    expect(brokenLinks(built)).toEqual([]);
    const all = new Set(lang.records.flatMap((r) => r.countries));
    expect(all.size).toBeGreaterThan(240);
    expect([...all].every((c) => CCA2.has(c))).toBe(true);
  });
});
