/**
 * procurement — federal contract awards from USAspending.gov (U.S. Department of the
 * Treasury, Bureau of the Fiscal Service), from up to three upstream forms, each record
 * saying which (`form`):
 *
 * - `award-search`: the live award search, the 5,000 largest contracts with activity in the
 *   90 days before the fetch (award-search.ts; a machine with network);
 * - `award-summary`: 163 FY2008 contract award summaries USAspending publishes in its own
 *   repository (samples.ts);
 * - `legacy-transaction`: 126 Department of the Treasury contract transactions of September
 *   2016 in the legacy download format, from the same repository (samples.ts).
 *
 * Every input is optional; the dataset serves whichever could be had. An award both the
 * live search and the 2008 file hold keeps the live copy (it is current). Every record
 * links to its award's page on USAspending (`url`, by `usaspending_award_id`).
 *
 * Filters people use: agency, sub-agency, recipient, award type, NAICS and PSC (a code or
 * its leading digits: naics=5413 is every engineering-services code, psc=70 every ADP
 * equipment code), amount and the period-of-performance start date, and the form.
 */
import { dateBounds, defineSource, type RawInputs } from '../contract.ts';
import { AWARDS_URL, LAST_UPDATED_URL, awardPages, lastUpdated, normaliseAwards } from './award-search.ts';
import { FORMS, type AwardRecord } from './record.ts';
import { AWARDS_2008_URL, TREASURY_2016_URL, readAwardSummaries, readLegacyTransactions, samplesUpdated } from './samples.ts';

export type { AwardRecord } from './record.ts';

export function normaliseProcurement(raw: RawInputs): AwardRecord[] {
  const forms = [
    raw.awards === undefined ? [] : normaliseAwards(raw.awards),
    raw.awards_2008 === undefined ? [] : readAwardSummaries(raw.awards_2008),
    raw.treasury_2016 === undefined ? [] : readLegacyTransactions(raw.treasury_2016),
  ];
  if (Object.keys(raw).every((k) => raw[k] === undefined || k === 'last_updated')) {
    throw new Error('procurement: none of the inputs awards, awards_2008, treasury_2016 is present');
  }
  // Forms in order of precedence: a live award also in the 2008 file is served as it is now.
  const byId = new Map<string, AwardRecord>();
  for (const list of forms) for (const r of list) if (!byId.has(r.id)) byId.set(r.id, r);
  return [...byId.values()];
}

/** USAspending's own date: awards/last_updated with the live search, else the newest row change in the files. */
export function procurementUpdated(raw: RawInputs): string | null {
  return lastUpdated(raw.last_updated) ?? samplesUpdated(raw.awards_2008, raw.treasury_2016);
}

/** A code's leading parts, so a filter on a code also takes its group (NAICS 2–5 digits, PSC 1–3 characters). */
const prefixes = (from: number) => () => (code: string) => Array.from({ length: Math.max(0, code.length - from) }, (_, i) => code.slice(0, from + i));

const nullable = (description: string, extra: Record<string, unknown> = {}) => ({ type: ['string', 'null'], description, ...extra });
const DAY = '^\\d{4}-\\d{2}-\\d{2}$';
const properties = {
  id: { type: 'string', description: 'Awards: USAspending generated award id (CONT_AWD_…); legacy transactions: the download\'s unique_transaction_id' },
  form: { type: 'string', enum: [...FORMS], description: 'The upstream form of the record: award-search (live), award-summary (FY2008 award table rows), legacy-transaction (2016 Treasury download)' },
  award_id: { type: 'string', description: 'Award ID (PIID) as the agency reported it' },
  usaspending_award_id: { type: 'string', description: 'The award\'s USAspending id (CONT_AWD_… or, for an indefinite-delivery vehicle, CONT_IDV_…)' },
  modification: nullable('Legacy transactions: the modification number (0 the base award); null for awards'),
  recipient: nullable('Recipient (vendor) name'),
  amount: { type: 'number', description: 'US dollars. Awards: total obligation of the award; legacy transactions: the obligation of this action (may be 0 or negative)' },
  action_date: nullable('Date of the action: a transaction\'s signed date, an award summary\'s latest action; null from the live search', { pattern: DAY }),
  start_date: nullable('Period of performance start (YYYY-MM-DD)', { pattern: DAY }),
  end_date: nullable('Period of performance current end (YYYY-MM-DD)', { pattern: DAY }),
  agency: nullable('Awarding agency, e.g. Department of Defense'),
  sub_agency: nullable('Awarding sub-agency, e.g. Department of the Army (legacy rows in capitals, as the file has them)'),
  award_type: nullable('DEFINITIVE CONTRACT, DELIVERY ORDER, PURCHASE ORDER, BPA CALL; IDC or BPA for a legacy action on a vehicle'),
  naics: nullable('NAICS code of the award (the NAICS edition of its year); null from the live search', { pattern: '^\\d{6}$' }),
  naics_description: nullable('NAICS title as the award table gives it'),
  psc: nullable('Product or service code, e.g. 7030 or D399; null from the live search'),
  psc_description: nullable('Product or service code title'),
  description: nullable('Award or action description'),
  url: { type: 'string', description: 'The award\'s page on USAspending.gov' },
};

export default defineSource<AwardRecord>({
  id: 'procurement',
  title: 'Federal contract awards',
  description: 'Federal contract awards from USAspending.gov: the live award search (the 5,000 largest contracts with activity in the '
    + '90 days before the fetch) where the network allows, and USAspending\'s own published samples (FY2008 award summaries, 2016 '
    + 'Treasury contract transactions). Each record names its form and links to the award on USAspending. Largest first.',
  coverage: 'Offline builds: 163 FY2008 contract award summaries and 126 Department of the Treasury contract transactions of '
    + '2016-09-08..10, the two samples USAspending publishes in its repository: small and old, not the whole award table. '
    + 'With network, the live award search adds the largest recent awards (without NAICS and PSC, which its fields lack).',
  contractVersion: '0.2.0',
  provenance: [{
    name: 'USAspending.gov API v2, spending_by_award, and the usaspending-api repository\'s award and contract samples (U.S. Department of the Treasury, Bureau of the Fiscal Service)',
    url: 'https://api.usaspending.gov/',
    licence: { spdx: 'CC0-1.0', name: 'CC0 1.0 Universal (usaspending-api repository licence); US government work, 17 USC 105', url: 'https://github.com/fedspendingtransparency/usaspending-api/blob/master/LICENSE' },
    attribution: 'Data from USAspending.gov (U.S. Department of the Treasury), as reported by federal agencies; '
      + 'amounts are obligations and may change as agencies revise their reports.',
  }],
  inputs: {
    awards: { kind: 'live', url: AWARDS_URL, format: 'json', optional: true, pages: (get) => awardPages(get) },
    last_updated: { kind: 'live', url: LAST_UPDATED_URL, format: 'json', optional: true },
    awards_2008: { kind: 'url', url: AWARDS_2008_URL, sha256: 'd848ac4ccec662e9f52f1ab5a87a0abcdd6ba3eb2d3d10d9c6188cc0d08673c2', format: 'text', optional: true },
    treasury_2016: { kind: 'url', url: TREASURY_2016_URL, sha256: 'a1dc8cca839f8a13745ee924b0c4fab0e8dc04c1b394a4961a99c49f37f4695d', format: 'text', optional: true },
  },
  pathParamDescription: 'USAspending generated award id (e.g. CONT_AWD_DENE0009234_8900_-NONE-_-NONE-), or a legacy transaction\'s id.',
  schema: { type: 'object', properties, required: Object.keys(properties), additionalProperties: false },
  search: {
    fields: ['recipient', 'description', 'agency', 'sub_agency', 'award_id', 'naics_description', 'psc_description'],
    boost: { recipient: 2, award_id: 2 },
  },
  filters: [
    { param: 'agency', field: 'agency', description: 'Awarding agency, e.g. Department of Defense', caseInsensitive: true },
    { param: 'sub_agency', field: 'sub_agency', description: 'Awarding sub-agency, e.g. Department of the Army', caseInsensitive: true },
    { param: 'recipient', field: 'recipient', description: 'Recipient name as reported', caseInsensitive: true },
    { param: 'award_type', field: 'award_type', description: 'DEFINITIVE CONTRACT, DELIVERY ORDER, PURCHASE ORDER, BPA CALL (IDC, BPA)', caseInsensitive: true },
    { param: 'naics', field: 'naics', description: 'NAICS code, or its first 2–5 digits for the whole group (54: professional services)', valueAliases: prefixes(2) },
    { param: 'psc', field: 'psc', description: 'Product or service code, or its first 1–3 characters (D: IT services, 70: ADP equipment)', caseInsensitive: true, valueAliases: prefixes(1) },
    { param: 'form', field: 'form', description: 'award-search, award-summary or legacy-transaction' },
    ...dateBounds('start_date', 'Start date of the award\'s period of performance.'),
    { param: 'min_amount', field: 'amount', description: 'Amount at least (US dollars)', compare: { op: 'min', type: 'number' } },
    { param: 'max_amount', field: 'amount', description: 'Amount at most (US dollars)', compare: { op: 'max', type: 'number' } },
  ],
  views: [{ segment: 'awards', summary: 'List recent federal contract awards', filter: {} }],
  order: (a, b) => b.amount - a.amount,
  upstreamTime: procurementUpdated,
  // USAspending loads award data daily. Stale past the second figure (meta.stale).
  refresh: { expectedSeconds: 86_400, staleAfterSeconds: 259_200 },
  normalise: normaliseProcurement,
});
