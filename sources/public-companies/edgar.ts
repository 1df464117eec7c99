/**
 * Parsers for the SEC EDGAR files behind public-companies (sources/public-companies.ts):
 * the daily indexes (master.YYYYMMDD.idx, pipe-delimited; company.YYYYMMDD.idx,
 * fixed-width) and the submissions API (data.sec.gov/submissions/CIK##########.json).
 * Each returns plain rows; merging into records is the source's job. Everything that
 * does not have the shape relied on throws naming file, row and field.
 */

export interface Check {
  fail(where: string, field: string, value: unknown): never;
  str(where: string, field: string, value: unknown, pattern?: RegExp): string;
  obj(where: string, field: string, value: unknown): Record<string, unknown>;
  arr(where: string, field: string, value: unknown): unknown[];
}

export const check: Check = {
  fail(where, field, value): never {
    const shown = JSON.stringify(value);
    throw new Error(`public-companies: ${where} field ${field}: unexpected ${shown === undefined ? 'undefined' : shown.slice(0, 200)}`);
  },
  str(where, field, value, pattern) {
    if (typeof value === 'string' && (!pattern || pattern.test(value))) return value;
    return check.fail(where, field, value);
  },
  obj(where, field, value) {
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
    return check.fail(where, field, value);
  },
  arr(where, field, value) {
    if (Array.isArray(value)) return value;
    return check.fail(where, field, value);
  },
};

/** EDGAR's 10-digit, zero-padded CIK from a number or digit string. */
export function padCik(where: string, field: string, value: unknown): string {
  const digits = typeof value === 'number' && Number.isSafeInteger(value) && value > 0 ? String(value) : value;
  if (typeof digits !== 'string' || !/^\d{1,10}$/.test(digits) || /^0+$/.test(digits)) return check.fail(where, field, value);
  return digits.padStart(10, '0');
}

/** "20200103" → "2020-01-03", rejecting impossible dates. */
function isoDate(where: string, field: string, value: string): string {
  const m = /^(\d{4})(\d{2})(\d{2})$/.exec(value);
  const iso = m ? `${m[1]}-${m[2]}-${m[3]}` : '';
  if (!m || Number.isNaN(Date.parse(iso)) || new Date(iso).toISOString().slice(0, 10) !== iso) return check.fail(where, field, value);
  return iso;
}

export interface FilingRow {
  accession: string;
  cik: string;
  name: string;
  form: string;
  filing_date: string;
  report_date: string | null;
  primary_document: string | null;
}

/** "edgar/data/1000045/0001564590-20-000156.txt" names the listing CIK and the accession number. */
const INDEX_FILE = /^edgar\/data\/(\d{1,10})\/(\d{10}-\d{2}-\d{6})\.txt$/;

function indexRow(file: string, row: number, cikText: string, name: string, form: string, date: string, fileName: string): FilingRow {
  const at = `${file} row ${row}`;
  const cik = padCik(at, 'CIK', cikText);
  const m = INDEX_FILE.exec(fileName) ?? check.fail(at, 'File Name', fileName);
  if (padCik(at, 'File Name', m[1]) !== cik) check.fail(at, 'File Name (CIK differs from the CIK column)', fileName);
  return {
    accession: m[2],
    cik,
    name: check.str(at, 'Company Name', name, /\S/),
    form: check.str(at, 'Form Type', form, /^\S(.*\S)?$/),
    filing_date: isoDate(at, 'Date Filed', date),
    report_date: null,
    primary_document: null,
  };
}

/** Lines after the header line matching `header` and the dashes rule below it. */
function bodyLines(file: string, text: unknown, header: RegExp): { lines: string[]; header: string; first: number } {
  const lines = check.str(file, '(file)', text).split(/\r?\n/);
  const h = lines.findIndex((l) => header.test(l));
  if (h < 0) check.fail(file, '(header line)', lines.slice(0, 12).join('\n'));
  let rule = h + 1;
  while (rule < lines.length && !/^-{20,}\s*$/.test(lines[rule])) rule++;
  if (rule > h + 2 || rule >= lines.length) check.fail(file, '(dashes under the header)', lines[h + 1]);
  if (lines.at(-1) === '') lines.pop();
  return { lines, header: lines[h], first: rule + 1 };
}

/** master.YYYYMMDD.idx: `CIK|Company Name|Form Type|Date Filed|File Name` rows after a header. */
export function parseMasterIndex(file: string, text: unknown): FilingRow[] {
  const { lines, first } = bodyLines(file, text, /^CIK\|Company Name\|Form Type\|Date Filed\|File ?[Nn]ame\s*$/);
  const rows: FilingRow[] = [];
  for (let i = first; i < lines.length; i++) {
    const cols = lines[i].split('|');
    if (cols.length !== 5) check.fail(`${file} row ${i + 1}`, '(columns)', lines[i]);
    rows.push(indexRow(file, i + 1, cols[0], cols[1].trim(), cols[2].trim(), cols[3], cols[4].trim()));
  }
  return rows;
}

/**
 * company.YYYYMMDD.idx: fixed-width "Company Name / Form Type / CIK / Date Filed / File
 * Name". The daily file wraps its header line after "CIK", so the name and form columns
 * are located from the header; CIK, date and file name are read from the row's right end
 * (form types contain spaces, e.g. "SC 13D/A", so only the name column is fixed).
 */
export function parseCompanyIndex(file: string, text: unknown): FilingRow[] {
  const { lines, header, first } = bodyLines(file, text, /^Company Name\s+Form Type\s+CIK\b/);
  const formCol = header.indexOf('Form Type');
  const rows: FilingRow[] = [];
  for (let i = first; i < lines.length; i++) {
    const line = lines[i];
    const at = `${file} row ${i + 1}`;
    if (line.length <= formCol || line[formCol - 1] !== ' ') check.fail(at, 'Company Name (overflows its column)', line);
    const m = /^(\S(?:.*\S)?)\s+(\d{1,10})\s+(\d{8})\s+(\S+)\s*$/.exec(line.slice(formCol)) ?? check.fail(at, '(columns)', line);
    rows.push(indexRow(file, i + 1, m[2], line.slice(0, formCol).trim(), m[1], m[3], m[4]));
  }
  return rows;
}

/** The "Last Data Received: Jan  3, 2020" header of a daily index, as 2020-01-03 (or null). */
export function lastDataReceived(text: unknown): string | null {
  if (typeof text !== 'string') return null;
  const m = /^Last Data Received:\s+([A-Z][a-z]{2})\s+(\d{1,2}),\s+(\d{4})\s*$/m.exec(text);
  const month = m ? 'JanFebMarAprMayJunJulAugSepOctNovDec'.indexOf(m[1]) / 3 + 1 : 0;
  return m && month >= 1 ? `${m[3]}-${String(month).padStart(2, '0')}-${m[2].padStart(2, '0')}` : null;
}

export interface Submissions {
  cik: string;
  name: string;
  tickers: string[];
  exchanges: string[];
  sic: string | null;
  sic_description: string | null;
  state_of_incorporation: string | null;
  fiscal_year_end: string | null;
  former_names: { name: string; from: string | null; to: string | null }[];
  filings: FilingRow[];
}

const blankToNull = (s: string | null) => (s === null || s.trim() === '' ? null : s);
const optStr = (where: string, field: string, v: unknown, pattern?: RegExp) => (v === null || v === '' ? null : check.str(where, field, v, pattern));

/**
 * One submissions document. Only `filings.recent` (the latest ≥1,000 filings or one
 * year) is read; `filings.files` names older pages that are not fetched. Of the
 * columnar arrays only those served are read; all must have the same length.
 */
export function parseSubmissions(file: string, expectedCik: string, body: unknown): Submissions {
  const d = check.obj(file, '(document)', body);
  const cik = padCik(file, 'cik', d.cik);
  if (cik !== expectedCik) check.fail(file, 'cik (not the CIK of the URL)', d.cik);
  const tickers = check.arr(file, 'tickers', d.tickers).map((t, i) => check.str(file, `tickers[${i}]`, t, /^[A-Za-z0-9.\-]+$/));
  // The API gives null (or "") for a ticker quoted on no exchange; such entries add nothing.
  const exchanges = check.arr(file, 'exchanges', d.exchanges).map((x, i) => optStr(file, `exchanges[${i}]`, x, /\S/)).filter((x): x is string => x !== null);
  const former = check.arr(file, 'formerNames', d.formerNames).map((f, i) => {
    const o = check.obj(file, `formerNames[${i}]`, f);
    const when = (k: string) => optStr(file, `formerNames[${i}].${k}`, o[k], /^\d{4}-\d{2}-\d{2}(T[\d:.]+Z)?$/);
    return { name: check.str(file, `formerNames[${i}].name`, o.name, /\S/), from: when('from'), to: when('to') };
  });
  const filings = check.obj(file, 'filings', d.filings);
  const recent = check.obj(file, 'filings.recent', filings.recent);
  check.arr(file, 'filings.files', filings.files);
  const cols = ['accessionNumber', 'filingDate', 'reportDate', 'form', 'primaryDocument'] as const;
  const col = Object.fromEntries(cols.map((c) => [c, check.arr(file, `filings.recent.${c}`, recent[c])])) as Record<(typeof cols)[number], unknown[]>;
  const n = col.accessionNumber.length;
  for (const c of cols) if (col[c].length !== n) check.fail(file, `filings.recent.${c} (length ${col[c].length}, not ${n})`, col[c].slice(0, 3));
  const name = check.str(file, 'name', d.name, /\S/);
  const rows: FilingRow[] = [];
  for (let i = 0; i < n; i++) {
    const at = `${file} filings.recent[${i}]`;
    rows.push({
      accession: check.str(at, 'accessionNumber', col.accessionNumber[i], /^\d{10}-\d{2}-\d{6}$/),
      cik,
      name,
      form: check.str(at, 'form', col.form[i], /^\S(.*\S)?$/),
      filing_date: check.str(at, 'filingDate', col.filingDate[i], /^\d{4}-\d{2}-\d{2}$/),
      report_date: optStr(at, 'reportDate', col.reportDate[i], /^\d{4}-\d{2}-\d{2}$/),
      primary_document: optStr(at, 'primaryDocument', col.primaryDocument[i], /^[^/\s](.*\S)?$/),
    });
  }
  return {
    cik,
    name,
    tickers,
    exchanges,
    sic: optStr(file, 'sic', d.sic, /^\d{3,4}$/),
    sic_description: blankToNull(d.sicDescription === null ? null : check.str(file, 'sicDescription', d.sicDescription)),
    state_of_incorporation: optStr(file, 'stateOfIncorporation', d.stateOfIncorporation, /^[A-Z0-9]{2}$/),
    fiscal_year_end: optStr(file, 'fiscalYearEnd', d.fiscalYearEnd, /^(0[1-9]|1[0-2])(0[1-9]|[12]\d|3[01])$/),
    former_names: former,
    filings: rows,
  };
}
