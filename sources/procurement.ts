/**
 * procurement — recent federal contract awards from USAspending.gov (U.S. Department of the
 * Treasury, Bureau of the Fiscal Service).
 *
 * Upstream: POST https://api.usaspending.gov/api/v2/search/spending_by_award/ (contract:
 * https://github.com/fedspendingtransparency/usaspending-api/blob/master/usaspending_api/api_contracts/contracts/v2/search/spending_by_award.md)
 * with `{filters:{award_type_codes, time_period:[{start_date, end_date}]}, fields, page,
 * limit, sort, order}`, answering `{limit, results:[{internal_id, "Award ID", "Recipient
 * Name", "Award Amount", …, generated_internal_id}], page_metadata:{page, hasNext}, messages}`.
 * The fetch asks for contracts (award types A–D: BPA calls, purchase orders, delivery
 * orders, definitive contracts) with activity in the 90 days up to the fetch date (UTC),
 * largest amount first, 100 a page (the endpoint's maximum), and stops when hasNext is
 * false or after MAX_PAGES pages: 50 × 100 = the 5,000 largest awards, which keeps a fetch
 * to 50 requests: a 90-day window holds far more small orders (hundreds of thousands) than a
 * list of notable recent awards needs, and every page is a separate search on USAspending.
 * GET https://api.usaspending.gov/api/v2/awards/last_updated/ (`{"last_updated":"MM/DD/YYYY"}`,
 * optional) is the date the award data was last loaded: upstreamTime.
 *
 * Not mirrored: there is no variant form.
 *
 * Decisions: "Award Amount" is USAspending's total obligation of the award (all actions, not
 * only those in the window); "Start Date"/"End Date" are the period of performance (start,
 * current end). Other fields the endpoint adds on its own (internal_id, awarding_agency_id,
 * agency_slug) are not served. "" is served as null. An award seen on two pages (the data
 * changed while paging) keeps its first copy, the one from the earlier (larger-amount) page.
 */
import { dateBounds, defineSource, type PageGet } from './contract.ts';

export interface AwardRecord {
  id: string; award_id: string; recipient: string | null; amount: number;
  start_date: string | null; end_date: string | null; agency: string | null; sub_agency: string | null;
  award_type: string | null; description: string | null; url: string;
}

export const AWARDS_URL = 'https://api.usaspending.gov/api/v2/search/spending_by_award/';
export const LAST_UPDATED_URL = 'https://api.usaspending.gov/api/v2/awards/last_updated/';
export const PAGE_LIMIT = 100;
export const MAX_PAGES = 50;
export const WINDOW_DAYS = 90;
export const FIELDS = [
  'Award ID', 'Recipient Name', 'Award Amount', 'Start Date', 'End Date', 'Awarding Agency',
  'Awarding Sub Agency', 'Contract Award Type', 'Description', 'generated_internal_id',
];

/** The request body of page `page` (1-based) for the 90 days up to `today` (UTC). */
export function requestBody(page: number, today: Date) {
  const start = new Date(today.getTime() - WINDOW_DAYS * 86_400_000);
  return {
    filters: {
      award_type_codes: ['A', 'B', 'C', 'D'],
      time_period: [{ start_date: start.toISOString().slice(0, 10), end_date: today.toISOString().slice(0, 10) }],
    },
    fields: FIELDS,
    page,
    limit: PAGE_LIMIT,
    sort: 'Award Amount',
    order: 'desc',
  };
}

export async function* awardPages(get: PageGet, today = new Date(), maxPages = MAX_PAGES): AsyncGenerator<Buffer> {
  for (let page = 1; page <= maxPages; page++) {
    const body = await get(AWARDS_URL, {
      method: 'POST', body: JSON.stringify(requestBody(page, today)), headers: { 'content-type': 'application/json' },
    });
    yield body;
    const parsed = JSON.parse(body.toString('utf8')) as { results?: unknown; page_metadata?: { hasNext?: unknown } };
    if (parsed.page_metadata?.hasNext !== true || !Array.isArray(parsed.results) || parsed.results.length === 0) return;
  }
}

function fail(where: string, field: string, value: unknown): never {
  const shown = JSON.stringify(value);
  throw new Error(`procurement: ${where} field ${field}: unexpected ${shown === undefined ? 'undefined' : shown.slice(0, 200)}`);
}
const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
function str(where: string, field: string, v: unknown, pattern = /\S/): string {
  return typeof v === 'string' && pattern.test(v) ? v : fail(where, field, v);
}
/** Absent, null or "" is null; otherwise a string matching `pattern`. */
function opt(where: string, field: string, v: unknown, pattern = /\S/): string | null {
  if (v === undefined || v === null || (typeof v === 'string' && v.trim() === '')) return null;
  return str(where, field, v, pattern);
}
const DATE = /^\d{4}-\d{2}-\d{2}$/;

export function normaliseAward(r: unknown, where: string): AwardRecord {
  if (!isObj(r)) return fail(where, '(result)', r);
  const id = str(where, 'generated_internal_id', r.generated_internal_id, /^CONT_AWD_[A-Za-z0-9_.-]+$/);
  const at = `${where} (${id})`;
  const amount = r['Award Amount'];
  if (typeof amount !== 'number' || !Number.isFinite(amount)) fail(at, 'Award Amount', amount);
  return {
    id,
    award_id: str(at, 'Award ID', r['Award ID']),
    recipient: opt(at, 'Recipient Name', r['Recipient Name']),
    amount,
    start_date: opt(at, 'Start Date', r['Start Date'], DATE),
    end_date: opt(at, 'End Date', r['End Date'], DATE),
    agency: opt(at, 'Awarding Agency', r['Awarding Agency']),
    sub_agency: opt(at, 'Awarding Sub Agency', r['Awarding Sub Agency']),
    award_type: opt(at, 'Contract Award Type', r['Contract Award Type']),
    description: opt(at, 'Description', r.Description),
    url: `https://www.usaspending.gov/award/${encodeURIComponent(id)}`,
  };
}

/** raw.awards: the spending_by_award response bodies, page 1 first. */
export function normaliseAwards(raw: Record<string, unknown>): AwardRecord[] {
  if (!Array.isArray(raw.awards)) fail('awards', '(pages)', raw.awards);
  const byId = new Map<string, AwardRecord>();
  raw.awards.forEach((page, p) => {
    if (!isObj(page)) fail(`awards page ${p}`, '(page)', page);
    if (!Array.isArray(page.results)) fail(`awards page ${p}`, 'results', page.results);
    page.results.forEach((r, i) => {
      const rec = normaliseAward(r, `awards page ${p} result ${i}`);
      if (!byId.has(rec.id)) byId.set(rec.id, rec);
    });
  });
  return [...byId.values()];
}

/** The last_updated endpoint's MM/DD/YYYY as midnight UTC; null without that input. */
export function lastUpdated(raw: Record<string, unknown>): string | null {
  if (raw.last_updated === undefined) return null;
  const v = isObj(raw.last_updated) ? raw.last_updated.last_updated : undefined;
  const m = typeof v === 'string' ? /^(\d{2})\/(\d{2})\/(\d{4})$/.exec(v) : null;
  const iso = m ? `${m[3]}-${m[1]}-${m[2]}` : '';
  if (!m || Number.isNaN(Date.parse(iso)) || new Date(iso).toISOString().slice(0, 10) !== iso) return fail('last_updated', 'last_updated', v);
  return `${iso}T00:00:00Z`;
}

const nullable = (description: string, extra: Record<string, unknown> = {}) => ({ type: ['string', 'null'], description, ...extra });
const DAY = '^\\d{4}-\\d{2}-\\d{2}$';
const properties = {
  id: { type: 'string', pattern: '^CONT_AWD_', description: 'USAspending generated award id, e.g. CONT_AWD_DENE0009234_8900' },
  award_id: { type: 'string', description: 'Award ID (PIID) as the agency reported it' },
  recipient: nullable('Recipient name'),
  amount: { type: 'number', description: 'Award amount: total obligation in US dollars' },
  start_date: nullable('Period of performance start (YYYY-MM-DD)', { pattern: DAY }),
  end_date: nullable('Period of performance current end (YYYY-MM-DD)', { pattern: DAY }),
  agency: nullable('Awarding agency, e.g. Department of Defense'),
  sub_agency: nullable('Awarding sub-agency, e.g. Department of the Army'),
  award_type: nullable('Contract award type: DEFINITIVE CONTRACT, DELIVERY ORDER, PURCHASE ORDER, BPA CALL'),
  description: nullable('Award description'),
  url: { type: 'string', description: 'The award page on USAspending.gov' },
};

export default defineSource<AwardRecord>({
  id: 'procurement',
  title: 'Federal contract awards',
  description: 'Recent federal contract awards from USAspending.gov: the 5,000 largest contracts (BPA calls, purchase orders, '
    + 'delivery orders, definitive contracts) with activity in the 90 days before the build, largest first.',
  contractVersion: '0.1.0',
  provenance: [{
    name: 'USAspending.gov API v2, spending_by_award (U.S. Department of the Treasury, Bureau of the Fiscal Service)',
    url: 'https://api.usaspending.gov/',
    licence: { spdx: 'LicenseRef-US-Gov-PD', name: 'Public domain (US government work, 17 USC 105)', url: 'https://www.usa.gov/government-copyright' },
    attribution: 'Data from USAspending.gov (U.S. Department of the Treasury), as reported by federal agencies; '
      + 'amounts are total obligations and may change as agencies revise their reports.',
  }],
  inputs: {
    awards: { kind: 'live', url: AWARDS_URL, format: 'json', pages: (get) => awardPages(get) },
    last_updated: { kind: 'live', url: LAST_UPDATED_URL, format: 'json', optional: true },
  },
  pathParamDescription: 'USAspending generated award id, e.g. CONT_AWD_DENE0009234_8900.',
  schema: { type: 'object', properties, required: Object.keys(properties), additionalProperties: false },
  search: { fields: ['recipient', 'description', 'agency', 'award_id'], boost: { recipient: 2, award_id: 2 } },
  filters: [
    { param: 'agency', field: 'agency', description: 'Awarding agency, e.g. Department of Defense', caseInsensitive: true },
    { param: 'sub_agency', field: 'sub_agency', description: 'Awarding sub-agency, e.g. Department of the Army' },
    { param: 'recipient', field: 'recipient', description: 'Recipient name as reported', caseInsensitive: true },
    { param: 'award_type', field: 'award_type', description: 'DEFINITIVE CONTRACT, DELIVERY ORDER, PURCHASE ORDER or BPA CALL' },
    ...dateBounds('start_date', 'Start date of the award\'s period of performance.'),
    { param: 'min_amount', field: 'amount', description: 'Amount at least (US dollars)', compare: { op: 'min', type: 'number' } },
    { param: 'max_amount', field: 'amount', description: 'Amount at most (US dollars)', compare: { op: 'max', type: 'number' } },
  ],
  views: [{ segment: 'awards', summary: 'List recent federal contract awards', filter: {} }],
  order: (a, b) => b.amount - a.amount,
  // awards/last_updated: the date USAspending last loaded award data.
  upstreamTime: lastUpdated,
  // USAspending loads award data daily. Stale past the second figure (meta.stale).
  refresh: { expectedSeconds: 86_400, staleAfterSeconds: 259_200 },
  normalise: normaliseAwards,
});
