/**
 * laws-regulations: current codified-regulation titles (eCFR) and this year's Federal
 * Register documents, as ONE dataset of two record kinds (views `titles`, `documents`).
 *
 * - eCFR titles, https://www.ecfr.gov/api/versioner/v1/titles.json (live): {titles:
 *   [{number, name, latest_amended_on, latest_issue_date, up_to_date_as_of, reserved,
 *   processing_in_progress?}], meta: {date, import_in_progress}}. Dates are YYYY-MM-DD, null
 *   for a reserved title. The mirror holds a pretty-printed copy at the same path (same
 *   keys and values), so there is no variant. `meta.date` is the upstream time.
 * - Federal Register documents API, https://www.federalregister.gov/api/v1/documents.json
 *   (live, paged, optional: not mirrored, so titles still build without it). Documented at
 *   https://www.federalregister.gov/developers/documentation/api/v1 : `per_page` ≤ 1000,
 *   `order=newest`, explicit `fields[]`, responses {count, description, total_pages,
 *   next_page_url (absent on the last page), results: [...]}. The API will not page past
 *   10,000 results, and a year holds ~25–30,000 documents, so the current year (UTC, at
 *   fetch time) is requested one calendar month at a time (~2,500 each) via
 *   conditions[publication_date][gte|lte], following next_page_url. A month reporting
 *   10,000 or more fails the fetch rather than serve a silently truncated list.
 * - One real page of that API (`documents_page`, pinned, optional): the first page of the
 *   search for "Gifts to Federal Employees from Foreign Government Sources" by the State
 *   Department, 20 of its 33 notices (2008-12-22 .. 2025-01-03), fetched ~2025-03-30 and
 *   saved (re-serialized) in dwillis/all-foreign-gifts-around-us: the copy the mirror holds,
 *   and so the documents of a build without network. Its second page was never saved, so
 *   13 of the search's 33 are not served. The publisher's URL is asked first; its bytes
 *   differ from the re-serialized copy's, so the pinned copy stands in.
 *   A document the live year also has keeps the live copy.
 *
 * Records: titles have id `title-<number>`, documents their document_number. Agencies are
 * FR's agency objects reduced to names (`name`, else `raw_name` for agencies FR could not
 * match, which carry no slug) and slugs. A title's html_url is its eCFR page
 * (https://www.ecfr.gov/current/title-N; null for reserved titles). Not served: FR's
 * public_inspection_pdf_url and search `excerpts` (not requested), eCFR meta.import_in_progress.
 */
import { dateBounds, defineSource, type PageGet } from './contract.ts';

export interface LawRecord {
  id: string; kind: 'title' | 'document'; number: number | null; title: string; type: string | null;
  abstract: string | null; publication_date: string | null; agencies: string[] | null; agency_slugs: string[] | null;
  citation: string | null; html_url: string | null; pdf_url: string | null; latest_amended_on: string | null;
  latest_issue_date: string | null; up_to_date_as_of: string | null; reserved: boolean | null; processing_in_progress: boolean | null;
}

function fail(where: string, field: string, value: unknown): never {
  const shown = JSON.stringify(value);
  throw new Error(`laws-regulations: ${where} field ${field}: unexpected ${shown === undefined ? 'undefined' : shown.slice(0, 200)}`);
}
const str = (where: string, field: string, v: unknown, pattern?: RegExp): string =>
  (typeof v === 'string' && (!pattern || pattern.test(v)) ? v : fail(where, field, v));
const optStr = (where: string, field: string, v: unknown, pattern?: RegExp) => (v === null ? null : str(where, field, v, pattern));
const obj = (where: string, field: string, v: unknown) =>
  (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : fail(where, field, v));
const arr = (where: string, field: string, v: unknown) => (Array.isArray(v) ? v : fail(where, field, v));
function onlyKeys(where: string, o: Record<string, unknown>, allowed: string[]) {
  for (const k of Object.keys(o)) if (!allowed.includes(k)) fail(where, k, o[k]);
}
const DATE = /^\d{4}-\d{2}-\d{2}$/;

export const FR_ENDPOINT = 'https://www.federalregister.gov/api/v1/documents.json';
/** The search page the mirror holds a copy of (see the top of this file). */
export const FR_GIFTS_PAGE = `${FR_ENDPOINT}?conditions[agencies][]=state-department`
  + '&conditions[term]=%22Gifts+to+Federal+Employees+from+Foreign+Government+Sources%22&page=1';
export const FR_GIFTS_COPY = 'https://raw.githubusercontent.com/dwillis/all-foreign-gifts-around-us/0156cc6ac58868638b08ee860f573d63334fe3bd/federal_register.json';
export const FR_FIELDS = ['abstract', 'agencies', 'citation', 'document_number', 'html_url', 'pdf_url', 'publication_date', 'title', 'type'];
const FR_MAX_RESULTS = 10_000;
const FR_PER_PAGE = 1000;

/** First-page URL of one publication-date window (brackets literal, as FR documents them). */
export function frMonthUrl(first: string, last: string): string {
  return `${FR_ENDPOINT}?per_page=${FR_PER_PAGE}&order=newest`
    + `&conditions[publication_date][gte]=${first}&conditions[publication_date][lte]=${last}`
    + FR_FIELDS.map((f) => `&fields[]=${f}`).join('');
}

/**
 * Every page of this year's documents, month by month up to `now`'s month. Bound: 12
 * months × at most 10 pages (10,000 results / 1,000 per page) = 120 requests; an 11th
 * page in a month, or a next_page_url that repeats, fails rather than loop.
 */
export async function* federalRegisterPages(get: PageGet, now: Date = new Date()): AsyncGenerator<Buffer> {
  const year = now.getUTCFullYear();
  for (let month = 0; month <= now.getUTCMonth(); month++) {
    const mm = String(month + 1).padStart(2, '0');
    const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
    let url: string | null = frMonthUrl(`${year}-${mm}-01`, `${year}-${mm}-${lastDay}`);
    const seen = new Set<string>();
    for (let page = 1; url; page++) {
      const where = `Federal Register ${year}-${mm} page ${page}`;
      if (page > FR_MAX_RESULTS / FR_PER_PAGE || seen.has(url)) fail(where, '(paging: next_page_url repeats or exceeds 10 pages)', url);
      seen.add(url);
      const body = await get(url);
      const parsed = obj(where, '(response)', JSON.parse(body.toString('utf8')));
      const count = parsed.count;
      if (typeof count !== 'number' || !Number.isSafeInteger(count) || count < 0) fail(where, 'count', count);
      if (count >= FR_MAX_RESULTS) fail(where, `count (the API pages only ${FR_MAX_RESULTS} results)`, count);
      yield body;
      const next = parsed.next_page_url ?? null;
      if (next !== null && (typeof next !== 'string' || !next.startsWith(`${FR_ENDPOINT}?`))) fail(where, 'next_page_url', next);
      url = next as string | null;
    }
  }
}

function titleRecords(raw: unknown): LawRecord[] {
  const file = 'eCFR titles.json';
  const d = obj(file, '(document)', raw);
  onlyKeys(file, d, ['titles', 'meta']);
  return arr(file, 'titles', d.titles).map((t, i): LawRecord => {
    const at = `${file} titles[${i}]`;
    const o = obj(at, '(title)', t);
    onlyKeys(at, o, ['number', 'name', 'latest_amended_on', 'latest_issue_date', 'up_to_date_as_of', 'reserved', 'processing_in_progress']);
    if (!Number.isSafeInteger(o.number) || (o.number as number) < 1) fail(at, 'number', o.number);
    if (typeof o.reserved !== 'boolean') fail(at, 'reserved', o.reserved);
    const processing = o.processing_in_progress ?? false;
    if (typeof processing !== 'boolean') fail(at, 'processing_in_progress', processing);
    const n = o.number as number;
    return {
      id: `title-${n}`, kind: 'title', number: n, title: str(at, 'name', o.name, /\S/),
      type: null, abstract: null, publication_date: null, agencies: null, agency_slugs: null, citation: null,
      html_url: o.reserved ? null : `https://www.ecfr.gov/current/title-${n}`, pdf_url: null,
      latest_amended_on: optStr(at, 'latest_amended_on', o.latest_amended_on, DATE),
      latest_issue_date: optStr(at, 'latest_issue_date', o.latest_issue_date, DATE),
      up_to_date_as_of: optStr(at, 'up_to_date_as_of', o.up_to_date_as_of, DATE),
      reserved: o.reserved, processing_in_progress: processing,
    };
  });
}

const FR_RESULT_KEYS = [...FR_FIELDS, 'public_inspection_pdf_url', 'excerpts'];
const FR_AGENCY_KEYS = ['raw_name', 'name', 'id', 'url', 'json_url', 'parent_id', 'slug'];

function documentRecords(pages: unknown): LawRecord[] {
  const out = new Map<string, LawRecord>();
  arr('Federal Register documents', '(pages)', pages).forEach((p, pi) => {
    const where = `Federal Register page ${pi}`;
    const page = obj(where, '(response)', p);
    if (typeof page.count !== 'number') fail(where, 'count', page.count);
    // An empty result set may come without `results`.
    const results = page.results === undefined && page.count === 0 ? [] : arr(where, 'results', page.results);
    results.forEach((r, ri) => {
      const at = `${where} results[${ri}]`;
      const o = obj(at, '(document)', r);
      onlyKeys(at, o, FR_RESULT_KEYS);
      const id = str(at, 'document_number', o.document_number, /^[A-Za-z0-9][A-Za-z0-9-]*$/);
      const names: string[] = [];
      const slugs: string[] = [];
      arr(at, 'agencies', o.agencies).forEach((a, ai) => {
        const ag = obj(`${at} agencies[${ai}]`, '(agency)', a);
        onlyKeys(`${at} agencies[${ai}]`, ag, FR_AGENCY_KEYS);
        const name = ag.name == null ? str(`${at} agencies[${ai}]`, 'raw_name', ag.raw_name, /\S/) : str(`${at} agencies[${ai}]`, 'name', ag.name, /\S/);
        const slug = ag.slug == null ? null : str(`${at} agencies[${ai}]`, 'slug', ag.slug, /^[a-z0-9][a-z0-9-]*$/);
        if (!names.includes(name)) names.push(name);
        if (slug && !slugs.includes(slug)) slugs.push(slug);
      });
      const record: LawRecord = {
        id, kind: 'document', number: null, title: str(at, 'title', o.title, /\S/), type: str(at, 'type', o.type, /\S/),
        abstract: optStr(at, 'abstract', o.abstract ?? null), publication_date: str(at, 'publication_date', o.publication_date, DATE),
        agencies: names, agency_slugs: slugs, citation: optStr(at, 'citation', o.citation ?? null, /^\d+ FR \d+$/),
        html_url: str(at, 'html_url', o.html_url, /^https:\/\/www\.federalregister\.gov\//),
        pdf_url: optStr(at, 'pdf_url', o.pdf_url ?? null, /^https:\/\//),
        latest_amended_on: null, latest_issue_date: null, up_to_date_as_of: null, reserved: null, processing_in_progress: null,
      };
      // A document can reappear on a later page if the listing shifted while paging; keep the first.
      if (!out.has(id)) out.set(id, record);
    });
  });
  return [...out.values()];
}

export function normaliseLaws(raw: Record<string, unknown>): LawRecord[] {
  // The live year's pages first, then the saved search page: a document in both keeps its live copy.
  const pages = [...(raw.documents === undefined ? [] : arr('Federal Register documents', '(pages)', raw.documents)),
    ...(raw.documents_page === undefined ? [] : [raw.documents_page])];
  return [...titleRecords(raw.titles), ...(pages.length ? documentRecords(pages) : [])];
}

/** eCFR meta.date (YYYY-MM-DD, the date the titles are current to) as midnight UTC. */
export function lawsUpstreamTime(raw: Record<string, unknown>): string | null {
  const meta = (raw.titles as { meta?: { date?: unknown } } | undefined)?.meta;
  return typeof meta?.date === 'string' && DATE.test(meta.date) ? `${meta.date}T00:00:00Z` : null;
}

const nullable = (type: string, description: string, extra: Record<string, unknown> = {}) => ({ type: [type, 'null'], description, ...extra });
const names = (description: string) => ({ type: ['array', 'null'], items: { type: 'string' }, description });
const properties = {
  id: { type: 'string', description: 'Title: title-<number> (e.g. title-40). Document: FR document number (e.g. 2025-01234)' },
  kind: { type: 'string', enum: ['title', 'document'] },
  number: nullable('integer', 'CFR title number; null for documents'),
  title: { type: 'string', description: 'CFR title name, or the document\'s title' },
  type: nullable('string', 'Document type: Rule, Proposed Rule, Notice, Presidential Document; null for titles'),
  abstract: nullable('string', 'Document abstract (null when it has none)'),
  publication_date: nullable('string', 'Document publication date (YYYY-MM-DD)', { pattern: DATE.source }),
  agencies: names('Document: issuing agencies\' names; null for titles'),
  agency_slugs: names('Document: FederalRegister.gov agency slugs, e.g. environmental-protection-agency; null for titles'),
  citation: nullable('string', 'Document: Federal Register citation, e.g. "90 FR 1234"'),
  html_url: nullable('string', 'Document page on FederalRegister.gov, or the title\'s current eCFR page'),
  pdf_url: nullable('string', 'Document PDF (govinfo.gov)'),
  latest_amended_on: nullable('string', 'Title: date of the latest amendment', { pattern: DATE.source }),
  latest_issue_date: nullable('string', 'Title: latest issue date', { pattern: DATE.source }),
  up_to_date_as_of: nullable('string', 'Title: date the eCFR text is current to', { pattern: DATE.source }),
  reserved: nullable('boolean', 'Title: reserved (no content); null for documents'),
  processing_in_progress: nullable('boolean', 'Title: eCFR is reprocessing it; null for documents'),
};

const PD = { spdx: 'LicenseRef-US-Gov-PD', name: 'Public domain (US government work, 17 USC 105)', url: 'https://www.usa.gov/government-copyright' };

export default defineSource<LawRecord>({
  id: 'laws-regulations',
  title: 'Laws and regulations',
  description: 'Titles of the Code of Federal Regulations as currently codified (eCFR) and Federal Register documents '
    + '(rules, proposed rules, notices, presidential documents): the current year\'s where the network allows, and one saved '
    + 'page of the documents API.',
  coverage: 'eCFR titles as of the titles file\'s date. Federal Register documents: with network, every document of the current '
    + 'year; in every build, the 20 documents of one saved page of the documents API (the State Department\'s notices on gifts '
    + 'to federal employees from foreign governments, 2008-12-22 to 2025-01-03: 20 of that search\'s 33, its second page was '
    + 'never saved). Search finds titles and documents alike.',
  contractVersion: '0.1.0',
  provenance: [
    {
      name: 'eCFR API (versioner titles)', url: 'https://www.ecfr.gov/developers/documentation/api/v1', licence: PD,
      attribution: 'Electronic Code of Federal Regulations, Office of the Federal Register (NARA) and Government Publishing Office; '
        + 'the eCFR is an editorial compilation, not an official legal edition of the CFR',
    },
    {
      name: 'FederalRegister.gov API v1 (documents)', url: 'https://www.federalregister.gov/developers/documentation/api/v1', licence: PD,
      attribution: 'FederalRegister.gov, Office of the Federal Register (NARA) and Government Publishing Office; '
        + 'not an official legal edition of the Federal Register (the official edition is on govinfo.gov)',
    },
  ],
  inputs: {
    titles: { kind: 'live', url: 'https://www.ecfr.gov/api/versioner/v1/titles.json', format: 'json' },
    documents: {
      kind: 'live', url: FR_ENDPOINT, format: 'json', optional: true, pages: (get) => federalRegisterPages(get),
      missingNote: 'The current year\'s documents come from the live API only (no copy is mirrored); the saved search page\'s documents are served meanwhile',
    },
    documents_page: {
      kind: 'url', url: FR_GIFTS_PAGE, sha256: '35e082c41cad1a2ff6c75638a9ba32275e1cfca0898a4b055efe1b2f2677347a', format: 'json',
      optional: true, copies: [FR_GIFTS_COPY],
    },
  },
  schema: { type: 'object', properties, required: Object.keys(properties), additionalProperties: false },
  search: { fields: ['title', 'abstract', 'agencies'], boost: { title: 2 } },
  filters: [
    { param: 'kind', field: 'kind', description: 'title or document' },
    { param: 'type', field: 'type', description: 'Document type, e.g. Rule, Proposed Rule, Notice, Presidential Document', caseInsensitive: true },
    { param: 'agency', field: 'agency_slugs', description: 'FederalRegister.gov agency slug, e.g. environmental-protection-agency', caseInsensitive: true },
    ...dateBounds('publication_date', 'Publication date.'),
  ],
  views: [
    { segment: 'documents', summary: 'list current-year federal register documents', filter: { kind: 'document' } },
    { segment: 'titles', summary: 'list current codified-regulation titles', filter: { kind: 'title' } },
  ],
  pathParamDescription: 'title-<number> for a CFR title (e.g. title-40), or a Federal Register document number.',
  // Titles by number, then documents newest first.
  order: (a, b) => (a.kind !== b.kind ? (a.kind === 'title' ? -1 : 1)
    : a.kind === 'title' ? a.number! - b.number! : (b.publication_date ?? '').localeCompare(a.publication_date ?? '')),
  upstreamTime: lawsUpstreamTime,
  // eCFR and the Federal Register publish every business day. Stale past the second figure (meta.stale).
  refresh: { expectedSeconds: 86_400, staleAfterSeconds: 259_200 },
  normalise: normaliseLaws,
});
