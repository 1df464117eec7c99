/**
 * recalls — FDA recall enforcement reports (food, drugs, devices) from openFDA's bulk
 * download files.
 *
 * Upstream: https://download.open.fda.gov/{food,drug,device}/enforcement/<c>-enforcement-0001-of-0001.json.zip,
 * the files https://download.open.fda.gov/download.json lists for the three enforcement
 * endpoints (sources/readers/openfda-bulk.ts reads them): every report openFDA holds, since
 * 2012, in the API's own record format (every field a string, dates YYYYMMDD). openFDA
 * regenerates them weekly, so they are live inputs (nothing to pin), each optional: the
 * dataset builds from whichever centres could be fetched. The API (api.fda.gov) was used
 * before: it will not page past 25,000 records, so it served only two years; one bulk file
 * is one request for all of them.
 *
 * The drug file of 2023-08-05 (15,542 reports) has a known copy, pinned by sha256, which a
 * folder mirror holds and which stands in when openFDA cannot be reached and no earlier
 * fetch left a copy. No copy of the food and device files was reachable: offline they are
 * absent, and /apis says so (missingNote). If openFDA ever splits a file into several
 * partitions (…-0001-of-0002), its URL answers 404 and the fetch reports it.
 *
 * Decisions:
 * - `agency` is always "FDA". The field exists so recalls of other agencies (CPSC's
 *   SaferProducts, NHTSA, USDA FSIS) can be added as further inputs, but they are not
 *   included: each publishes a different record shape with its own ids and classification
 *   scheme, and none of their feeds has been checked against a real file here.
 * - `center` is the file the report came from (food, drug, device); `product_type` is the
 *   report's own ("Food", "Drugs", "Devices", and e.g. "Veterinary" or "Tobacco" under food).
 * - The id is the recall number as FDA wrote it: 53 of the drug file's numbers do not have
 *   the usual D-0000-2015 shape (D0033-2015, D-66014-001) and are kept as they are. One
 *   report (event 90638, "Not Yet Classified") has no recall number yet: it is served as
 *   `event-90638` (a second such report of one event would be `event-90638-2`), so that
 *   every report of the file is served (15,542 of its meta.results.total 15,542).
 * - Dates become ISO YYYY-MM-DD. openFDA gives "" for an empty field: served as null.
 *   Dropped: the firm's street address and postal code (a recall record is about the
 *   product, and addresses of sole traders are personal data), initial_firm_notification,
 *   center_classification_date, more_code_info and the `openfda` product annotations.
 * - A recall number seen twice keeps the copy with the newer report_date (the first seen
 *   on a tie).
 * - `firm=` matches the firm's name as people write it: case, punctuation, "&"/"and" and
 *   trailing legal forms (Inc, LLC, Corp, Co, Ltd…) aside, so Sandoz, Sandoz Inc and
 *   "Sandoz, Incorporated" are one firm (FDA spells many firms several ways: the drug file's
 *   1,365 spellings are 1,222 firms so). Other words must match; search finds parts of names.
 */
import { dateBounds, defineSource, type LiveInput } from './contract.ts';
import { bulkLastUpdated, readOpenFdaBulk } from './readers/openfda-bulk.ts';

export interface RecallRecord {
  id: string; agency: string; center: Center; product_type: string; classification: string; status: string;
  recalling_firm: string; city: string | null; state: string | null; country: string | null;
  voluntary_mandated: string | null; distribution_pattern: string | null; product_description: string;
  product_quantity: string | null; reason_for_recall: string; code_info: string | null;
  recall_initiation_date: string | null; report_date: string; termination_date: string | null; event_id: string;
}

export const CENTERS = ['food', 'drug', 'device'] as const;
export type Center = (typeof CENTERS)[number];
export const bulkUrl = (center: Center) => `https://download.open.fda.gov/${center}/enforcement/${center}-enforcement-0001-of-0001.json.zip`;
/** The drug file of 2023-08-05, as copied into a public repository (provenance row 650 of the upstream mirror). */
export const DRUG_COPY = {
  url: 'https://raw.githubusercontent.com/Zikrillo001/facilis_velit_bot/34d6242f7271710b20b09ab976ce2d9d10eed370/drug-enforcement-0001-of-0001.json.zip',
  sha256: 'b61ec28d7dfc2ed4f65d12bd31b1d0c44c17d4ee60b531d83077b4d58aabb832',
};
const NO_COPY = (center: Center) => `No copy of openFDA's ${center} enforcement bulk file was reachable when the upstream mirror was made `
  + '(only the drug file was), so a build without network has none; npm run fetch with network gets it from openFDA';

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

/** FDA's recall numbers, as FDA writes them (a few without the hyphen or with other digit groups). */
const RECALL_NUMBER = /^[A-Z]-?\d+-\d+$/;

/** `id` is the recall number, unless the caller gives one (a report FDA has not numbered yet, named by its event). */
export function normaliseReport(r: unknown, center: Center, where: string, id?: string): RecallRecord {
  if (!isObj(r)) return fail(where, '(report)', r);
  id ??= str(where, 'recall_number', r.recall_number, RECALL_NUMBER);
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

/**
 * Each zip read once: the build asks for the data date (upstreamTime) and the records
 * (normalise) of the same bytes, and unzipping and parsing the drug file takes ~0.5 s.
 */
const read = new WeakMap<Uint8Array, ReturnType<typeof readOpenFdaBulk>>();

/** The centres' bulk files present in `raw` (Buffers of the zips). */
function filesOf(raw: Record<string, unknown>): { center: Center; file: ReturnType<typeof readOpenFdaBulk> }[] {
  return CENTERS.filter((c) => raw[c] !== undefined).map((center) => {
    const zip = raw[center];
    if (!(zip instanceof Uint8Array)) return fail(center, '(bulk file)', typeof zip);
    let file = read.get(zip);
    if (!file) read.set(zip, (file = readOpenFdaBulk(zip, bulkUrl(center).split('/').pop()!)));
    return { center, file };
  });
}

export function normaliseRecalls(raw: Record<string, unknown>): RecallRecord[] {
  const files = filesOf(raw);
  if (!files.length) throw new Error('recalls: none of the inputs food, drug, device is present');
  const byId = new Map<string, RecallRecord>();
  for (const { center, file } of files) {
    const unnumbered = new Map<string, number>();
    file.results.forEach((r, i) => {
      const where = `${file.member} result ${i}`;
      let id: string | undefined;
      if (isObj(r) && r.recall_number === '') {
        // Not numbered yet (classification "Not Yet Classified"): named by its event.
        const event = str(where, 'event_id', r.event_id, /^\d+$/);
        const n = (unnumbered.get(event) ?? 0) + 1;
        unnumbered.set(event, n);
        id = n === 1 ? `event-${event}` : `event-${event}-${n}`;
      }
      const rec = normaliseReport(r, center, where, id);
      const seen = byId.get(rec.id);
      if (!seen || rec.report_date > seen.report_date) byId.set(rec.id, rec);
    });
  }
  return [...byId.values()];
}

/** The newest meta.last_updated (YYYY-MM-DD) of the files present, as midnight UTC; null without any. */
export function lastUpdated(raw: Record<string, unknown>): string | null {
  const newest = filesOf(raw).map((f) => f.file.lastUpdated).sort().pop();
  return newest === undefined ? null : `${newest}T00:00:00Z`;
}

/** A firm's name as people write it: case, punctuation, "&" and trailing legal forms aside (see the top of this file). */
export function firmKey(name: string): string {
  const words = name.toLowerCase().replace(/&/g, ' and ').replace(/[^\p{L}\p{N}\s]+/gu, ' ').split(/\s+/).filter(Boolean);
  while (words.length > 1 && LEGAL_FORMS.has(words[words.length - 1])) words.pop();
  return words.join(' ');
}
const LEGAL_FORMS = new Set(['inc', 'incorporated', 'llc', 'lc', 'pllc', 'corp', 'corporation', 'co', 'company', 'ltd', 'limited', 'lp', 'llp', 'plc']);

const nullable = (description: string, extra: Record<string, unknown> = {}) => ({ type: ['string', 'null'], description, ...extra });
const DATE = '^\\d{4}-\\d{2}-\\d{2}$';
const properties = {
  id: {
    type: 'string', pattern: '^(?:[A-Z]-?\\d+-\\d+|event-\\d+(?:-\\d+)?)$',
    description: 'FDA recall number as FDA wrote it, e.g. F-0438-2025 (F food, D drugs, Z devices); event-<event_id> for a report FDA has not numbered yet',
  },
  agency: { type: 'string', enum: ['FDA'], description: 'Recalling agency (FDA only for now)' },
  center: { type: 'string', enum: [...CENTERS], description: 'The openFDA bulk file (endpoint) the report came from' },
  product_type: { type: 'string', description: 'Food, Drugs, Devices, Veterinary, Tobacco, …' },
  classification: { type: 'string', description: 'Class I (most serious), Class II, Class III, or Not Yet Classified' },
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
  if (/^not[\s_-]*yet[\s_-]*classified$/i.test(v.trim())) return 'Not Yet Classified';
  const m = /^(?:class\s*)?(i{1,3}|[1-3])$/i.exec(v.trim());
  return m ? `Class ${/\d/.test(m[1]) ? ROMAN[Number(m[1]) - 1] : m[1].toUpperCase()}` : v;
}

/** One centre's bulk file: the publisher's URL, weekly; the drug file's known copy as its pinned snapshot. */
function bulkInput(center: Center): LiveInput {
  return {
    kind: 'live', url: bulkUrl(center), format: 'buffer', optional: true, dataTime: bulkLastUpdated,
    ...(center === 'drug' ? { copies: [DRUG_COPY] } : { missingNote: NO_COPY(center) }),
  };
}

export default defineSource<RecallRecord>({
  id: 'recalls',
  title: 'Product recalls',
  description: 'FDA recall enforcement reports for food, drugs and medical devices since 2012, from openFDA\'s bulk download files: '
    + 'classification, status, recalling firm, product, reason and distribution. Newest report first.',
  coverage: 'Every report of the openFDA enforcement files this release was built from (meta.results.total of each file). '
    + 'The copy known to this project is the drug file of 2023-08-05 (15,542 reports, 2012-06-20 to 2023-07-26); no copy of '
    + 'the food and device files was reachable, so offline builds have drug recalls only (missing_inputs says so).',
  contractVersion: '0.2.0',
  provenance: [{
    name: 'openFDA food, drug and device enforcement reports, bulk download files (U.S. Food and Drug Administration)',
    url: 'https://open.fda.gov/apis/downloads/',
    licence: { spdx: 'CC0-1.0', name: 'Public domain, CC0 1.0 Universal dedication (openFDA licence)', url: 'https://open.fda.gov/license/' },
    attribution: 'Data from openFDA, U.S. Food and Drug Administration (https://open.fda.gov; terms: https://open.fda.gov/terms/). '
      + 'FDA does not endorse this service. Do not rely on openFDA to make decisions regarding medical care; '
      + 'results are unvalidated.',
  }],
  inputs: Object.fromEntries(CENTERS.map((center) => [center, bulkInput(center)])),
  pathParamDescription: 'FDA recall number, e.g. D-0115-2026 (event-<event_id> for a report not numbered yet).',
  schema: { type: 'object', properties, required: Object.keys(properties), additionalProperties: false },
  search: { fields: ['product_description', 'reason_for_recall', 'recalling_firm'], boost: { recalling_firm: 2 } },
  filters: [
    { param: 'agency', field: 'agency', description: 'Recalling agency: FDA', caseInsensitive: true },
    // openFDA writes "Class II" and "Ongoing"; people write class 2, II, ongoing (issue 13).
    { param: 'classification', field: 'classification', description: 'Class I, Class II, Class III (also 1, II, class 2) or Not Yet Classified', normalise: recallClass },
    { param: 'status', field: 'status', description: 'Ongoing, Completed, Terminated or Pending (any case)', normalise: (v) => v.charAt(0).toUpperCase() + v.slice(1).toLowerCase() },
    { param: 'firm', field: 'recalling_firm', description: 'Recalling firm, as people write it: case, punctuation and a trailing Inc, LLC, Corp… aside (Sandoz = Sandoz, Inc.)', caseInsensitive: true, normalise: firmKey, valueAliases: () => (v) => [firmKey(v)] },
    { param: 'product_type', field: 'product_type', description: 'Food, Drugs, Devices, …', caseInsensitive: true },
    { param: 'state', field: 'state', description: 'State of the recalling firm, e.g. TX', caseInsensitive: true },
    ...dateBounds('report_date', 'Date FDA reported the recall.'),
  ],
  order: (a, b) => (a.report_date < b.report_date ? 1 : a.report_date > b.report_date ? -1 : 0),
  // openFDA's meta.last_updated: the date the file's data was last refreshed (weekly).
  upstreamTime: lastUpdated,
  // openFDA refreshes the enforcement files weekly. Stale past the second figure (meta.stale).
  refresh: { expectedSeconds: 604_800, staleAfterSeconds: 1_209_600 },
  normalise: normaliseRecalls,
});
