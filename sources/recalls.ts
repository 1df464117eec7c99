/**
 * recalls — FDA recall enforcement reports (food, drugs, devices) from openFDA.
 *
 * Upstream: GET https://api.fda.gov/{food,drug,device}/enforcement.json (docs:
 * https://open.fda.gov/apis/food/enforcement/, …/drug/enforcement/, …/device/enforcement/),
 * answering `{"meta":{disclaimer, terms, license, last_updated, results:{skip, limit,
 * total}}, "results":[…]}` with every field a string and dates as YYYYMMDD. openFDA pages
 * with `limit` (at most 1000) and `skip`, and refuses a skip above 25,000. So each centre's
 * fetch asks only for the reports of the last two years (`search=report_date:[<today − 2
 * years>+TO+<today>]`, computed at fetch time, UTC), newest first, and stops when it has
 * `total` records or at skip 25,000 (26 pages, 26,000 reports: more than two years of any
 * centre, which publishes a few thousand a year). No API key is sent (the keyless quota,
 * 1,000 requests a day, is far above the ~20 requests a fetch makes).
 *
 * Each centre is an optional input, so the dataset builds with whichever centres could be
 * fetched (at least one). Not mirrored: there is no variant form.
 *
 * Decisions:
 * - `agency` is always "FDA". The field exists so recalls of other agencies (CPSC's
 *   SaferProducts, NHTSA, USDA FSIS) can be added as further inputs, but they are not
 *   included: each publishes a different record shape with its own ids and classification
 *   scheme, and none of their feeds has been checked against a real response here.
 * - `center` is the openFDA endpoint (food, drug, device); `product_type` is the report's
 *   own ("Food", "Drugs", "Devices", and e.g. "Veterinary" or "Tobacco" under food).
 * - Dates become ISO YYYY-MM-DD. openFDA gives "" for an empty field: served as null.
 *   Dropped: the firm's street address and postal code (a recall record is about the
 *   product, and addresses of sole traders are personal data), initial_firm_notification,
 *   center_classification_date, more_code_info and the `openfda` product annotations.
 * - A recall number seen twice (a report reissued while paging) keeps the copy with the
 *   newer report_date (the first seen on a tie).
 */
import { dateBounds, defineSource, type PageGet } from './contract.ts';

export interface RecallRecord {
  id: string; agency: string; center: Center; product_type: string; classification: string; status: string;
  recalling_firm: string; city: string | null; state: string | null; country: string | null;
  voluntary_mandated: string | null; distribution_pattern: string | null; product_description: string;
  product_quantity: string | null; reason_for_recall: string; code_info: string | null;
  recall_initiation_date: string | null; report_date: string; termination_date: string | null; event_id: string;
}

export const CENTERS = ['food', 'drug', 'device'] as const;
export type Center = (typeof CENTERS)[number];
export const enforcementUrl = (center: Center) => `https://api.fda.gov/${center}/enforcement.json`;
export const LIMIT = 1000;
/** openFDA's largest accepted skip. */
export const MAX_SKIP = 25_000;

const yyyymmdd = (d: Date) => d.toISOString().slice(0, 10).replace(/-/g, '');

/** All pages of one centre's reports of the two years up to `today` (UTC), newest first. */
export async function* enforcementPages(get: PageGet, center: Center, today = new Date()): AsyncGenerator<Buffer> {
  const from = new Date(today);
  from.setUTCFullYear(from.getUTCFullYear() - 2);
  const search = `report_date:[${yyyymmdd(from)}+TO+${yyyymmdd(today)}]`;
  for (let skip = 0; skip <= MAX_SKIP; skip += LIMIT) {
    const body = await get(`${enforcementUrl(center)}?search=${search}&sort=report_date:desc&limit=${LIMIT}&skip=${skip}`);
    yield body;
    const page = JSON.parse(body.toString('utf8')) as { meta?: { results?: { total?: unknown } }; results?: unknown };
    const total = page.meta?.results?.total;
    if (typeof total !== 'number' || !Array.isArray(page.results) || page.results.length === 0 || skip + LIMIT >= total) return;
  }
}

function fail(where: string, field: string, value: unknown): never {
  const shown = JSON.stringify(value);
  throw new Error(`recalls: ${where} field ${field}: unexpected ${shown === undefined ? 'undefined' : shown.slice(0, 200)}`);
}
const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
function str(where: string, field: string, v: unknown, pattern = /\S/): string {
  return typeof v === 'string' && pattern.test(v) ? v : fail(where, field, v);
}
/** A string field that may be absent or "" (null). */
function opt(where: string, field: string, v: unknown): string | null {
  if (v === undefined || (typeof v === 'string' && v.trim() === '')) return null;
  return typeof v === 'string' ? v : fail(where, field, v);
}
const YMD = /^(\d{4})(\d{2})(\d{2})$/;
function isoDate(where: string, field: string, v: string): string {
  const m = YMD.exec(v);
  const iso = m ? `${m[1]}-${m[2]}-${m[3]}` : '';
  if (!m || Number.isNaN(Date.parse(iso)) || new Date(iso).toISOString().slice(0, 10) !== iso) return fail(where, field, v);
  return iso;
}

export function normaliseReport(r: unknown, center: Center, where: string): RecallRecord {
  if (!isObj(r)) return fail(where, '(report)', r);
  const id = str(where, 'recall_number', r.recall_number, /^[A-Z]-\d+-\d{4}$/);
  const at = `${where} (${id})`;
  const date = (field: string, required: boolean) => {
    const v = required ? str(at, field, r[field]) : opt(at, field, r[field]);
    return v === null ? null : isoDate(at, field, v);
  };
  return {
    id,
    agency: 'FDA',
    center,
    product_type: str(at, 'product_type', r.product_type),
    classification: str(at, 'classification', r.classification),
    status: str(at, 'status', r.status),
    recalling_firm: str(at, 'recalling_firm', r.recalling_firm),
    city: opt(at, 'city', r.city),
    state: opt(at, 'state', r.state),
    country: opt(at, 'country', r.country),
    voluntary_mandated: opt(at, 'voluntary_mandated', r.voluntary_mandated),
    distribution_pattern: opt(at, 'distribution_pattern', r.distribution_pattern),
    product_description: str(at, 'product_description', r.product_description),
    product_quantity: opt(at, 'product_quantity', r.product_quantity),
    reason_for_recall: str(at, 'reason_for_recall', r.reason_for_recall),
    code_info: opt(at, 'code_info', r.code_info),
    recall_initiation_date: date('recall_initiation_date', false),
    report_date: date('report_date', true)!,
    termination_date: date('termination_date', false),
    event_id: str(at, 'event_id', r.event_id, /^\d+$/),
  };
}

/** The page bodies of one centre: each must be an openFDA envelope. */
function pagesOf(raw: Record<string, unknown>, center: Center): { meta: Record<string, unknown>; results: unknown[] }[] {
  const pages = raw[center];
  if (pages === undefined) return [];
  if (!Array.isArray(pages)) return fail(center, '(pages)', pages);
  return pages.map((page, p) => {
    const where = `${center} page ${p}`;
    if (!isObj(page)) return fail(where, '(page)', page);
    if (!isObj(page.meta)) return fail(where, 'meta', page.meta);
    if (!Array.isArray(page.results)) return fail(where, 'results', page.results);
    return { meta: page.meta, results: page.results };
  });
}

export function normaliseRecalls(raw: Record<string, unknown>): RecallRecord[] {
  if (CENTERS.every((c) => raw[c] === undefined)) throw new Error('recalls: none of the inputs food, drug, device is present');
  const byId = new Map<string, RecallRecord>();
  for (const center of CENTERS) {
    pagesOf(raw, center).forEach((page, p) => page.results.forEach((r, i) => {
      const rec = normaliseReport(r, center, `${center} page ${p} result ${i}`);
      const seen = byId.get(rec.id);
      if (!seen || rec.report_date > seen.report_date) byId.set(rec.id, rec);
    }));
  }
  return [...byId.values()];
}

/** The newest meta.last_updated (YYYY-MM-DD) of all pages, as midnight UTC; null without pages. */
export function lastUpdated(raw: Record<string, unknown>): string | null {
  let newest: string | null = null;
  for (const center of CENTERS) {
    pagesOf(raw, center).forEach((page, p) => {
      const d = str(`${center} page ${p}`, 'meta.last_updated', page.meta.last_updated, /^\d{4}-\d{2}-\d{2}$/);
      if (newest === null || d > newest) newest = d;
    });
  }
  return newest === null ? null : `${newest}T00:00:00Z`;
}

const nullable = (description: string, extra: Record<string, unknown> = {}) => ({ type: ['string', 'null'], description, ...extra });
const DATE = '^\\d{4}-\\d{2}-\\d{2}$';
const properties = {
  id: { type: 'string', pattern: '^[A-Z]-\\d+-\\d{4}$', description: 'FDA recall number, e.g. F-0438-2025 (F food, D drugs, Z devices)' },
  agency: { type: 'string', enum: ['FDA'], description: 'Recalling agency (FDA only for now)' },
  center: { type: 'string', enum: [...CENTERS], description: 'openFDA endpoint the report came from' },
  product_type: { type: 'string', description: 'Food, Drugs, Devices, Veterinary, Tobacco, …' },
  classification: { type: 'string', description: 'Class I (most serious), Class II or Class III' },
  status: { type: 'string', description: 'Ongoing, Completed, Terminated or Pending' },
  recalling_firm: { type: 'string' },
  city: nullable('City of the recalling firm'),
  state: nullable('State of the recalling firm (US two-letter code)'),
  country: nullable('Country of the recalling firm'),
  voluntary_mandated: nullable('e.g. "Voluntary: Firm initiated" or "FDA Mandated"'),
  distribution_pattern: nullable('Where the product was distributed'),
  product_description: { type: 'string' },
  product_quantity: nullable('Quantity in commerce, as reported'),
  reason_for_recall: { type: 'string' },
  code_info: nullable('Lot numbers, codes and dates identifying the recalled product'),
  recall_initiation_date: nullable('Date the firm began notifying the public or consignees', { pattern: DATE }),
  report_date: { type: 'string', pattern: DATE, description: 'Date of the FDA weekly enforcement report listing the recall' },
  termination_date: nullable('Date FDA terminated the recall', { pattern: DATE }),
  event_id: { type: 'string', description: 'FDA recall event id; one event may cover several products (recall numbers)' },
};

const ROMAN = ['I', 'II', 'III'];
function recallClass(v: string): string {
  const m = /^(?:class\s*)?(i{1,3}|[1-3])$/i.exec(v.trim());
  return m ? `Class ${/\d/.test(m[1]) ? ROMAN[Number(m[1]) - 1] : m[1].toUpperCase()}` : v;
}

export default defineSource<RecallRecord>({
  id: 'recalls',
  title: 'Product recalls',
  description: 'FDA recall enforcement reports for food, drugs and medical devices of the last two years, '
    + 'from openFDA: classification, status, recalling firm, product, reason and distribution. Newest report first.',
  contractVersion: '0.1.0',
  provenance: [{
    name: 'openFDA food, drug and device enforcement reports (U.S. Food and Drug Administration)',
    url: 'https://open.fda.gov/apis/food/enforcement/',
    licence: { spdx: 'CC0-1.0', name: 'Public domain, CC0 1.0 Universal dedication (openFDA licence)', url: 'https://open.fda.gov/license/' },
    attribution: 'Data from openFDA, U.S. Food and Drug Administration (https://open.fda.gov; terms: https://open.fda.gov/terms/). '
      + 'FDA does not endorse this service. Do not rely on openFDA to make decisions regarding medical care; '
      + 'results are unvalidated.',
  }],
  inputs: Object.fromEntries(CENTERS.map((center) => [center, {
    kind: 'live' as const, url: enforcementUrl(center), format: 'json' as const, optional: true,
    pages: (get: PageGet) => enforcementPages(get, center),
  }])),
  pathParamDescription: 'FDA recall number, e.g. F-0438-2025.',
  schema: { type: 'object', properties, required: Object.keys(properties), additionalProperties: false },
  search: { fields: ['product_description', 'reason_for_recall', 'recalling_firm'], boost: { recalling_firm: 2 } },
  filters: [
    { param: 'agency', field: 'agency', description: 'Recalling agency: FDA', caseInsensitive: true },
    // openFDA writes "Class II" and "Ongoing"; people write class 2, II, ongoing (issue 13).
    { param: 'classification', field: 'classification', description: 'Class I, Class II or Class III (also 1, II, class 2)', normalise: recallClass },
    { param: 'status', field: 'status', description: 'Ongoing, Completed, Terminated or Pending (any case)', normalise: (v) => v.charAt(0).toUpperCase() + v.slice(1).toLowerCase() },
    { param: 'product_type', field: 'product_type', description: 'Food, Drugs, Devices, …', caseInsensitive: true },
    { param: 'state', field: 'state', description: 'State of the recalling firm, e.g. TX' },
    ...dateBounds('report_date', 'Date FDA reported the recall.'),
  ],
  order: (a, b) => (a.report_date < b.report_date ? 1 : a.report_date > b.report_date ? -1 : 0),
  // openFDA's meta.last_updated: the date the endpoint's data was last refreshed (weekly).
  upstreamTime: lastUpdated,
  // openFDA refreshes enforcement reports weekly. Stale past the second figure (meta.stale).
  refresh: { expectedSeconds: 604_800, staleAfterSeconds: 1_209_600 },
  normalise: normaliseRecalls,
});
