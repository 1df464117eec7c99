/**
 * public-companies: SEC EDGAR filers (companies with a ticker, plus those whose
 * submissions are fetched) and filings, as ONE dataset of two record kinds.
 *
 * Upstreams (SEC; fair-access policy: a declared User-Agent, ≤10 requests/s — the fetch
 * step sends the User-Agent; this source makes at most 4 + SUBMISSION_CIKS requests):
 * - https://www.sec.gov/files/company_tickers.json (live): {"0": {cik_str, ticker, title}, …},
 *   one entry per ticker, in the SEC's own order (largest companies first).
 * - https://www.sec.gov/files/company_tickers_exchange.json (live): {fields: [cik, name,
 *   ticker, exchange], data: [[…], …]}; exchange may be null. The two files are separate
 *   snapshots and differ slightly (each has CIKs and tickers the other lacks): the union is served.
 * - https://data.sec.gov/submissions/CIK##########.json (live, optional, one input per CIK
 *   in SUBMISSION_CIKS): filer profile + `filings.recent` as columnar arrays. Fetching it
 *   for all ~8,000 ticker CIKs would be ~8,000 requests (≈15 min at the SEC's rate limit)
 *   or the multi-GB bulk submissions.zip, so only a curated list is fetched. The mirror
 *   holds pretty-printed copies at the same paths (same keys and values; no variants).
 * - EDGAR daily indexes master.20200103.idx (pipe-delimited) and company.20200102.idx
 *   (fixed-width), fixed files pinned by sha256 (parsers in edgar.ts).
 *
 * Records: a filer's id is its 10-digit zero-padded CIK (aliases: the unpadded CIK and
 * its tickers); name = submissions name, else company_tickers title, else the exchange
 * file's name. A filing's id is its accession number (alias: without dashes). The daily
 * index lists a filing once per entity it concerns (filer, issuer, reporting owner,
 * subject company; 3,231 of master.20200103's accessions appear under several CIKs) with
 * no role, so `ciks` holds them all and `cik`/`name` are those of the lowest CIK (for
 * Forms 3/4/5 usually the issuer, as people get newer, larger CIKs). A filing in both a
 * submissions document and an index takes its fields from submissions. Not served:
 * submissions' addresses, phone, EIN, flags and per-filing act/file/film numbers, sizes,
 * XBRL flags; `filings.files` (older submissions pages) is not fetched.
 *
 * upstreamTime: null. The ticker files and submissions carry no generation time; the
 * indexes' "Last Data Received" dates describe only those two fixed 2020 files, and using
 * them would make every response of this mostly live dataset look six years old.
 */
import { dateBounds, defineSource } from '../contract.ts';
import { check, padCik, parseCompanyIndex, parseMasterIndex, parseSubmissions, type FilingRow, type Submissions } from './edgar.ts';

/** CIKs whose submissions are fetched: Bridgewater Associates (no ticker) and BlackRock, Inc. */
export const SUBMISSION_CIKS = ['0001350694', '0002012383'] as const;
const submissionsInput = (cik: string) => `submissions_CIK${cik}`;

export interface FormerName { name: string; from: string | null; to: string | null }

export interface CompanyRecord {
  id: string; kind: 'filer' | 'filing'; cik: string; ciks: string[]; name: string;
  tickers: string[] | null; exchanges: string[] | null; sic: string | null; sic_description: string | null;
  state_of_incorporation: string | null; fiscal_year_end: string | null; former_names: FormerName[] | null;
  form: string | null; filing_date: string | null; report_date: string | null; primary_document: string | null;
  url: string; document_url: string | null;
}

const TICKER = /^[A-Z0-9][A-Z0-9.\-]*$/;
const F_TICKERS = 'company_tickers.json';
const F_EXCHANGE = 'company_tickers_exchange.json';

interface TickerRow { cik: string; name: string; ticker: string; exchange: string | null }

function tickerRows(raw: unknown): TickerRow[] {
  return Object.entries(check.obj(F_TICKERS, '(document)', raw)).map(([k, v]) => {
    const at = `${F_TICKERS} entry "${k}"`;
    if (!/^\d+$/.test(k)) check.fail(at, '(key)', k);
    const o = check.obj(at, '(entry)', v);
    for (const key of Object.keys(o)) if (!['cik_str', 'ticker', 'title'].includes(key)) check.fail(at, key, o[key]);
    return { cik: padCik(at, 'cik_str', o.cik_str), name: check.str(at, 'title', o.title, /\S/), ticker: check.str(at, 'ticker', o.ticker, TICKER), exchange: null };
  });
}

function exchangeRows(raw: unknown): TickerRow[] {
  const d = check.obj(F_EXCHANGE, '(document)', raw);
  if (JSON.stringify(d.fields) !== '["cik","name","ticker","exchange"]') check.fail(F_EXCHANGE, 'fields', d.fields);
  return check.arr(F_EXCHANGE, 'data', d.data).map((r, i) => {
    const at = `${F_EXCHANGE} data[${i}]`;
    const row = check.arr(at, '(row)', r);
    if (row.length !== 4) check.fail(at, '(row length)', row);
    return {
      cik: padCik(at, 'cik', row[0]),
      name: check.str(at, 'name', row[1], /\S/),
      ticker: check.str(at, 'ticker', row[2], TICKER),
      exchange: row[3] === null ? null : check.str(at, 'exchange', row[3], /^\S(.*\S)?$/),
    };
  });
}

const pushNew = (list: string[], v: string | null) => { if (v !== null && !list.includes(v)) list.push(v); };
const unpadded = (cik: string) => cik.replace(/^0+/, '');
const browseUrl = (cik: string) => `https://www.sec.gov/cgi-bin/browse-edgar?action=getcompany&CIK=${cik}`;

function filers(rows: TickerRow[], subs: Submissions[]): CompanyRecord[] {
  const byCik = new Map<string, { name: string; tickers: string[]; exchanges: string[] }>();
  for (const r of rows) {
    const f = byCik.get(r.cik) ?? byCik.set(r.cik, { name: r.name, tickers: [], exchanges: [] }).get(r.cik)!;
    pushNew(f.tickers, r.ticker);
    pushNew(f.exchanges, r.exchange);
  }
  const profile = new Map(subs.map((s) => [s.cik, s]));
  for (const s of subs) {
    const f = byCik.get(s.cik) ?? byCik.set(s.cik, { name: s.name, tickers: [], exchanges: [] }).get(s.cik)!;
    f.name = s.name;
    for (const t of s.tickers) pushNew(f.tickers, t);
    for (const x of s.exchanges) pushNew(f.exchanges, x);
  }
  return [...byCik].map(([cik, f]) => {
    const s = profile.get(cik);
    return {
      id: cik, kind: 'filer', cik, ciks: [cik], name: f.name, tickers: f.tickers, exchanges: f.exchanges,
      sic: s?.sic ?? null, sic_description: s?.sic_description ?? null, state_of_incorporation: s?.state_of_incorporation ?? null,
      fiscal_year_end: s?.fiscal_year_end ?? null, former_names: s ? s.former_names : null,
      form: null, filing_date: null, report_date: null, primary_document: null, url: browseUrl(cik), document_url: null,
    };
  });
}

/** `ranked` lists filing rows by source priority (submissions, then indexes); see the header. */
function filings(ranked: { rank: number; row: FilingRow }[]): CompanyRecord[] {
  const byAcc = new Map<string, { rank: number; row: FilingRow; ciks: Set<string> }>();
  for (const { rank, row } of ranked) {
    const seen = byAcc.get(row.accession);
    if (!seen) byAcc.set(row.accession, { rank, row, ciks: new Set([row.cik]) });
    else {
      seen.ciks.add(row.cik);
      if (rank === seen.rank && row.cik < seen.row.cik) seen.row = row;
    }
  }
  return [...byAcc.values()].map(({ row, ciks }) => {
    const folder = `https://www.sec.gov/Archives/edgar/data/${unpadded(row.cik)}`;
    return {
      id: row.accession, kind: 'filing', cik: row.cik, ciks: [...ciks].sort(), name: row.name, tickers: null, exchanges: null,
      sic: null, sic_description: null, state_of_incorporation: null, fiscal_year_end: null, former_names: null,
      form: row.form, filing_date: row.filing_date, report_date: row.report_date, primary_document: row.primary_document,
      url: `${folder}/${row.accession}.txt`,
      document_url: row.primary_document === null ? null
        : `${folder}/${row.accession.replace(/-/g, '')}/${row.primary_document.split('/').map(encodeURIComponent).join('/')}`,
    };
  });
}

export function normaliseCompanies(raw: Record<string, unknown>): CompanyRecord[] {
  const subs = SUBMISSION_CIKS.filter((c) => raw[submissionsInput(c)] !== undefined)
    .map((c) => parseSubmissions(`submissions CIK${c}.json`, c, raw[submissionsInput(c)]));
  const ranked = [
    ...subs.flatMap((s) => s.filings.map((row) => ({ rank: 0, row }))),
    ...parseMasterIndex('master.20200103.idx', raw.masterIndex).map((row) => ({ rank: 1, row })),
    ...parseCompanyIndex('company.20200102.idx', raw.companyIndex).map((row) => ({ rank: 1, row })),
  ];
  return [...filers([...tickerRows(raw.tickers), ...exchangeRows(raw.tickersExchange)], subs), ...filings(ranked)];
}

const nullable = (type: string, description: string) => ({ type: [type, 'null'], description });
const stringList = (description: string) => ({ type: ['array', 'null'], items: { type: 'string' }, description });
const CIK = '^\\d{10}$';
const DATE = '^\\d{4}-\\d{2}-\\d{2}$';

const properties = {
  id: { type: 'string', description: 'Filer: 10-digit zero-padded CIK (e.g. 0000320193). Filing: accession number (e.g. 0001564590-20-000156)' },
  kind: { type: 'string', enum: ['filer', 'filing'] },
  cik: { type: 'string', pattern: CIK, description: 'Filer: its CIK. Filing: the lowest CIK it is listed under' },
  ciks: { type: 'array', items: { type: 'string', pattern: CIK }, description: 'Filer: its CIK. Filing: every CIK it is listed under (filer, issuer, reporting owner, subject company)' },
  name: { type: 'string', description: 'Filer: current EDGAR name. Filing: name of the entity at `cik` as EDGAR listed it' },
  tickers: stringList('Filer: trading symbols, primary first ([] when none); null for filings'),
  exchanges: stringList('Filer: exchanges its tickers trade on (Nasdaq, NYSE, OTC, CBOE); null for filings'),
  sic: nullable('string', 'Standard Industrial Classification code (from submissions; null when not fetched or none)'),
  sic_description: nullable('string', 'SIC code description'),
  state_of_incorporation: nullable('string', 'State or country code of incorporation, e.g. DE'),
  fiscal_year_end: nullable('string', 'Fiscal year end as MMDD, e.g. 1231'),
  former_names: {
    type: ['array', 'null'],
    description: 'Earlier EDGAR names with the upstream\'s from/to times (from submissions); null when not fetched',
    items: {
      type: 'object', additionalProperties: false, required: ['name', 'from', 'to'],
      properties: { name: { type: 'string' }, from: { type: ['string', 'null'] }, to: { type: ['string', 'null'] } },
    },
  },
  form: nullable('string', 'Filing: EDGAR form type, e.g. 10-K, 8-K, 4, SC 13G/A'),
  filing_date: { type: ['string', 'null'], pattern: DATE, description: 'Filing: date filed (YYYY-MM-DD)' },
  report_date: { type: ['string', 'null'], pattern: DATE, description: 'Filing: period of report (submissions only; null when none or from an index)' },
  primary_document: nullable('string', 'Filing: primary document file name (submissions only)'),
  url: { type: 'string', description: 'Filer: EDGAR company filing list. Filing: complete submission text file in the EDGAR archive' },
  document_url: nullable('string', 'Filing: the primary document in the EDGAR archive; null when unknown'),
};

const SEC_TERMS = {
  spdx: 'LicenseRef-US-Gov-PD',
  name: 'Public domain (US government work, 17 USC 105); SEC fair-access policy applies to automated access',
  url: 'https://www.sec.gov/os/accessing-edgar-data',
};
const FAIR_ACCESS = 'U.S. Securities and Exchange Commission, EDGAR; retrieved under the SEC fair-access policy (declared User-Agent, at most 10 requests per second)';

export default defineSource<CompanyRecord>({
  id: 'public-companies',
  title: 'Public companies and filings',
  description: 'SEC EDGAR filers (CIK, name, tickers, exchanges, and for selected filers industry and incorporation) '
    + 'and filings (form, date, archive links) from the SEC ticker files, submissions API and EDGAR daily indexes.',
  contractVersion: '0.1.0',
  provenance: [
    { name: 'SEC company tickers (company_tickers.json, company_tickers_exchange.json)', url: 'https://www.sec.gov/files/company_tickers.json', licence: SEC_TERMS, attribution: FAIR_ACCESS },
    { name: 'SEC EDGAR submissions API (data.sec.gov)', url: 'https://www.sec.gov/search-filings/edgar-application-programming-interfaces', licence: SEC_TERMS, attribution: FAIR_ACCESS },
    { name: 'SEC EDGAR daily indexes', url: 'https://www.sec.gov/Archives/edgar/daily-index/', licence: SEC_TERMS, attribution: FAIR_ACCESS },
  ],
  inputs: {
    tickers: { kind: 'live', url: 'https://www.sec.gov/files/company_tickers.json', format: 'json' },
    tickersExchange: { kind: 'live', url: 'https://www.sec.gov/files/company_tickers_exchange.json', format: 'json' },
    masterIndex: {
      kind: 'url', url: 'https://www.sec.gov/Archives/edgar/daily-index/2020/QTR1/master.20200103.idx',
      sha256: '73c1369c4c7c8e27e750604ff1ee514e4e2148beb4fcaf0c0a013b9e31e3d8b9', format: 'text',
    },
    companyIndex: {
      kind: 'url', url: 'https://www.sec.gov/Archives/edgar/daily-index/2020/QTR1/company.20200102.idx',
      sha256: '933a83f842e345bcda791f4538b1759c92dddec100143850e612674ef7f9ff1a', format: 'text',
    },
    ...Object.fromEntries(SUBMISSION_CIKS.map((c) => [submissionsInput(c), {
      kind: 'live' as const, url: `https://data.sec.gov/submissions/CIK${c}.json`, format: 'json' as const, optional: true,
    }])),
  },
  schema: { type: 'object', properties, required: Object.keys(properties), additionalProperties: false },
  search: { fields: ['name', 'tickers', 'cik'], boost: { tickers: 3, cik: 2 }, names: [{ field: 'tickers' }] },
  filters: [
    { param: 'kind', field: 'kind', description: 'filer or filing' },
    // EDGAR pads CIKs to 10 digits; people type them as numbers (320193).
    { param: 'cik', field: 'ciks', description: '10-digit zero-padded CIK, e.g. 0000320193 (or unpadded, 320193): the filer and the filings listed under it', normalise: (v) => (/^\d{1,10}$/.test(v) ? v.padStart(10, '0') : v) },
    { param: 'ticker', field: 'tickers', description: 'Trading symbol, e.g. AAPL', caseInsensitive: true },
    { param: 'exchange', field: 'exchanges', description: 'Exchange: Nasdaq, NYSE, OTC or CBOE', caseInsensitive: true },
    { param: 'form', field: 'form', description: 'EDGAR form type, e.g. 10-K', caseInsensitive: true },
    ...dateBounds('filing_date', 'Filing date.'),
  ],
  views: [
    { segment: 'filers', summary: 'list filer profiles', filter: { kind: 'filer' } },
    { segment: 'filings', summary: 'list submission records', filter: { kind: 'filing' } },
  ],
  aliases: (r) => (r.kind === 'filer' ? [unpadded(r.cik), ...(r.tickers ?? [])] : [r.id.replace(/-/g, '')]),
  pathParamDescription: 'Filer: CIK (10-digit, or unpadded) or ticker. Filing: accession number, with or without dashes.',
  // Filers first (by CIK), then filings newest first.
  order: (a, b) => (a.kind === b.kind ? (b.filing_date ?? '').localeCompare(a.filing_date ?? '') : a.kind === 'filer' ? -1 : 1),
  upstreamTime: () => null,
  // EDGAR indexes and ticker files change every business day. Stale past the second figure (meta.stale).
  refresh: { expectedSeconds: 86_400, staleAfterSeconds: 259_200 },
  normalise: normaliseCompanies,
});
