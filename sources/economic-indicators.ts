/**
 * economic-indicators: the World Bank's World Development Indicators series metadata,
 * the 2024/25 edition (WDISeries.csv, a member of the bulk WDI_CSV.zip; the mirror
 * holds it at the zip's URL without ".zip" plus the member name). One record per
 * series: its definitions, unit, periodicity, aggregation, source and its licence.
 *
 * Licences differ per series: the file's "License Type" column says "CC BY-4.0" for
 * 1,466 series, names third-party terms for 28 (IEA 19, SIPRI 4, Protected Planet 3,
 * ITU 2) and is empty for 2. Every record carries its own licence fields, and the
 * third-party holders are listed in the dataset's provenance (so meta.sources names
 * them on every response). An empty licence is served as "not stated", never assumed
 * to be CC BY 4.0.
 *
 * The series' data values (WDIData.csv) are not part of this dataset: this is the
 * catalogue of indicator definitions.
 */
import { defineSource } from './contract.ts';
import { fail, readCsv } from './readers/csv.ts';

export interface IndicatorRecord {
  id: string; name: string; topic: string | null; topic_group: string | null;
  short_definition: string | null; long_definition: string | null; unit: string | null;
  periodicity: string | null; base_period: string | null; aggregation_method: string | null;
  source: string | null; statistical_concept: string | null; development_relevance: string | null;
  limitations: string | null; other_notes: string | null; notes_from_source: string | null; general_comments: string | null;
  related_source_links: string | null; other_web_links: string | null; related_indicators: string | null;
  licence: string; licence_url: string | null; licence_type: string | null; third_party_terms: boolean;
  prominence: number; breakdown_of: string | null;
}

export const WDI_FILE = 'WDISeries.csv';
export const HEADER = ['Series Code', 'Topic', 'Indicator Name', 'Short definition', 'Long definition', 'Unit of measure',
  'Periodicity', 'Base Period', 'Other notes', 'Aggregation method', 'Limitations and exceptions', 'Notes from original source',
  'General comments', 'Source', 'Statistical concept and methodology', 'Development relevance', 'Related source links',
  'Other web links', 'Related indicators', 'License Type'] as const;

const CC_BY = { spdx: 'CC-BY-4.0', name: 'Creative Commons Attribution 4.0', url: 'https://creativecommons.org/licenses/by/4.0/' };

/**
 * The third-party terms the file names, by the holder's name in its sentence "Use and
 * distribution of these data are subject to <holder> terms and conditions." A holder
 * not listed here fails the build: its terms must be looked at before serving. The URL
 * is the holder's own site, where its terms are published (the file gives no terms URL).
 */
export const THIRD_PARTY: Record<string, { url: string; attribution: string }> = {
  IEA: { url: 'https://www.iea.org/', attribution: 'IEA (International Energy Agency) statistics, © OECD/IEA' },
  'Stockholm International Peace Research Institute (SIPRI)': { url: 'https://www.sipri.org/', attribution: 'Stockholm International Peace Research Institute (SIPRI)' },
  'Protected Planet': { url: 'https://www.protectedplanet.net/', attribution: 'UNEP-WCMC and IUCN, Protected Planet / World Database on Protected Areas' },
  ITU: { url: 'https://www.itu.int/', attribution: 'International Telecommunication Union (ITU), World Telecommunication/ICT Indicators Database' },
};
const TERMS = /^Use and distribution of these data are subject to (.+) terms and conditions\.$/;

function licenceOf(type: string, where: string): Pick<IndicatorRecord, 'licence' | 'licence_url' | 'licence_type' | 'third_party_terms'> {
  if (type === 'CC BY-4.0') return { licence: 'CC BY 4.0', licence_url: CC_BY.url, licence_type: type, third_party_terms: false };
  if (type === '') return { licence: 'not stated', licence_url: null, licence_type: null, third_party_terms: true };
  const holder = TERMS.exec(type)?.[1];
  const terms = holder === undefined ? undefined : THIRD_PARTY[holder];
  if (!terms) return fail(where, 'License Type', type);
  return { licence: `${holder} terms and conditions`, licence_url: terms.url, licence_type: type, third_party_terms: true };
}

/**
 * The series a series breaks down by sex (issue 36, item 8): the WDI codes a series for
 * women or men with a FE or MA segment (SL.UEM.TOTL.FE.NE.ZS, SP.DYN.LE00.MA.IN), and the
 * same code without it is the series for both (SL.UEM.TOTL.NE.ZS, SP.DYN.LE00.IN) when the
 * file has it: 209 of the 280 such series. Null for the others (a share such as "Primary
 * education, pupils (% female)" has no total beside it).
 */
export function breakdownOf(id: string, ids: Set<string>): string | null {
  const parts = id.split('.');
  if (!parts.some((p) => p === 'FE' || p === 'MA')) return null;
  const total = parts.filter((p) => p !== 'FE' && p !== 'MA').join('.');
  return ids.has(total) ? total : null;
}

export function normaliseIndicators(text: unknown): IndicatorRecord[] {
  const records = readIndicators(text);
  const ids = new Set(records.map((r) => r.id));
  return records.map((r) => ({ ...r, breakdown_of: breakdownOf(r.id, ids) }));
}

function readIndicators(text: unknown): Omit<IndicatorRecord, 'breakdown_of'>[] {
  const seen = new Set<string>();
  return readCsv(text, { file: WDI_FILE, header: HEADER }).map(({ values: v, where }) => {
    const opt = (h: (typeof HEADER)[number]) => (v[h].trim() === '' ? null : v[h].trim());
    const id = v['Series Code'];
    if (!/^[A-Za-z0-9_.]+$/.test(id)) fail(where, 'Series Code', id);
    if (seen.has(id.toLowerCase())) fail(where, 'Series Code (duplicate)', id);
    seen.add(id.toLowerCase());
    const name = opt('Indicator Name') ?? fail(where, 'Indicator Name', v['Indicator Name']);
    const topic = opt('Topic');
    return {
      id, name, topic, topic_group: topic === null ? null : topic.split(':')[0].trim(),
      short_definition: opt('Short definition'), long_definition: opt('Long definition'), unit: opt('Unit of measure'),
      periodicity: opt('Periodicity'), base_period: opt('Base Period'), aggregation_method: opt('Aggregation method'),
      source: opt('Source'), statistical_concept: opt('Statistical concept and methodology'), development_relevance: opt('Development relevance'),
      limitations: opt('Limitations and exceptions'), other_notes: opt('Other notes'), notes_from_source: opt('Notes from original source'),
      general_comments: opt('General comments'), related_source_links: opt('Related source links'), other_web_links: opt('Other web links'),
      related_indicators: opt('Related indicators'),
      ...licenceOf(v['License Type'].trim(), where),
      prominence: prominenceOf(topic),
    };
  });
}

/**
 * Search weight from the WDI's own classification (issue 26, item 2): its topics name the
 * headline national-accounts series "Aggregate indicators" (GDP, GNI, per capita, savings:
 * 33 of 1,496 series), and the "US$ at current prices" family is the one the World Bank
 * compares countries in. `GDP` then finds GDP (current US$) before the discrepancy series.
 */
function prominenceOf(topic: string | null): number {
  if (!topic) return 0;
  return (/: Aggregate indicators$/.test(topic) ? 1 : 0) + (/: US\$ at current prices(:|$)/.test(topic) ? 1 : 0);
}

const text = (description: string) => ({ type: ['string', 'null'], description });
const properties = {
  id: { type: 'string', pattern: '^[A-Za-z0-9_.]+$', description: 'WDI series code, e.g. NY.GDP.MKTP.CD (case-insensitive in the path)' },
  name: { type: 'string', description: 'Indicator name' },
  topic: text('Topic as given, e.g. "Economic Policy & Debt: National accounts: US$ at current prices: Aggregate indicators"'),
  topic_group: text('The topic\'s first part, e.g. "Economic Policy & Debt"'),
  short_definition: text('Short definition'),
  long_definition: text('Long definition'),
  unit: text('Unit of measure (given for few series; most state it in the name)'),
  periodicity: text('Periodicity, e.g. Annual'),
  base_period: text('Base period of constant-price series'),
  aggregation_method: text('How regional and income-group aggregates are computed'),
  source: text('Original source of the data'),
  statistical_concept: text('Statistical concept and methodology'),
  development_relevance: text('Development relevance'),
  limitations: text('Limitations and exceptions'),
  other_notes: text('Other notes'),
  notes_from_source: text('Notes from the original source'),
  general_comments: text('General comments'),
  related_source_links: text('Related source links, as given'),
  other_web_links: text('Other web links, as given'),
  related_indicators: text('Related indicators, as given'),
  licence: { type: 'string', description: 'This series\' licence: "CC BY 4.0", "<holder> terms and conditions" for third-party data, or "not stated" where the file gives none' },
  licence_url: text('The CC BY 4.0 deed, or the third-party publisher\'s site (whose terms apply); null when no licence is stated'),
  licence_type: text('The file\'s "License Type" cell verbatim; null when empty'),
  third_party_terms: { type: 'boolean', description: 'True when the series is not under CC BY 4.0 (third-party terms, or no licence stated): check its terms before reuse' },
  prominence: { type: 'integer', minimum: 0, maximum: 2, description: 'Search weight from the WDI topic: 1 for its "Aggregate indicators" (GDP, GNI…), 1 more for the "US$ at current prices" family; results are weighted by 1 + prominence' },
  breakdown_of: text('The series for both sexes that this series for women or men breaks down (its code without the FE or MA segment), when the file has it; such series weigh half in search, so a plain name finds the total first'),
};

export default defineSource<IndicatorRecord>({
  id: 'economic-indicators',
  title: 'Economic indicators',
  description: 'Definitions of the World Bank\'s World Development Indicators series: name, topic, definitions, unit, '
    + 'periodicity, aggregation method, source and each series\' own licence.',
  coverage: 'All 1,496 series of the WDI series metadata file (WDISeries.csv) of the 2024/25 edition (a release between mid-2024 '
    + 'and March 2025; the exact release date is not recorded in the copy). Definitions only: no data values, no country metadata. '
    + '1,466 series are CC BY 4.0; 28 carry third-party terms (IEA 19, SIPRI 4, Protected Planet 3, ITU 2) and 2 state no licence '
    + '(third_party_terms: true on all 30).',
  // 0.2.0: prominence (search weight from the WDI topic). 0.3.0: breakdown_of.
  contractVersion: '0.3.0',
  provenance: [
    {
      name: 'World Bank, World Development Indicators (WDI_CSV, WDISeries.csv), 2024/25 edition',
      url: 'https://datacatalog.worldbank.org/search/dataset/0037712/World-Development-Indicators',
      licence: { ...CC_BY, name: 'Creative Commons Attribution 4.0 (series whose licence field says CC BY-4.0)' },
      attribution: 'World Bank, World Development Indicators. Series with third_party_terms: true are not CC BY 4.0: see each record\'s licence.',
    },
    ...Object.entries(THIRD_PARTY).map(([holder, t]) => ({
      name: `${holder} data in WDI (series whose licence names ${holder} terms)`,
      url: t.url,
      licence: { spdx: 'LicenseRef-third-party-terms', name: `${holder} terms and conditions`, url: t.url },
      attribution: t.attribution,
    })),
  ],
  inputs: {
    series: {
      kind: 'url', url: 'https://databank.worldbank.org/data/download/WDI_CSV/WDISeries.csv',
      sha256: '89139b34d8c2a0a08077cb12b8ecc835b000c0fe448601bc9a3ddcca497ee143', format: 'text',
    },
  },
  schema: { type: 'object', properties, required: Object.keys(properties), additionalProperties: false },
  search: { fields: ['id', 'name', 'topic', 'short_definition', 'long_definition'], boost: { name: 3, id: 2 }, rank: 'prominence', rankScale: 'linear', breakdown: 'breakdown_of' },
  links: [{ field: 'breakdown_of', dataset: 'economic-indicators' }],
  filters: [
    { param: 'topic_group', field: 'topic_group', description: 'Topic group, e.g. Health, Education, "Economic Policy & Debt"', caseInsensitive: true },
    { param: 'topic', field: 'topic', description: 'Full topic as given', caseInsensitive: true },
    { param: 'periodicity', field: 'periodicity', description: 'Annual, Biennial, Triennial …', caseInsensitive: true },
    { param: 'licence', field: 'licence', description: 'e.g. "CC BY 4.0", "IEA terms and conditions", "not stated"', caseInsensitive: true },
    { param: 'third_party_terms', field: 'third_party_terms', description: 'true: series not under CC BY 4.0' },
  ],
  pathParam: 'code',
  pathParamDescription: 'WDI series code, e.g. NY.GDP.MKTP.CD (any case).',
  normalise: (raw) => normaliseIndicators(raw.series),
});
