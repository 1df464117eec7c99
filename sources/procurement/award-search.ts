/**
 * The live form of procurement: recent federal contract awards from USAspending.gov's award
 * search (U.S. Department of the Treasury, Bureau of the Fiscal Service), for a machine with
 * network. Records have `form: "award-search"`.
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
 * Not mirrored: no response of it was ever captured; its fetcher and reader are tested on
 * fixtures assembled from the endpoint's contract (test/fixtures/procurement/README.md).
 *
 * Decisions: "Award Amount" is USAspending's total obligation of the award (all actions, not
 * only those in the window); "Start Date"/"End Date" are the period of performance (start,
 * current end). Other fields the endpoint adds on its own (internal_id, awarding_agency_id,
 * agency_slug) are not served. "" is served as null. An award seen on two pages (the data
 * changed while paging) keeps its first copy, the one from the earlier (larger-amount) page.
 * The fields requested carry no NAICS, PSC, action date or modification: those are null.
 */
import type { PageGet } from '../contract.ts';
import { DATE, awardUrl, fail, isObj, opt, str, type AwardRecord } from './record.ts';

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

export function normaliseAward(r: unknown, where: string): AwardRecord {
  if (!isObj(r)) return fail(where, '(result)', r);
  const id = str(where, 'generated_internal_id', r.generated_internal_id, /^CONT_AWD_[A-Za-z0-9_.-]+$/);
  const at = `${where} (${id})`;
  const amount = r['Award Amount'];
  if (typeof amount !== 'number' || !Number.isFinite(amount)) fail(at, 'Award Amount', amount);
  return {
    id,
    form: 'award-search',
    award_id: str(at, 'Award ID', r['Award ID']),
    usaspending_award_id: id,
    modification: null,
    recipient: opt(at, 'Recipient Name', r['Recipient Name']),
    amount,
    action_date: null,
    start_date: opt(at, 'Start Date', r['Start Date'], DATE),
    end_date: opt(at, 'End Date', r['End Date'], DATE),
    agency: opt(at, 'Awarding Agency', r['Awarding Agency']),
    sub_agency: opt(at, 'Awarding Sub Agency', r['Awarding Sub Agency']),
    award_type: opt(at, 'Contract Award Type', r['Contract Award Type']),
    naics: null,
    naics_description: null,
    psc: null,
    psc_description: null,
    description: opt(at, 'Description', r.Description),
    url: awardUrl(id),
  };
}

/** The spending_by_award response bodies, page 1 first. */
export function normaliseAwards(pages: unknown): AwardRecord[] {
  if (!Array.isArray(pages)) fail('awards', '(pages)', pages);
  const byId = new Map<string, AwardRecord>();
  pages.forEach((page, p) => {
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
export function lastUpdated(body: unknown): string | null {
  if (body === undefined) return null;
  const v = isObj(body) ? body.last_updated : undefined;
  const m = typeof v === 'string' ? /^(\d{2})\/(\d{2})\/(\d{4})$/.exec(v) : null;
  const iso = m ? `${m[3]}-${m[1]}-${m[2]}` : '';
  if (!m || Number.isNaN(Date.parse(iso)) || new Date(iso).toISOString().slice(0, 10) !== iso) return fail('last_updated', 'last_updated', v);
  return `${iso}T00:00:00Z`;
}
