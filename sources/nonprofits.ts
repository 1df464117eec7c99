/**
 * nonprofit-organizations: the IRS Exempt Organizations Business Master File Extract
 * (EO BMF), https://www.irs.gov/charities-non-profits/exempt-organizations-business-master-file-extract-eo-bmf
 * (field dictionary: https://www.irs.gov/pub/irs-soi/eo-info.pdf).
 *
 * Upstream: a cumulative monthly extract, published as one CSV per state
 * (https://www.irs.gov/pub/irs-soi/eo_<st>.csv): the 50 states, DC, PR and eo_xx.csv
 * ("International": APO/FPO and foreign addresses), which together partition the file
 * (the region files eo1–eo4.csv hold the same rows again, so they are not used). About
 * 1.9M rows in all, so the build streams it (normaliseStream); `normalise` does the same
 * with whole-file reads for tests and small inputs, through the same row function.
 * Each file: a header row of 28 columns, then rows sorted by EIN (checked), quoted
 * where a value holds a comma, CRLF in the mirrored copies. No file carries a date.
 *
 * Decisions: cells are trimmed and an empty cell is null. EIN is the id (9 digits kept
 * as a string, leading zeros matter). ICO's "% " care-of marker is removed. ZIP "19809-0000"
 * becomes zip "19809" (so ?zip= takes the 5-digit code) plus zip4, which is null when
 * the IRS filler "0000" stands there; eo_xx.csv may hold foreign postal codes, kept
 * verbatim in zip. RULING and TAX_PERIOD (YYYYMM) become "YYYY-MM"; RULING "000000"
 * (no ruling date on file) is null. Amounts are whole dollars (possibly negative).
 * subsection_label is derived only where the IRS's code says it outright: 01–29 are
 * the paragraphs of 501(c) ("03" = 501(c)(3)) and 92 is 4947(a)(1); other codes (e.g. 91)
 * get null rather than a guess. Dropped: ASSET_CD and INCOME_CD (size brackets of the
 * amounts that are served), FILING_REQ_CD, PF_FILING_REQ_CD and ACCT_PD.
 *
 * Mirror: www.irs.gov/pub/irs-soi/eo_{de,ri,vt}.csv are these files as of 2020-07,
 * byte-identical to what the IRS served then; every other state is optional and absent.
 */
import fs from 'node:fs';
import { parse } from 'csv-parse';
import { parse as parseSync } from 'csv-parse/sync';
import { defineSource, type InputSpec, type RawInputs } from './contract.ts';

export interface NonprofitRecord {
  id: string; ein: string; name: string; care_of: string | null; street: string | null;
  city: string | null; state: string | null; zip: string | null; zip4: string | null;
  group: string; subsection: string; subsection_label: string | null; affiliation: string;
  classification: string; ruling: string | null; deductibility: string; foundation: string;
  activity: string; organization: string; status: string; tax_period: string | null;
  asset_amount: number | null; income_amount: number | null; revenue_amount: number | null;
  ntee_code: string | null; ntee_major: string | null; sort_name: string | null;
}

const DATASET = 'nonprofit-organizations';

/** Per-area files the IRS publishes (lower case, as in the file names). */
export const AREAS = [
  'ak', 'al', 'ar', 'az', 'ca', 'co', 'ct', 'dc', 'de', 'fl', 'ga', 'hi', 'ia', 'id', 'il', 'in', 'ks', 'ky',
  'la', 'ma', 'md', 'me', 'mi', 'mn', 'mo', 'ms', 'mt', 'nc', 'nd', 'ne', 'nh', 'nj', 'nm', 'nv', 'ny', 'oh',
  'ok', 'or', 'pa', 'pr', 'ri', 'sc', 'sd', 'tn', 'tx', 'ut', 'va', 'vt', 'wa', 'wi', 'wv', 'wy', 'xx',
] as const;
const INPUT_NAMES = AREAS.map((a) => `eo_${a}`).sort();

export const COLUMNS = ['EIN', 'NAME', 'ICO', 'STREET', 'CITY', 'STATE', 'ZIP', 'GROUP', 'SUBSECTION', 'AFFILIATION',
  'CLASSIFICATION', 'RULING', 'DEDUCTIBILITY', 'FOUNDATION', 'ACTIVITY', 'ORGANIZATION', 'STATUS', 'TAX_PERIOD',
  'ASSET_CD', 'INCOME_CD', 'FILING_REQ_CD', 'PF_FILING_REQ_CD', 'ACCT_PD', 'ASSET_AMT', 'INCOME_AMT', 'REVENUE_AMT',
  'NTEE_CD', 'SORT_NAME'] as const;
const COL = Object.fromEntries(COLUMNS.map((c, i) => [c, i])) as Record<(typeof COLUMNS)[number], number>;

// Strict column count is checked per row by us (naming the row), not by csv-parse.
const CSV_OPTIONS = { bom: true, relax_column_count: true } as const;

function fail(where: string, field: string, value: unknown): never {
  throw new Error(`${DATASET}: ${where} field ${field}: unexpected ${JSON.stringify(value)?.slice(0, 200)}`);
}

/** "YYYYMM" → "YYYY-MM" (month 01–12), else throws. */
function yearMonth(where: string, field: string, v: string): string {
  const m = /^(\d{4})(\d{2})$/.exec(v);
  if (!m || +m[2] < 1 || +m[2] > 12) return fail(where, field, v);
  return `${m[1]}-${m[2]}`;
}

export function subsectionLabel(code: string): string | null {
  const n = Number(code);
  if (n >= 1 && n <= 29) return `501(c)(${n})`;
  return code === '92' ? '4947(a)(1)' : null;
}

/**
 * Reads one file's parsed rows in order: checks the header, then turns each row into a
 * record. The sync and the streaming path both drive it, so their output is identical.
 */
class FileReader {
  private rowNo = 0;
  private lastEin = '';
  constructor(private readonly file: string, private readonly area: string) {}

  next(cells: string[]): NonprofitRecord | null {
    if (this.rowNo++ === 0) {
      const bad = COLUMNS.findIndex((c, i) => cells[i] !== c);
      if (bad >= 0 || cells.length !== COLUMNS.length) fail(`${this.file} header`, COLUMNS[bad] ?? `(column ${cells.length})`, cells.join(','));
      return null;
    }
    const record = this.record(cells.map((c) => c.trim()));
    // The IRS sorts each file by EIN; out of order or repeated means a damaged file (and a duplicate id).
    if (record.ein <= this.lastEin) fail(`${this.file} row ${this.rowNo - 1} (EIN ${record.ein})`, 'EIN (not ascending)', this.lastEin);
    this.lastEin = record.ein;
    return record;
  }

  /** At end of file: an empty file (no header) is an error, not zero organizations. */
  end() {
    if (this.rowNo === 0) fail(this.file, '(header)', '(empty file)');
  }

  private record(c: string[]): NonprofitRecord {
    let at = `${this.file} row ${this.rowNo - 1}`;
    if (c.length !== COLUMNS.length) fail(at, '(row)', `${c.length} columns`);
    const ein = c[COL.EIN];
    if (!/^\d{9}$/.test(ein)) fail(at, 'EIN', ein);
    at += ` (EIN ${ein})`;
    c.forEach((v, i) => { if (v.includes('\uFFFD')) fail(at, COLUMNS[i], v); }); // bytes that were not UTF-8
    const get = (col: (typeof COLUMNS)[number], pattern: RegExp): string => (pattern.test(c[COL[col]]) ? c[COL[col]] : fail(at, col, c[COL[col]]));
    const opt = (col: (typeof COLUMNS)[number], pattern = /./): string | null => (c[COL[col]] === '' ? null : get(col, pattern));
    const amount = (col: 'ASSET_AMT' | 'INCOME_AMT' | 'REVENUE_AMT'): number | null => {
      const v = opt(col, /^-?\d{1,15}$/);
      return v === null ? null : Number(v);
    };
    const state = opt('STATE', /^[A-Z]{2}$/);
    if (this.area !== 'xx' && state !== this.area.toUpperCase()) fail(at, 'STATE (file is by state)', state);
    let zip = opt('ZIP'), zip4: string | null = null;
    const us = zip === null ? null : /^(\d{5})(?:-(\d{4}))?$/.exec(zip);
    if (us) [zip, zip4] = [us[1], us[2] && us[2] !== '0000' ? us[2] : null];
    else if (zip !== null && this.area !== 'xx') fail(at, 'ZIP', zip);
    const subsection = get('SUBSECTION', /^\d{2}$/);
    const ruling = get('RULING', /^\d{6}$/);
    const ntee = opt('NTEE_CD', /^[A-Z][0-9A-Z]{1,4}$/);
    const careOf = c[COL.ICO].replace(/^%\s*/, '');
    const digits = /^\d+$/;
    return {
      id: ein,
      ein,
      name: get('NAME', /\S/),
      care_of: careOf === '' ? null : careOf,
      street: opt('STREET'),
      city: opt('CITY'),
      state,
      zip,
      zip4,
      group: get('GROUP', digits),
      subsection,
      subsection_label: subsectionLabel(subsection),
      affiliation: get('AFFILIATION', digits),
      classification: get('CLASSIFICATION', digits),
      ruling: ruling === '000000' ? null : yearMonth(at, 'RULING', ruling),
      deductibility: get('DEDUCTIBILITY', digits),
      foundation: get('FOUNDATION', digits),
      activity: get('ACTIVITY', digits),
      organization: get('ORGANIZATION', digits),
      status: get('STATUS', digits),
      tax_period: c[COL.TAX_PERIOD] === '' ? null : yearMonth(at, 'TAX_PERIOD', c[COL.TAX_PERIOD]),
      asset_amount: amount('ASSET_AMT'),
      income_amount: amount('INCOME_AMT'),
      revenue_amount: amount('REVENUE_AMT'),
      ntee_code: ntee,
      ntee_major: ntee === null ? null : ntee[0],
      sort_name: opt('SORT_NAME'),
    };
  }
}

/** The present inputs in sorted input-name order, as [input name, absolute path]. */
function presentFiles(raw: RawInputs): [string, string][] {
  const files = INPUT_NAMES.filter((n) => raw[n] !== undefined).map((n): [string, string] => {
    const p = raw[n];
    return typeof p === 'string' ? [n, p] : fail(`input ${n}`, '(path)', p);
  });
  if (files.length === 0) throw new Error(`${DATASET}: none of the IRS EO BMF files (${INPUT_NAMES.join(', ')}) is present`);
  return files;
}

export function normaliseNonprofits(raw: RawInputs): NonprofitRecord[] {
  const out: NonprofitRecord[] = [];
  for (const [name, p] of presentFiles(raw)) {
    const reader = new FileReader(`${name}.csv`, name.slice(3));
    let rows: string[][];
    try {
      rows = parseSync(fs.readFileSync(p, 'utf8'), CSV_OPTIONS) as string[][];
    } catch (e) {
      throw new Error(`${DATASET}: ${name}.csv: ${(e as Error).message}`);
    }
    for (const cells of rows) {
      const r = reader.next(cells);
      if (r) out.push(r);
    }
    reader.end();
  }
  return out;
}

/** One file at a time, row by row: memory stays flat however large the files are. */
export async function* streamNonprofits(raw: RawInputs): AsyncGenerator<NonprofitRecord> {
  for (const [name, p] of presentFiles(raw)) {
    const reader = new FileReader(`${name}.csv`, name.slice(3));
    // A utf8 read stream decodes across chunk boundaries; the parser gets whole characters.
    const input = fs.createReadStream(p, { encoding: 'utf8' });
    const parser = input.pipe(parse(CSV_OPTIONS));
    input.on('error', (e) => parser.destroy(e));
    try {
      for await (const cells of parser) {
        const r = reader.next(cells as string[]);
        if (r) yield r;
      }
    } catch (e) {
      const msg = (e as Error).message;
      throw msg.startsWith(`${DATASET}:`) ? e : new Error(`${DATASET}: ${name}.csv: ${msg}`);
    } finally {
      input.destroy();
    }
    reader.end();
  }
}

const nullable = (type: string, extra: Record<string, unknown> = {}) => ({ type: [type, 'null'], ...extra });
const code = (description: string) => ({ type: 'string', pattern: '^\\d+$', description });

const properties = {
  id: { type: 'string', pattern: '^\\d{9}$', description: 'EIN (Employer Identification Number), 9 digits' },
  ein: { type: 'string', pattern: '^\\d{9}$', description: 'EIN, 9 digits (same as id)' },
  name: { type: 'string', description: 'Primary name of the organization (IRS NAME)' },
  care_of: nullable('string', { description: 'In care of name (IRS ICO, without its "% " marker)' }),
  street: nullable('string', { description: 'Street address' }),
  city: nullable('string'),
  state: nullable('string', { description: 'Two-letter state or territory code of the address' }),
  zip: nullable('string', { description: '5-digit ZIP code (eo_xx.csv: postal code as given)' }),
  zip4: nullable('string', { description: 'ZIP+4 add-on; null where the IRS has 0000 or none' }),
  group: code('Group exemption number; 0000 = none'),
  subsection: { type: 'string', pattern: '^\\d{2}$', description: 'IRS subsection code, e.g. "03"' },
  subsection_label: nullable('string', { description: 'Code section of the subsection: 501(c)(1)–501(c)(29) for 01–29, 4947(a)(1) for 92; null otherwise' }),
  affiliation: code('Affiliation code (eo-info.pdf), e.g. 3 = independent'),
  classification: code('Classification code(s) within the subsection (eo-info.pdf)'),
  ruling: nullable('string', { pattern: '^\\d{4}-\\d{2}$', description: 'Month of the ruling or determination letter (YYYY-MM); null where the IRS has 000000' }),
  deductibility: code('Deductibility code: 1 = contributions deductible, 2 = not deductible, 4 = deductible by treaty'),
  foundation: code('Foundation code (eo-info.pdf), e.g. 15 = publicly supported organization'),
  activity: code('Up to three 3-digit activity codes (older organizations)'),
  organization: code('Organization code: 1 corporation, 2 trust, 3 co-operative, 4 partnership, 5 association'),
  status: code('Exempt organization status code, e.g. 01 = unconditional exemption'),
  tax_period: nullable('string', { pattern: '^\\d{4}-\\d{2}$', description: 'Tax period of the latest return on file (YYYY-MM)' }),
  asset_amount: nullable('integer', { description: 'Total assets of the latest return, dollars' }),
  income_amount: nullable('integer', { description: 'Income of the latest return, dollars' }),
  revenue_amount: nullable('integer', { description: 'Form 990 revenue of the latest return, dollars' }),
  ntee_code: nullable('string', { description: 'National Taxonomy of Exempt Entities code, e.g. "T20"' }),
  ntee_major: nullable('string', { pattern: '^[A-Z]$', description: 'NTEE major group letter (first letter of ntee_code)' }),
  sort_name: nullable('string', { description: 'Secondary name line (IRS SORT_NAME)' }),
};

const inputs: Record<string, InputSpec> = Object.fromEntries(AREAS.map((a) => [`eo_${a}`, {
  kind: 'live', url: `https://www.irs.gov/pub/irs-soi/eo_${a}.csv`, format: 'path', optional: true,
} satisfies InputSpec]));

export default defineSource<NonprofitRecord>({
  id: DATASET,
  title: 'Tax-exempt organizations (IRS EO BMF)',
  description: 'Organizations recognized as tax-exempt by the IRS, from the monthly Exempt Organizations Business '
    + 'Master File Extract: name, address, subsection (e.g. 501(c)(3)), ruling date, NTEE code and the latest '
    + 'reported assets, income and revenue. Keyed by EIN, e.g. /apis/nonprofit-organizations/010548657.',
  contractVersion: '0.1.0',
  provenance: [{
    name: 'IRS Exempt Organizations Business Master File Extract (EO BMF), per-state CSV files',
    url: 'https://www.irs.gov/charities-non-profits/exempt-organizations-business-master-file-extract-eo-bmf',
    licence: { spdx: 'LicenseRef-US-Gov-PD', name: 'Public domain (US government work, 17 USC 105)', url: 'https://www.usa.gov/government-copyright' },
    attribution: 'Internal Revenue Service, Exempt Organizations Business Master File Extract (SOI Tax Stats); '
      + 'the IRS\'s most recent information, which may lag filings, revocations and address changes',
  }],
  inputs,
  pathParamDescription: 'EIN, 9 digits without a hyphen, e.g. 010548657.',
  schema: { type: 'object', properties, required: Object.keys(properties), additionalProperties: false },
  search: { fields: ['name', 'sort_name', 'ein', 'city'], boost: { name: 3, ein: 2 } },
  filters: [
    { param: 'state', field: 'state', description: 'Two-letter state code of the address, e.g. DE', caseInsensitive: true },
    { param: 'ntee', field: 'ntee_code', description: 'NTEE code, e.g. T20', caseInsensitive: true },
    { param: 'ntee_major', field: 'ntee_major', description: 'NTEE major group letter, e.g. T', caseInsensitive: true },
    { param: 'subsection', field: 'subsection', description: 'IRS subsection code, two digits, e.g. 03 for 501(c)(3) (3 is read as 03)', normalise: (v) => (/^\d$/.test(v) ? `0${v}` : v) },
    { param: 'city', field: 'city', description: 'City of the address, e.g. WILMINGTON', caseInsensitive: true },
    { param: 'zip', field: 'zip', description: '5-digit ZIP code, e.g. 19801' },
  ],
  // The BMF files carry no generation time (no header, no metadata); the IRS page's
  // "last updated" is not part of the data. The fetch step records when it was fetched.
  upstreamTime: () => null,
  // The IRS republishes the EO BMF extract monthly. Stale past the second figure (meta.stale).
  refresh: { expectedSeconds: 2_678_400, staleAfterSeconds: 5_356_800 },
  normalise: normaliseNonprofits,
  normaliseStream: streamNonprofits,
});
